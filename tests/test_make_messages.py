"""`make test` says what its first run installs, and why, before it does (issue 13, point 7)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_first_make_test_announces_what_it_installs() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    e2e = makefile.split("$(E2E): $(STAMP)", 1)[1].split("\n\n", 1)[0]
    assert "Installing llama.cpp's server" in e2e and "'make unit' skips it" in e2e
    # Chromium comes from apt as root: said before apt runs, not silently.
    apt = next(line for line in e2e.splitlines() if "apt-get install" in line)
    assert apt.index('echo "Installing Debian\'s chromium') < apt.index("apt-get install")


def test_the_readme_keeps_make_unit_at_hand() -> None:
    quick = (ROOT / "README.md").read_text(encoding="utf-8").split("## Using it on your vault")[0]
    assert "make unit" in quick and "chromium" in quick and "llama.cpp" in quick
