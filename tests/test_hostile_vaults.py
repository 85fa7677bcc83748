"""Hostile and broken vaults through the real command: no traceback, no hang, valid UTF-8 JSON,
nothing from outside the vault, and the vault unchanged (issue 11's cases, made at test time)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.support.cli import CliResult, run_wikiq
from tests.support.vaults import VaultFactory, index_md

# Nine levels of nine aliases: 387 million values once expanded, 73 aliases written.
_LEVELS = "bcdefghi"
BOMB = (
    "---\n"
    + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]\n"
        for p, c in zip("a" + _LEVELS[:-1], _LEVELS, strict=True)
    )
    + "tags: *i\n---\n# Bomb\n\nA page whose frontmatter explodes.\n"
)


def _hashes(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(root))] = hashlib.sha1(path.read_bytes()).hexdigest()
    return out


def _clean(res: CliResult) -> None:
    """Exit 0, or one sentence with a documented code: never a traceback."""
    assert "Traceback" not in res.stderr
    assert res.code in (0, 1, 2, 3, 4, 5, 6), (res.code, res.stderr[-500:])


@pytest.fixture
def hostile(make_vault: VaultFactory, tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "passwd.md"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0:hunter2:/root:/bin/bash\n")
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/orbit|orbit]]", "- [[concepts/markup|markup]]"),
            "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\n\nA curved path around the Moon.\n",
            "wiki/concepts/markup.md": (
                "---\ntype: concept\ntitle: 'Closing [/red] and [/] tags'\n---\n"
                "# Closing [/red] and [/] tags\n\nA line with [bold]markup[/] and [/red] in it.\n"
            ),
            "wiki/concepts/bomb.md": BOMB,
        }
    )
    (vault / "wiki" / "concepts" / "passwd.md").symlink_to(secret)
    # A file name that is not UTF-8 (Latin-1 "café"): Linux allows any bytes.
    with open(os.path.join(os.fsencode(vault / "wiki" / "concepts"), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"# Cafe\n\nCoffee notes.\n")
    return vault


def test_every_command_survives_a_hostile_vault_and_leaves_it_unchanged(hostile: Path) -> None:
    before = _hashes(hostile)
    runs = [
        run_wikiq("doctor", "--vault", str(hostile), timeout=60),
        run_wikiq("doctor", "--vault", str(hostile), "--json", timeout=60),
        run_wikiq("pages", "--vault", str(hostile), timeout=60),
        run_wikiq("pages", "--vault", str(hostile), "--json", timeout=60),
        run_wikiq("show", "concepts/markup", "--vault", str(hostile), timeout=60),
        run_wikiq("show", "concepts/bomb", "--vault", str(hostile), timeout=60),
        run_wikiq("search", "closing tags markup", "--vault", str(hostile), "--explain", timeout=60),
        run_wikiq("search", "root password bash", "--vault", str(hostile), "--json", timeout=60),
        run_wikiq("ask", "What is the root password for bash?", "--vault", str(hostile), timeout=60),
    ]
    for res in runs:
        _clean(res)
        assert "hunter2" not in res.stdout  # /etc/passwd-like text is never quoted
    assert _hashes(hostile) == before


def test_rich_markup_in_a_page_is_printed_as_text(hostile: Path) -> None:
    pages = run_wikiq("pages", "--vault", str(hostile), timeout=60)
    assert pages.code == 0 and "Closing [/red] and [/] tags" in pages.stdout
    search = run_wikiq("search", "closing tags", "--vault", str(hostile), timeout=60)
    assert search.code == 0 and "Closing [/red] and [/] tags" in search.stdout


def test_doctor_lists_the_link_out_the_undecodable_name_and_the_bomb(hostile: Path) -> None:
    res = run_wikiq("doctor", "--vault", str(hostile), "--json", timeout=60)
    data = json.loads(res.stdout)
    skipped = {s["file"]: s["reason"] for s in data["skipped"]}
    assert "concepts/passwd.md" in skipped and "outside the wiki folder" in skipped["concepts/passwd.md"]
    assert "concepts/caf\\xe9.md" in skipped and "not valid UTF-8" in skipped["concepts/caf\\xe9.md"]
    bomb = [m for m in data["malformed"] if m["file"] == "concepts/bomb.md"]
    assert bomb and "expand to more than" in bomb[0]["problem"]
    # The bomb page is still a page, read without its frontmatter.
    assert data["pages"] == 3


def test_json_output_is_valid_utf8_whatever_the_file_names(hostile: Path) -> None:
    for args in (("pages", "--json"), ("search", "coffee cafe notes", "--json")):
        res = run_wikiq(*args, "--vault", str(hostile), timeout=60)
        assert res.code == 0
        json.loads(res.stdout)  # run_wikiq decodes stdout as strict UTF-8: it would have raised


def test_a_questions_file_that_is_not_utf8_names_its_line(hostile: Path, tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_bytes(b'{"id": "a", "question": "orbit", "gold": []}\n{"id": "b", "question": "caf\xe9"}\n')
    res = run_wikiq("eval", str(bad), "--vault", str(hostile), timeout=60)
    assert res.code != 0 and "Traceback" not in res.stderr
    assert f"{bad}:2 is not UTF-8 text" in res.stderr


def test_the_web_page_and_mcp_over_a_hostile_vault_stay_inside_it(hostile: Path) -> None:
    import asyncio

    import httpx
    from mcp import Client

    from tests.web.conftest import serve
    from wikiq.mcp_server import build_server
    from wikiq.web.app import create_app
    from wikiq.wiki import Wiki

    before = _hashes(hostile)
    wiki = Wiki.open(hostile)
    outputs: list[str] = []
    with serve(create_app(wiki)) as url, httpx.Client(base_url=url, timeout=60) as web:
        for path, params in (
            ("/api/search", {"q": "root password bash"}),
            ("/api/search", {"q": "closing tags markup"}),
            ("/api/page", {"path": "concepts/passwd"}),
            ("/api/page", {"path": "concepts/markup"}),
            ("/api/graph", {"q": "coffee cafe notes"}),
            ("/api/info", {}),
        ):
            res = web.get(path, params=params)
            assert res.status_code in (200, 404), (path, res.status_code, res.text[:200])
            outputs.append(res.text)
        asked = web.post("/api/ask", json={"question": "What is the root password for bash?"})
        assert asked.status_code == 200
        outputs.append(asked.text)

    async def agent() -> list[str]:
        async with Client(build_server(wiki)) as client:
            got = []
            for tool, args in (
                ("search", {"question": "root password bash"}),
                ("ask", {"question": "What is the root password for bash?"}),
                ("read_page", {"path": "concepts/passwd"}),
                ("list_pages", {}),
            ):
                result = await client.call_tool(tool, args)
                got.append(" ".join(getattr(c, "text", "") for c in result.content))
            resources = await client.list_resources()
            got.append(" ".join(str(r.uri) for r in resources.resources))
            return got

    outputs += asyncio.run(agent())
    wiki.close()
    for text in outputs:
        assert "hunter2" not in text and "Traceback" not in text
        text.encode("utf-8")  # valid UTF-8: no lone surrogate from the undecodable name
    assert _hashes(hostile) == before


def test_hostile_source_notes_are_skipped_or_read_safely(hostile: Path, tmp_path: Path) -> None:
    raw = hostile / "raw"
    raw.mkdir()
    (raw / "bomb.md").write_text(BOMB.replace("# Bomb", "# Bomb note"), encoding="utf-8")
    (raw / "garbage.md").write_bytes(b"# Garbage\n\n\x00\xff\xfe orbit \x00\x00 moon\n")
    (raw / "passwd.md").symlink_to(tmp_path / "outside" / "passwd.md")
    os.mkfifo(raw / "pipe.md")  # reading it would hang: never opened
    with open(os.path.join(os.fsencode(raw), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"# Cafe\n\nCoffee notes.\n")
    before = _hashes(hostile)
    runs = [
        run_wikiq("doctor", "--vault", str(hostile), "--json", timeout=60),
        run_wikiq("search", "root password bash", "--vault", str(hostile), "--json", timeout=60),
        run_wikiq("search", "garbage orbit moon", "--vault", str(hostile), timeout=60),
        run_wikiq("show", "raw/bomb", "--vault", str(hostile), timeout=60),
        run_wikiq("show", "raw/passwd", "--vault", str(hostile), timeout=60),
        run_wikiq("ask", "What is the root password for bash?", "--vault", str(hostile), timeout=60),
    ]
    for res in runs:
        _clean(res)
        assert "hunter2" not in res.stdout
    doctor = json.loads(runs[0].stdout)
    assert doctor["source_notes"] == 2  # bomb and garbage; the link out, the pipe, the bad name not
    skipped = {s["file"] for s in doctor["skipped"]}
    assert "raw/passwd.md" in skipped and "raw/caf\\xe9.md" in skipped
    assert "Bomb note" in runs[3].stdout
    assert _hashes(hostile) == before


def test_binary_files_named_md_are_reported_and_never_searched_or_quoted(
    make_vault: VaultFactory,
) -> None:
    # An image saved as `.md`, once as a page and once as a source note the page points at:
    # its bytes hold letters that read as question words when decoded with replacement.
    junk = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR orbit moon transfer " * 40
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/orbit|orbit]]"),
            "wiki/concepts/orbit.md": (
                "---\ntype: concept\n---\n# Orbit\n\nA curved path around the Moon. "
                "Original file: [[raw/scan]]\n"
            ),
            "raw/notes.md": "# Notes\n\nThe transfer orbit to the Moon took three days.\n",
        }
    )
    (vault / "wiki" / "concepts" / "picture.md").write_bytes(junk)
    (vault / "raw" / "scan.md").write_bytes(junk)
    found = run_wikiq("search", "orbit moon transfer", "--vault", str(vault), "--json", timeout=60)
    assert found.code == 0, found.stderr[-500:]
    data = json.loads(found.stdout)
    assert "concepts/picture" not in [r["path"] for r in data["results"]]
    assert [s["path"] for s in data["sources"]] == ["raw/notes"]  # not raw/scan
    doctor = json.loads(run_wikiq("doctor", "--vault", str(vault), "--json", timeout=60).stdout)
    problems = {m["file"]: m["problem"] for m in doctor["malformed"]}
    assert "not a text file" in problems["concepts/picture.md"]
    assert doctor["source_notes"] == 2 and doctor["dead_links"] == []  # raw/scan still resolves
    for shown in ("concepts/picture", "raw/scan"):  # `show` says why there is no text
        res = run_wikiq("show", shown, "--vault", str(vault), timeout=60)
        assert res.code == 0 and "not a text file" in res.stdout and "IHDR" not in res.stdout
