"""`wikiq serve` and `wikiq mcp` refuse bad settings with one sentence, before serving anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiq.cli import main

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return int(exit_info.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--model", "nonsense"], "names no provider"),
        (["serve", "--port", "70000"], "--port must be between 1 and 65535"),
        (["serve", "--host", "0.0.0.0", "--token", "short"], "--token may only hold"),
        (["mcp", "--token", "some-long-token"], "apply to --http only"),
        (["mcp", "--model", "warp:drive"], "Unknown model provider 'warp'"),
    ],
)
def test_bad_settings_stop_with_one_sentence(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run([*argv, "--vault", str(DEMO)], capsys)

    assert code != 0
    assert says in err
    assert "Traceback" not in err and err.strip().count("\n") == 0
