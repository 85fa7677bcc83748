"""The glossary's on-disk table: found by binary search, rebuilt when damaged, never misread."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikiq.text.glossary import _cached
from wikiq.text.sorted_table import SortedTable, write_sorted_table

CEDICT = (
    "# CC-CEDICT\n"
    "簽證 签证 [qian1 zheng4] /visa/certificate/to certify/\n"
    "剪 剪 [jian3] /scissors/to cut/\n"
    "藏 藏 [cang2] /to conceal/to hide away/\n"
)


def test_every_word_is_found_and_a_missing_one_is_not(tmp_path: Path) -> None:
    rows = {"zebra": "z", "apple": "a", "签证": "visa/certificate", "é": "e-acute", "b": ""}
    write_sorted_table(rows, tmp_path / "t.tsv")
    table = SortedTable(tmp_path / "t.tsv")
    assert {w: table[w] for w in rows} == rows
    assert len(table) == 5 and sorted(table) == sorted(rows, key=lambda w: w.encode())
    assert table.get("missing") is None and "签" not in table and "appl" not in table


def test_a_truncated_table_is_refused_not_misread(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    write_sorted_table({"a": "1", "b": "2", "c": "3"}, path)
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(OSError):
        SortedTable(path)


def test_the_glossary_table_is_built_once_and_rebuilt_when_damaged(tmp_path: Path) -> None:
    source = tmp_path / "cedict.txt"
    source.write_text(CEDICT, encoding="utf-8")
    cache = tmp_path / "cache"
    first = _cached(source, cache)
    assert first.senses("签证") == first.senses("簽證") == ["visa", "certificate", "certify"]
    assert first.parts("剪藏") == ["剪", "藏"]
    (table,) = cache.glob("*.tsv")
    table.write_bytes(table.read_bytes()[:10])  # a crash or a full disk left it short
    again = _cached(source, cache)
    assert again.senses("签证") == ["visa", "certificate", "certify"]


def test_a_new_glossary_table_removes_all_but_the_newest_older_ones(tmp_path: Path) -> None:
    # Every reinstall of the dictionary package names a new table (its file's time): the old
    # ones, 10 MB each, must not pile up in the user's cache.
    cache = tmp_path / "cache"
    for age in range(5):
        old = cache / f"cedict-100-{age}-v1.tsv"
        write_sorted_table({"剪": "to cut"}, old)
        for path in (old, old.with_name(old.stem + ".offsets.npy")):
            os.utime(path, ns=(age * 10**9, age * 10**9))
    (cache / "english-chinese-3-abc-v2.tsv").write_text("kept: another kind\n")
    source = tmp_path / "cedict.txt"
    source.write_text(CEDICT, encoding="utf-8")
    glossary = _cached(source, cache)
    assert glossary.senses("剪") == ["scissors", "cut"]
    left = sorted(p.name for p in cache.iterdir())
    new = next(n for n in left if n.endswith(".tsv") and n.startswith("cedict-") and "-100-" not in n)
    assert left == sorted(
        [
            "cedict-100-3-v1.offsets.npy",
            "cedict-100-3-v1.tsv",
            "cedict-100-4-v1.offsets.npy",
            "cedict-100-4-v1.tsv",
            new,
            new.replace(".tsv", ".offsets.npy"),
            "english-chinese-3-abc-v2.tsv",
        ]
    )
    assert SortedTable(cache / "cedict-100-4-v1.tsv")["剪"] == "to cut"  # kept tables still read
