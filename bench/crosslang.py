"""Build the cross-language set: Obsidian's help vault in English and Chinese, mixed.

The same help page exists in both languages, matched by its frontmatter `permalink`. Each
pair becomes one question: the title of the page in one language; gold, its counterpart in
the other language. The vault is written to a temporary or cache folder (never into the
project), as one of two layouts:

- `split` (default): every pair contributes one page, alternately the English and the Chinese
  one, so a Chinese question must find an English page and the other way round — the case of
  a reader asking in their language about a vault written in another.
- `both`: both pages of every pair; the page in the question's language is excluded from the
  results (the leave-one-out protocol), so the counterpart must be found by meaning.

By default the aliases that give a page its counterpart's name ("Help and support" on
帮助与支持) are removed: those are hand-made cross-language bridges, exactly what Stage 0 has to
do without. `--keep-aliases` keeps the vault as published.

    .venv/bin/python bench/crosslang.py [--layout split|both] [--keep-aliases] [--out DIR]

prints the folder; its `questions.jsonl` runs with
`wikiq eval DIR/questions.jsonl --vault DIR`.
"""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wikiq.vault.cache import cache_root
from wikiq.vault.markdown import split_frontmatter
from wikiq.vault.page import parse_page

HELP = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "obsidian-help"
LANGS = ("en", "zh")


@dataclass
class HelpPage:
    lang: str
    rel: str  # path inside the language folder, with .md
    text: str
    title: str
    aliases: list[str]


def read_pages(root: Path, lang: str) -> dict[str, HelpPage]:
    """permalink -> page, for one language."""
    out: dict[str, HelpPage] = {}
    for file in sorted((root / lang).rglob("*.md")):
        raw = file.read_bytes()
        text = raw.decode("utf-8")
        meta = split_frontmatter(text).data
        link = meta.get("permalink")
        if not link:
            continue
        rel = file.relative_to(root / lang).as_posix()
        parsed = parse_page(raw, f"{lang}/{rel}")
        out[str(link)] = HelpPage(lang, rel, text, parsed.page.title, list(parsed.page.aliases))
    return out


def strip_bridges(page: HelpPage, other: HelpPage) -> str:
    """The page's text without aliases naming its counterpart (its title, aliases or name)."""
    names = {other.title.lower(), Path(other.rel).stem.lower()} | {a.lower() for a in other.aliases}
    fm = split_frontmatter(page.text)
    meta: dict[str, Any] = dict(fm.data)
    aliases = meta.get("aliases")
    if not isinstance(aliases, list):
        return page.text
    kept = [a for a in aliases if str(a).lower() not in names]
    if len(kept) == len(aliases):
        return page.text
    if kept:
        meta["aliases"] = kept
    else:
        meta.pop("aliases")
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    return f"---\n{head}---\n{page.text[fm.body_start :]}"


def build(out: Path, layout: str, keep_aliases: bool, root: Path = HELP) -> Path:
    pages = {lang: read_pages(root, lang) for lang in LANGS}
    pairs = sorted(set(pages["en"]) & set(pages["zh"]))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    questions = []

    def write(page: HelpPage, other: HelpPage) -> str:
        text = page.text if keep_aliases else strip_bridges(page, other)
        dest = out / page.lang / page.rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(text.encode("utf-8"))
        return f"{page.lang}/{page.rel[:-3]}"

    for n, link in enumerate(pairs):
        en, zh = pages["en"][link], pages["zh"][link]
        if layout == "split":
            kept, asked = (en, zh) if n % 2 == 0 else (zh, en)
            gold = write(kept, asked)
            questions.append(
                {
                    "id": f"{asked.lang}->{kept.lang}:{link}",
                    "question": asked.title,
                    "gold": [gold],
                    "kind": f"{asked.lang}->{kept.lang}",
                }
            )
        else:
            paths = {"en": write(en, zh), "zh": write(zh, en)}
            for asked, kept in ((en, zh), (zh, en)):
                questions.append(
                    {
                        "id": f"{asked.lang}->{kept.lang}:{link}",
                        "question": asked.title,
                        "gold": [paths[kept.lang]],
                        "kind": f"{asked.lang}->{kept.lang}",
                        "exclude": [paths[asked.lang]],
                    }
                )
    with open(out / "questions.jsonl", "w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    return out


def default_out(layout: str, keep_aliases: bool) -> Path:
    suffix = "-aliases" if keep_aliases else ""
    return cache_root() / "bench" / f"obsidian-help-crosslang-{layout}{suffix}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", choices=("split", "both"), default="split")
    parser.add_argument("--keep-aliases", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or default_out(args.layout, args.keep_aliases)
    print(build(out, args.layout, args.keep_aliases))


if __name__ == "__main__":
    main()
