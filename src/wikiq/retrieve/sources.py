"""Source notes in retrieval: the excerpts beside the ranked pages, and the notes' say in coverage.

Two ways in, fused by reciprocal rank: through the pages (the notes the best pages link to,
searched for the question: the page→note link is strong evidence) and directly (BM25 over
every note's chunks). Pages stay the ranked results, untouched. A question the pages do not
cover but one note clearly does is covered under its own arm, `Src+PPR`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from wikiq.retrieve.body import BodyHits, BodyIndex
from wikiq.retrieve.coverage import (
    COVERED,
    NOT_COVERED,
    CoverageFeatures,
    Covered,
    coverage_probability,
    not_covered_by_rule,
)
from wikiq.retrieve.result import ARM_NOTES, Retrieval, SourceExcerpt
from wikiq.retrieve.topk import best_places
from wikiq.text.han_singles import evidence_terms
from wikiq.text.stopwords import content_terms
from wikiq.vault.note_index import NoteIndex
from wikiq.vault.terms import match_terms

RRF_K = 60
THROUGH_PAGES = 3  # the notes linked from this many best pages form the second way in
THROUGH_WEIGHT = 1.0  # its weight in the fusion, as the direct search (plain RRF)
THROUGH_FLOOR = 0.5  # a linked note counts when its best chunk scores this share of the best
# A question in the language the notes are not written in, searched through the glossary
# (retrieve/translation.py): a third list, weighted as the direct search.
TRANSLATED_WEIGHT = 1.0
# The question's word groups in an index's own terms (Retriever._translation).
Translation = Callable[[BodyIndex], list[list[str]]]
MAX_SOURCES = 8
# The notes cover a question the pages do not when the coverage model, read on chunks, is at
# least this sure. Not the pages' 0.5: a question about a name only the notes mention is
# usually absent from them too (dev sets: 3 absent questions reach 0.55-0.66, the one
# source-only question the pages miss 0.55; docs/BENCHMARKS.md, "Source notes").
NOTES_COVERED = 0.75


@dataclass(frozen=True)
class NoteEvidence:
    """What the notes say about a question: the best chunk's share of the question's
    distinctive words, and the coverage model's probability read on chunks."""

    probability: float
    features: CoverageFeatures

    def to_dict(self) -> dict[str, object]:
        return {"probability": round(self.probability, 4), "features": self.features.to_dict()}


@dataclass(frozen=True)
class _BestChunks:
    """Each note's best chunk for one question, as arrays over the notes."""

    direct: np.ndarray  # the notes holding a question word, by their best chunk's rank
    chunk: np.ndarray  # note -> its best chunk (-1: no chunk holds a question word)
    score: np.ndarray  # note -> that chunk's BM25 score (0 when none)
    best_score: float  # the best chunk's score


class NoteSearch:
    """BM25 over the chunks of every source note, plus the page→note links."""

    def __init__(self, index: NoteIndex) -> None:
        self.index = index
        self.bm25 = BodyIndex(index.terms, bounds=False)  # built per process
        self.page_notes: dict[str, list[int]] = {}
        for note, pages in index.links.items():
            n = index.by_path.get(note)
            if n is not None:
                for page in pages:
                    self.page_notes.setdefault(page, []).append(n)

    def find(
        self,
        question: str,
        pages: list[str],
        *,
        k: int = MAX_SOURCES,
        translation: Translation | None = None,
    ) -> tuple[list[SourceExcerpt], NoteEvidence]:
        """The best excerpt of each of the best notes, and the notes' evidence. `translation`:
        for a question in the language the vault is not written in, its word groups in the
        notes' terms (the glossary's), searched as a third list."""
        terms = content_terms(match_terms(question))
        # Every chunk is scored (a linked note's rank counts however far down it is) and
        # grouped by note; only the best ten chunks are ranked, for the evidence's features.
        chunks, scores = self.bm25.score_every(terms)
        words = evidence_terms(terms)
        evidence = self._evidence(self._best_ten(chunks, scores, words), words)
        best = self._best_chunks(chunks, scores)
        through = self._through_pages(pages, best)
        rankings = [(best.direct, 1.0), (np.asarray(through, np.int64), THROUGH_WEIGHT)]
        if translation is not None:
            rankings.append((self._translated(translation, best), TRANSLATED_WEIGHT))
        fused = np.zeros(len(best.chunk))
        for ranking, weight in rankings:
            fused[ranking] += weight / (RRF_K + np.arange(1, len(ranking) + 1))  # each note once
        found = np.nonzero(fused > 0)[0]
        order = found[np.lexsort((found, -best.score[found], -fused[found]))][:k].tolist()
        if not order:
            return [], evidence
        picked = [int(best.chunk[n]) for n in order]
        texts = [self.index.excerpt(c) for c in picked]  # each reads its own bytes
        top = float(fused[order[0]])
        return [
            self._excerpt(n, c, float(fused[n]) / top, text)
            for n, c, text in zip(order, picked, texts, strict=True)
        ], evidence

    def _best_ten(self, chunks: np.ndarray, scores: np.ndarray, words: list[str]) -> BodyHits:
        """The ten best chunks, best first (ties by chunk number, as a search ranks them),
        with the coverage of the first three: what the evidence's features read. `chunks`
        come in chunk order (`score_every`), so the first of tied places are the lowest."""
        keep = best_places(scores, 10)
        order = keep[np.lexsort((chunks[keep], -scores[keep]))]
        chunks, scores = chunks[order], scores[order]
        coverage = np.zeros(len(chunks))
        coverage[:3] = self.bm25.coverage_of(chunks[:3], words)
        return BodyHits(chunks, scores, coverage, ())

    def _best_chunks(self, chunks: np.ndarray, scores: np.ndarray) -> _BestChunks:
        """Each note's best chunk (the first of equal scores) and its score, and the notes in
        the order of their best chunk, from chunks in any order. A note's chunks are numbered
        one after another, so chunks in page order come grouped by note with no sort."""
        n = len(self.index.notes)
        chunk, score = np.full(n, -1, dtype=np.int64), np.zeros(n)
        if not len(chunks):
            return _BestChunks(np.empty(0, dtype=np.int64), chunk, score, 0.0)
        notes = self.index.chunk_note[chunks].astype(np.int64)
        if np.any(chunks[1:] < chunks[:-1]) or np.any(notes[1:] < notes[:-1]):
            by_note = np.lexsort((chunks, notes))  # a translated search's hits, best first
            chunks, scores, notes = chunks[by_note], scores[by_note], notes[by_note]
        heads = np.flatnonzero(np.r_[True, notes[1:] != notes[:-1]])
        top = np.maximum.reduceat(scores, heads)
        at_top = np.flatnonzero(scores == np.repeat(top, np.diff(np.r_[heads, len(chunks)])))
        group = np.searchsorted(heads, at_top, side="right") - 1
        first = at_top[np.r_[True, group[1:] != group[:-1]]]
        held = notes[heads]
        chunk[held], score[held] = chunks[first], top
        direct = held[np.lexsort((chunks[first], -top))]
        return _BestChunks(direct, chunk, score, float(top.max()))

    def _translated(self, translation: Translation, best: _BestChunks) -> np.ndarray:
        """The notes in the order of their best chunk for the question's translated word
        groups; a note only they find gets that chunk as its excerpt."""
        groups = translation(self.bm25)
        if not groups:
            return np.zeros(0, dtype=np.int64)
        hits = self.bm25.search_groups(groups, limit=max(self.bm25.n_docs, 1))
        found = self._best_chunks(hits.pages, hits.scores)
        new = found.direct[best.chunk[found.direct] < 0]
        best.chunk[new], best.score[new] = found.chunk[new], 0.0
        return found.direct

    def _through_pages(self, pages: list[str], best: _BestChunks) -> list[int]:
        """The notes the best pages link to, in the pages' order (the link is the evidence):
        those whose best chunk scores at least THROUGH_FLOOR of the best chunk's score, then
        the best page's notes that share no word with the question at all (asked in English,
        written in Chinese: the link is the only evidence, and the note's start is shown)."""
        floor = THROUGH_FLOOR * best.best_score
        linked: list[int] = []
        unmatched: list[int] = []
        for rank, page in enumerate(pages[:THROUGH_PAGES]):
            for n in self.page_notes.get(page, ()):
                if best.chunk[n] >= 0:
                    if best.score[n] >= floor:
                        linked.append(n)
                elif rank == 0:
                    first = np.nonzero(self.index.chunk_note == n)[0]
                    if len(first):
                        best.chunk[n], best.score[n] = int(first[0]), 0.0
                        unmatched.append(n)
        return list(dict.fromkeys(linked + unmatched))

    def _excerpt(self, n: int, chunk: int, score: float, text: str) -> SourceExcerpt:
        note = self.index.notes[n]
        return SourceExcerpt(
            note.path,
            note.title,
            int(self.index.chunk_start[chunk]),
            int(self.index.chunk_end[chunk]),
            score,
            text,
            self.index.links.get(note.path, ()),
        )

    def _evidence(self, hits: BodyHits, terms: list[str]) -> NoteEvidence:
        """The coverage model's features read on chunks instead of pages (shares and ratios,
        so they mean the same on both), without the name feature (a note has no aliases)."""
        features = CoverageFeatures(
            text_coverage=hits.best_coverage(),
            text_best3=hits.best_coverage(3),
            known=self.bm25.known_share(terms),
            text_gap=hits.standout(),
            name=0.0,
            sem_standout=0.0,
            foreign=0.0,
        )
        return NoteEvidence(coverage_probability(features), features)

    def knows(self, word: str) -> bool:
        """Whether some note holds every term of `word` (a name no page mentions)."""
        ids = self.bm25.term_ids
        return all(t in ids for t in match_terms(word))


def with_sources(
    retrieval: Retrieval,
    notes: NoteSearch,
    *,
    k: int = MAX_SOURCES,
    translation: Translation | None = None,
) -> Retrieval:
    """`retrieval` with its source excerpts; a question the pages leave uncovered that one
    note clearly answers becomes covered, under its own arm."""
    pages = [r.path for r in retrieval.results]
    sources, evidence = notes.find(retrieval.query, pages, k=k, translation=translation)
    retrieval.sources = sources
    coverage = dict(retrieval.coverage)
    coverage["notes"] = evidence.to_dict()
    retrieval.coverage = coverage
    if not sources or retrieval.covered != "no":
        return retrieval
    if _only_background(retrieval, evidence):
        # The pages rate it as everyday questions rate here; a note rates it better than that.
        reason = f"the pages may not cover it; a source note may: {sources[0].path}"
        return _kept_open(retrieval, coverage, "uncertain", reason)
    if _notes_cover(retrieval, notes, evidence):
        return _kept_open(retrieval, coverage, "yes", f"a source note answers it: {sources[0].path}")
    return retrieval


def _kept_open(
    retrieval: Retrieval, coverage: dict[str, Any], covered: Covered, reason: str
) -> Retrieval:
    """`retrieval`, which the pages left uncovered, answered from the notes' arm."""
    coverage.update(covered=covered, reason=reason)
    return replace(
        retrieval, arm=ARM_NOTES, pure_llm=False, covered=covered, reason=reason, coverage=coverage
    )


def _only_background(retrieval: Retrieval, evidence: NoteEvidence) -> bool:
    """The pages refused the question only for scoring below this vault's background
    (retrieve/background.py: above the model's own cut, no rule), and the notes, read on their
    chunks, lean towards covering it."""
    c = retrieval.coverage
    p = float(c.get("probability", 0.0))
    floor = float(c.get("thresholds", {}).get("not_covered", NOT_COVERED))
    if not NOT_COVERED <= p < floor or evidence.probability < COVERED:
        return False
    features = CoverageFeatures.from_dict(c.get("features", {}))
    return not_covered_by_rule(features, p) is None


def _notes_cover(retrieval: Retrieval, notes: NoteSearch, evidence: NoteEvidence) -> bool:
    """The notes cover what the pages do not: the coverage model says so on chunks, and every
    name the question asks about that no page mentions is in a note."""
    unknown = retrieval.coverage.get("features", {}).get("unknown_names", [])
    if any(not notes.knows(w) for w in unknown):
        return False
    return evidence.probability >= NOTES_COVERED
