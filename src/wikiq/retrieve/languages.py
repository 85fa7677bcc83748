"""Which languages a vault is written in, so the coverage decision knows when words cannot tell.

A Chinese question over an English vault shares no words with the page that answers it: its
text evidence is nil whether or not the vault covers it, so that evidence must not be read as
"not covered" (only Stage 0, which matches across languages, can judge such a question). The
share of the vault in the question's language is measured here, cheaply: a page's script from
its term counts (CJK terms against the rest), and among Latin-script pages the language of a
sample of titles and summaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from wikiq import sparse
from wikiq.sparse import CSR
from wikiq.text.language import detect_language
from wikiq.text.scripts import CJK_RUNS
from wikiq.vault import store
from wikiq.vault.catalog import Catalog
from wikiq.vault.rows import page_value

CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
# Titles and summaries read to tell Latin-script languages apart: enough for a share, and
# cheap on a million pages.
LANGUAGE_SAMPLE = 2000


@dataclass(frozen=True)
class VaultLanguages:
    cjk_pages: float = 0.0  # share of pages written mostly in CJK scripts
    latin: dict[str, float] = field(default_factory=dict)  # language -> share of Latin pages

    def share_of(self, language: str) -> float:
        """The share of the vault's pages written in `language` (1.0 when it cannot tell)."""
        if language in CJK_LANGUAGES:
            return self.cjk_pages
        if language == "other":
            return 1.0
        if not self.latin:  # no Latin-script page was sampled
            return 1.0 - self.cjk_pages
        return (1.0 - self.cjk_pages) * self.latin.get(language, 0.0)


def vault_languages(catalog: Catalog) -> VaultLanguages:
    terms = catalog.terms
    n = len(catalog.pages)
    if n == 0:
        return VaultLanguages()
    is_cjk = np.fromiter((bool(CJK_RUNS.search(t)) for t in terms.vocab), dtype=bool)
    total = terms.lengths()  # whole numbers: the same sums, whichever way they are added
    cjk = _cjk_counts(terms.matrix, is_cjk, n)
    cjk_page = (total > 0) & (cjk * 2 > total)
    latin = np.nonzero(~cjk_page)[0]
    step = max(1, len(latin) // LANGUAGE_SAMPLE)
    seen: dict[str, int] = {}
    for i in latin[::step].tolist():
        # Two fields, not the whole page: a page's fields are spread over the cache file.
        title, summary = (page_value(catalog.pages, f, i) for f in ("title", "summary"))
        lang = detect_language(f"{title}. {summary}")
        if lang not in CJK_LANGUAGES and lang != "other":
            seen[lang] = seen.get(lang, 0) + 1
    sampled = sum(seen.values())
    return VaultLanguages(
        cjk_pages=float(cjk_page.mean()),
        latin={k: v / sampled for k, v in seen.items()} if sampled else {},
    )


def _cjk_counts(counts: CSR, is_cjk: np.ndarray, n: int) -> np.ndarray:
    """How many CJK terms each page holds, counted a slice of entries at a time (a million
    pages hold ~120 million: every entry's page number at once was 1 GB)."""
    cjk = np.zeros(n)
    if not is_cjk.any():
        return cjk
    for at in range(0, counts.nnz, sparse.ENTRY_SLICE):
        end = min(at + sparse.ENTRY_SLICE, counts.nnz)
        held = np.nonzero(is_cjk[counts.indices[at:end]])[0] + at
        if len(held):
            pages = np.searchsorted(counts.indptr, held, side="right") - 1
            cjk += np.bincount(pages, weights=counts.data[held], minlength=n)
        store.release_pages(counts.indices[at:end])  # read once (a cache's: its pages go)
        store.release_pages(counts.data[at:end])
    return cjk
