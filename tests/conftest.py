"""Shared fixtures: an isolated cache folder for every test, and small vaults built on the fly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.vaults import VaultFactory

# The scripted model server and its retry/sleep helpers, for every test package.
pytest_plugins = ["tests.support.fixtures"]

ROOT = Path(__file__).resolve().parent.parent
DEMO_VAULT = ROOT / "examples" / "demo-vault"


def demo_copy(folder: Path) -> Path:
    """A copy of the bundled demo vault at `folder / "vault"`, for a test that edits it."""
    vault = folder / "vault"
    shutil.copytree(DEMO_VAULT, vault)
    return vault


@pytest.fixture(autouse=True, scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A cache folder of the session's own under every test's: a test that undoes its
    patches (`monkeypatch.undo()`) falls back to it, never to the user's real cache."""
    import os

    fallback = tmp_path_factory.mktemp("session-cache")
    os.environ["WIKIQ_CACHE_DIR"] = str(fallback)
    os.environ["XDG_CACHE_HOME"] = str(fallback / "xdg")


@pytest.fixture(autouse=True)
def _isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Tests never touch the user's real cache, config, or vault settings."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("WIKIQ_CACHE_DIR", str(cache))
    # Code given no cache folder (a settings object made without the environment, a catalog
    # opened directly) uses the platform's, which follows XDG_CACHE_HOME here.
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache / "xdg"))
    monkeypatch.setenv("WIKIQ_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    # Never pick up a model running on the developer's machine, nor log their test questions.
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "0")
    # Servers started by tests do not build embedding indexes unless the test asks for it.
    monkeypatch.setenv("WIKIQ_AUTO_INDEX", "0")
    for var in (
        "WIKIQ_VAULT",
        "WIKIQ_WIKI_FOLDER",
        "WIKIQ_MODEL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    return cache


@pytest.fixture
def make_vault(tmp_path: Path) -> VaultFactory:
    """Write files into a fresh vault folder: `make_vault({"wiki/index.md": "...", ...})`.

    Values may be str (written as UTF-8, newlines kept as given) or bytes (written as is).
    """

    def make(files: dict[str, str | bytes], name: str = "vault") -> Path:
        root = tmp_path / name
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8"))
        root.mkdir(parents=True, exist_ok=True)
        return root

    return make
