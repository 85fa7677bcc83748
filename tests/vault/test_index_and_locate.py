"""index.md parsing and finding the vault, with the skill's exact messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.vaults import VaultFactory, index_md
from wikiq.config import load_config
from wikiq.errors import NO_VAULT_MESSAGE, ConfigError, EmptyWiki, NoVaultConfigured, VaultNotFound
from wikiq.vault.index_file import index_entries, is_empty_index, parse_index
from wikiq.vault.locate import locate_vault
from wikiq.wiring import locate

EMPTY_MARKER_INDEX = "# Wiki Index\n\n> No pages yet. Ingest sources to populate the Wiki.\n"


def test_index_line_with_aliases_and_summary() -> None:
    [entry] = parse_index(
        "- [[entities/neil-armstrong|neil-armstrong]] `aliases: Armstrong, 阿姆斯特朗` - First man on the Moon."
    )
    assert entry.path == "entities/neil-armstrong"
    assert entry.aliases == ("Armstrong", "阿姆斯特朗")
    assert entry.summary == "First man on the Moon."


def test_index_line_without_aliases_or_summary() -> None:
    [entry] = parse_index("- [[sources/notes_3fa2c1|notes_3fa2c1]]")
    assert entry.path == "sources/notes_3fa2c1" and entry.aliases == () and entry.summary == ""


def test_index_summary_may_contain_links_even_cut_ones() -> None:
    entries = parse_index(
        "- [[entities/a|a]] - A patient with [[concepts/Heart Failure]] and more\n"
        "- [[entities/b|b]] - Diagnosed with [[concepts/Coronary Artery D\n"
    )
    assert [e.path for e in entries] == ["entities/a", "entities/b"]
    assert entries[1].summary.startswith("Diagnosed with")


def test_localised_headings_and_other_lines_are_ignored() -> None:
    text = "---\ncreated: 2026\n---\n# Wiki Index\n\n> 自动生成的知识库目录\n\n## 实体\n\n- [[entities/陈深|陈深]] `aliases: Chen Shen (Ming Dynasty), 陈子深` - type: entity\n\n## 概念\n\nSome prose.\n- [[concepts/道|道]]\n"
    entries = parse_index(text)
    assert [e.path for e in entries] == ["entities/陈深", "concepts/道"]
    # The plugin splits aliases on commas, so we do too.
    assert entries[0].aliases == ("Chen Shen (Ming Dynasty)", "陈子深")


def test_empty_index_forms() -> None:
    assert is_empty_index("")
    assert is_empty_index("  \n\n")
    assert is_empty_index(EMPTY_MARKER_INDEX)
    assert not is_empty_index(index_md("- [[entities/a|a]]"))


@given(st.text())
def test_index_parser_never_raises(text: str) -> None:
    parse_index(text)
    is_empty_index(text)


# --- locating the vault ---------------------------------------------------------------


def _wiki(make_vault: VaultFactory, name: str = "vault", folder: str = "wiki") -> Path:
    return make_vault(
        {f"{folder}/index.md": index_md("- [[entities/a|a]]"), f"{folder}/entities/a.md": "# A\n"},
        name=name,
    )


def test_nothing_configured_prints_the_skills_message_word_for_word(tmp_path: Path) -> None:
    with pytest.raises(NoVaultConfigured) as err:
        locate_vault(cwd=tmp_path)
    assert str(err.value) == NO_VAULT_MESSAGE
    assert str(err.value).startswith("No LLM Wiki vault is configured. Create a .llm-wiki.json")
    assert '{ "vaultPath": "/path/to/your/vault", "wikiFolder": "wiki" }' in str(err.value)
    assert str(err.value).endswith("(wikiFolder is optional and defaults to wiki.) Then ask again.")


def test_flag_beats_environment_beats_config_files(
    make_vault: VaultFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = _wiki(make_vault, "a"), _wiki(make_vault, "b"), _wiki(make_vault, "c")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".llm-wiki.json").write_text(json.dumps({"vaultPath": str(c)}))
    from_env = load_config(env={"WIKIQ_VAULT": str(b), "WIKIQ_CONFIG_DIR": str(tmp_path)})
    monkeypatch.chdir(project)
    assert locate(from_env, a, None).vault == a and locate(from_env, a, None).source == "--vault"
    assert locate(from_env, None, None).vault == b
    assert locate(from_env, None, None).source == "WIKIQ_VAULT"
    found = locate_vault(cwd=project)
    assert (
        found.vault == c
        and found.wiki_folder == "wiki"
        and found.source.startswith(".llm-wiki.json")
    )


def test_llm_wiki_json_in_a_parent_with_relative_path_and_folder(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    vault = _wiki(make_vault, "notes", folder="kb")
    (tmp_path / ".llm-wiki.json").write_text('{"vaultPath": "notes", "wikiFolder": "kb"}')
    deep = tmp_path / "src" / "deeper"
    deep.mkdir(parents=True)
    found = locate_vault(cwd=deep)
    assert found.vault == vault.resolve() and found.wiki_folder == "kb"
    assert found.index_path == vault.resolve() / "kb" / "index.md"


def test_claude_md_line_is_used_when_no_json(make_vault: VaultFactory, tmp_path: Path) -> None:
    vault = _wiki(make_vault, "v2", folder="mywiki")
    (tmp_path / "CLAUDE.md").write_text(
        f"# Notes\n\nLLM Wiki vault: {vault} (wikiFolder: mywiki)\n"
    )
    found = locate_vault(cwd=tmp_path)
    assert found.vault == vault.resolve() and found.wiki_folder == "mywiki"
    assert found.source.startswith("CLAUDE.md")


def test_json_wins_over_claude_md(make_vault: VaultFactory, tmp_path: Path) -> None:
    j, c = _wiki(make_vault, "j"), _wiki(make_vault, "c")
    (tmp_path / ".llm-wiki.json").write_text(json.dumps({"vaultPath": str(j)}))
    (tmp_path / "CLAUDE.md").write_text(f"LLM Wiki vault: {c}\n")
    assert locate_vault(cwd=tmp_path).vault == j


def test_broken_llm_wiki_json_is_one_clear_sentence(tmp_path: Path) -> None:
    (tmp_path / ".llm-wiki.json").write_text("{not json")
    with pytest.raises(ConfigError) as err:
        locate_vault(cwd=tmp_path)
    assert "not valid JSON" in str(err.value) and "\n" not in str(err.value)


def test_missing_vault_path_is_reported(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound) as err:
        locate_vault(tmp_path / "nope", cwd=tmp_path)
    assert "does not exist" in str(err.value) and "--vault" in str(err.value)


@pytest.mark.parametrize("index", ["", "\n\n", EMPTY_MARKER_INDEX])
def test_empty_wiki_gets_the_no_pages_yet_message(make_vault: VaultFactory, index: str) -> None:
    vault = make_vault({"wiki/index.md": index})
    with pytest.raises(EmptyWiki) as err:
        locate_vault(vault)
    assert "no pages yet" in str(err.value) and "ingest sources" in str(err.value)


def test_wiki_folder_without_index_is_an_empty_wiki(make_vault) -> None:
    vault = make_vault({"wiki/entities/a.md": "# A\n"})
    with pytest.raises(EmptyWiki):
        locate_vault(vault)


def test_plain_obsidian_vault_is_detected(make_vault: VaultFactory) -> None:
    vault = make_vault({"Notes/Idea.md": "# Idea\n", ".obsidian/app.json": "{}"})
    found = locate_vault(vault)
    assert (
        found.layout == "plain" and found.wiki_folder == "" and found.wiki_root == vault.resolve()
    )


def test_pointing_at_the_wiki_folder_itself_works(make_vault: VaultFactory) -> None:
    vault = _wiki(make_vault)
    found = locate_vault(vault / "wiki")
    assert (
        found.vault == vault.resolve()
        and found.wiki_folder == "wiki"
        and found.layout == "llm-wiki"
    )


def test_explicit_wiki_folder_that_does_not_exist_is_reported(make_vault: VaultFactory) -> None:
    vault = _wiki(make_vault)
    with pytest.raises(VaultNotFound) as err:
        locate_vault(vault, "kb")
    assert "'kb'" in str(err.value)


def test_index_read_from_the_file_as_it_goes_gives_the_entries_of_its_whole_text(
    tmp_path: Path,
) -> None:
    # The catalog parses index.md line by line from the open file; the lines, their numbers
    # and the entries must be those of the whole text, whatever ends its lines.
    raw = (
        "\ufeff# Index\r\n\r\n- [[entities/moon|moon]] `aliases: Luna` - The Moon.\r\n"
        "- [[concepts/orbit]] - path\u2028- [[concepts/tide]] - after a line separator\n"
        "junk \x85- [[entities/x|x]]\r- [[entities/bad\xff]] - odd byte\n- [[last.md]]"
    ).encode("utf-8", "surrogateescape")
    raw = raw.replace(b"bad\xc3\xbf", b"bad\xff")  # one byte that is not UTF-8
    path = tmp_path / "index.md"
    path.write_bytes(raw)
    with open(path, encoding="utf-8", errors="replace") as lines:
        streamed = list(index_entries(lines))
    whole = parse_index(raw.decode("utf-8", errors="replace"))
    assert streamed == whole
    assert [(e.path, e.line) for e in whole] == [
        ("entities/moon", 3),
        ("concepts/orbit", 4),
        ("concepts/tide", 5),
        ("entities/x", 7),
        ("entities/bad\ufffd", 8),
        ("last", 9),
    ]
