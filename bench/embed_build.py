"""Build an embedding index for a bench vault and record what it cost.

    .venv/bin/python bench/embed_build.py VAULT --text lead [--out FILE.npz] [--json REPORT]

Without `--out` the index goes where `wikiq index --embed` puts it (so search uses it); with
it, to a side file for comparing text choices. Prints one JSON object: pages, vectors, the
tokens the local model read, seconds, ms per token, size on disk.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from wikiq.cli.progress import ReadProgress
from wikiq.embed.index import build_index
from wikiq.embed.passages import TEXT_MODES, page_passages
from wikiq.embed.semantic import catalog_index_path
from wikiq.llm import LocalE5, open_embedder
from wikiq.wiki import Wiki


def count_tokens(wiki: Wiki, embedder: LocalE5, mode: str) -> tuple[int, int]:
    """(texts, tokens) the local model reads for the whole vault in this mode."""
    texts = tokens = 0
    cat = wiki.catalog
    for i, page in enumerate(cat.pages):
        for t in page_passages(page, cat.read_text(i), cat.read_body(i), mode):  # type: ignore[arg-type]
            texts += 1
            tokens += embedder.token_count(t)
    return texts, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--text", choices=TEXT_MODES, default="lead")
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="append the report here")
    args = parser.parse_args()

    wiki = Wiki.open(args.vault)
    embedder = open_embedder(args.model)
    path = args.out or catalog_index_path(wiki.location, wiki.catalog)
    t = time.perf_counter()
    with ReadProgress(f"Embedding {args.vault.name} ({args.text})") as progress:
        report = build_index(
            wiki.catalog,
            embedder,
            text=args.text,
            path=path,
            rebuild=args.rebuild,
            progress=progress,
        )
    seconds = time.perf_counter() - t
    out = {"vault": str(args.vault), **report.to_dict(), "wall_s": round(seconds, 1)}
    if isinstance(embedder, LocalE5):
        texts, tokens = count_tokens(wiki, embedder, args.text)
        out["texts"] = texts
        out["tokens"] = tokens
        if report.embedded == report.pages and tokens:
            out["ms_per_token"] = round(report.seconds * 1000 / tokens, 3)
    line = json.dumps(out, ensure_ascii=False)
    print(line)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
