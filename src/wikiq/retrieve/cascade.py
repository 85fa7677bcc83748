"""Select Seeds, expand, fuse: the retrieval cascade behind every answer.

Stage 1 (names) and text search run on every question — both are cheap. Stage 0 (embeddings)
runs when an index exists and the words alone do not clearly cover the question. A question that names a page is seeded from it and ranked by
Personalized PageRank and linear fusion, as the plugin does (Lex+PPR); a question whose every
word is on most pages names the vault's own subject, and its seeds are the vault's sources
(Sources+PPR). Every other question is ranked by reciprocal-rank fusion with the page text as
the backbone (Body+PPR, or Sem+PPR when Stage 0 leads). One decision (coverage.py) says
whether the vault covers the question; when it is unsure and a model is configured, Stage 2
(model keywords) and Stage 3 (an exhaustive scan of every name with them) try the titles.
"Not covered" is pureLLM: the answer says so, and the closest pages are still listed.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from wikiq.retrieve import clause_coverage, compounds
from wikiq.retrieve.background import cached_floor, size_bucket
from wikiq.retrieve.body import BodyHits, BodyIndex
from wikiq.retrieve.coverage import (
    COEFFICIENTS,
    INTERCEPT,
    NOT_COVERED,
    Coverage,
    CoverageFeatures,
    coverage_probability,
    decide_coverage,
    wants_name_context,
    wants_parts,
)
from wikiq.retrieve.fusion import FusionInput, fuse
from wikiq.retrieve.graph_signals import adamic_adar, shared_sources, type_affinity
from wikiq.retrieve.indexes import INDEX_FORMAT, RetrievalIndexes, cached_indexes
from wikiq.retrieve.missing_words import MissingWords
from wikiq.retrieve.names import NameMatch, name_features, without_disambiguator
from wikiq.retrieve.passage_bm25 import PassageIndex
from wikiq.retrieve.ppr import Walk, monte_carlo_pagerank, pagerank_walk, personalized_pagerank
from wikiq.retrieve.rank_fusion import (
    Channel,
    FusedPage,
    add_channel,
    reciprocal_rank_fusion,
    reserve_slot,
)
from wikiq.retrieve.result import (
    ARM_BODY,
    ARM_LEX,
    ARM_LLM,
    ARM_PURE_LLM,
    ARM_SEMANTIC,
    ARM_SUBJECT,
    RankedPage,
    Retrieval,
    Seed,
)
from wikiq.retrieve.settings import MODES, FusionWeights, Mode, RetrieverSettings
from wikiq.retrieve.sources import NoteSearch, with_sources
from wikiq.retrieve.topk import best_reached
from wikiq.text.han_singles import evidence_terms
from wikiq.text.language import detect_language
from wikiq.text.stopwords import (
    asked_about,
    content_terms,
    glossing_sentences,
    question_parts,
    without_the_asker,
    without_unwanted,
)
from wikiq.text.tokenize import TOKENIZER_FINGERPRINT, strip_fillers
from wikiq.vault.catalog import LEAN_FROM_PAGES, Catalog
from wikiq.vault.page import Page
from wikiq.vault.rows import page_value
from wikiq.vault.store import StrIds
from wikiq.vault.terms import match_terms

if TYPE_CHECKING:  # loaded where used: abbreviations and the glossary serve few questions
    from wikiq.text.glossary import EnglishChinese, Glossary

__all__ = ["MODES", "KeywordSource", "Mode", "Retriever", "RetrieverSettings", "SemanticSource"]

KeywordSource = Callable[[str], list[str]]
# Optional Stage 0 (embeddings): question, how many -> [(page number, cosine similarity)].
SemanticSource = Callable[[str, int], list[tuple[int, float]]]


@dataclass
class _Evidence:
    """What the cheap stages found for one question."""

    question: str
    terms: list[str]
    lex: list[NameMatch]
    joint: float  # share of the question explained by the whole names it contains, together
    body: BodyHits
    lead: BodyHits
    sem: list[tuple[int, float]]
    text: BodyHits = field(default_factory=BodyHits.empty)  # BM25 with titles counted in
    text_terms: list[str] = field(default_factory=list)  # the question's content terms
    # A Chinese question over a vault mostly in other languages, or an English question over
    # a mostly Chinese vault, searched through the glossary (retrieve/translation.py); empty
    # otherwise.
    translated: BodyHits = field(default_factory=BodyHits.empty)
    # What gives that question's word groups in an index's terms (the pages', the notes');
    # None for a question in its vault's language (Retriever._translation).
    translation: Callable[[BodyIndex], list[list[str]]] | None = None
    passages: list[int] = field(default_factory=list)  # pages, by their best passage


@dataclass
class Retriever:
    """Runs the cascade over one catalog; indexes are built on first use and shared."""

    catalog: Catalog
    settings: RetrieverSettings = field(default_factory=RetrieverSettings)
    keywords: KeywordSource | None = None
    semantic: SemanticSource | None = None
    _indexes: RetrievalIndexes | None = None
    notes: NoteSearch | None = None  # source notes outside the wiki folder (retrieve/sources.py)
    _missing: MissingWords | None = field(default=None, repr=False)  # shares its work
    _passages: PassageIndex | None = field(default=None, repr=False)
    # The indexes of the catalog this one replaces, for what they computed that still holds
    # (the name index, when every page kept its names: 4 of a rebuild's 6 s at 100k pages).
    replaces: RetrievalIndexes | None = field(default=None, repr=False)
    _floors: dict[str, float] = field(default_factory=dict, repr=False)  # by question language

    @property
    def indexes(self) -> RetrievalIndexes:
        if self._indexes is None:
            self._indexes = cached_indexes(
                self.catalog, self.settings.direction, self.settings.in_weight, self.replaces
            )
            self.replaces = None
        return self._indexes

    @property
    def built_indexes(self) -> RetrievalIndexes | None:
        """The indexes if they have been built or loaded, else None (nothing is built)."""
        return self._indexes

    def warm(self, previous: Retriever | None = None) -> Retriever:
        """This retriever with its indexes built (or read from the cache) now, reusing what
        `previous` (the retriever of the catalog this one replaces) already computed."""
        if previous is not None and previous.built_indexes is not None:
            self.replaces = previous.built_indexes
        # The indexes, then the passages' counts (a file of their own): every question
        # reads both.
        _ = self.passages
        if len(self.catalog.pages) < LEAN_FROM_PAGES:
            # Their vocabularies as dicts (~20-70 ms and ~25 MB on ob-wiki): at a million
            # pages they would hold millions of words, and questions' lookups stay as they are.
            ix = self.indexes
            vocabularies = [
                ix.text.term_ids,
                ix.lead.term_ids,
                ix.names.vocab,
                self.passages.term_ids,
            ]
            if self.notes is not None:
                vocabularies.append(self.notes.bm25.term_ids)
            for vocabulary in vocabularies:
                if isinstance(vocabulary, StrIds):  # a stored one, not a dict built in memory
                    vocabulary.load()
        return self

    @property
    def passages(self) -> PassageIndex:
        """BM25 over passages: the indexes' parameters over the catalog's own counts."""
        if self._passages is None:
            counts = self.catalog.field_terms("passages")
            self._passages = PassageIndex(self.indexes.passages, counts)
        return self._passages

    def with_sources(
        self, *, keywords: KeywordSource | None = None, semantic: SemanticSource | None = None
    ) -> Retriever:
        """The same retriever (sharing indexes) with a keyword model and/or embeddings attached."""
        return Retriever(
            self.catalog,
            self.settings,
            keywords or self.keywords,
            semantic or self.semantic,
            self._indexes,
            self.notes,
            self._missing,
        )

    def with_settings(self, **changes: object) -> Retriever:
        """The same retriever (sharing indexes where the settings allow) with other settings."""
        new = replace(self.settings, **changes)  # type: ignore[arg-type]
        ix = self._indexes
        if ix is not None and (new.direction, new.in_weight) != (
            self.settings.direction,
            self.settings.in_weight,
        ):
            ix = ix.with_walk(self.catalog, new.direction, new.in_weight)
        return Retriever(
            self.catalog, new, self.keywords, self.semantic, ix, self.notes, self._missing
        )

    def with_notes(self, notes: NoteSearch | None) -> Retriever:
        """The same retriever (sharing indexes) with source notes searched beside the pages."""
        return replace(self, notes=notes)

    # --- the cascade ---------------------------------------------------------------------

    def retrieve(
        self, question: str, *, k: int = 8, exclude: frozenset[str] = frozenset()
    ) -> Retrieval:
        """Rank the pages that answer `question`, and decide whether the vault covers it.

        A question that names a page (or the vault's whole subject) seeds the graph from that
        page, as the plugin does. Every other question is ranked by its text: the channels are
        fused by reciprocal rank with the page text as the backbone, and the graph adds a
        bounded bonus. `covered` comes from one decision (coverage.py); when it is "no" the
        answer is pureLLM, and the results are still the closest pages."""
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        self.indexes  # noqa: B018 - built (once) outside the per-stage timings
        timings["index"] = _ms(t0)
        s = self.settings
        ev = self._evidence(question, k, timings)
        if s.mode == "bm25":
            return self._plain_bm25(ev, k, exclude, timings, t0)
        floor = functools.partial(self._floor, question)
        coverage = decide_coverage(self._coverage_features(ev), floor)
        if self._wants_semantic(ev, coverage):
            ev = self._with_semantic(ev, question, k, timings)
            coverage = decide_coverage(self._coverage_features(ev), floor)
        if wants_parts(coverage):  # searched only for a question the cut alone refuses
            t = time.perf_counter()
            best_part = clause_coverage.best_part(self.indexes.text, question)
            coverage = decide_coverage(replace(coverage.features, best_part=best_part), floor)
            timings["parts"] = _ms(t)
        if wants_name_context(coverage):  # only for an unknown name beside answered words
            names = coverage.features.asked_names
            context = clause_coverage.name_context(self.indexes.text, question, names)
            coverage = decide_coverage(replace(coverage.features, name_context=context), floor)
        lex_strong = self._lex_strong(ev)
        named = self._named(ev)

        seeds: list[Seed] = []
        keywords: list[str] = []
        keyword_pages: list[int] = []
        arm, reason = ARM_BODY, ""
        if lex_strong:
            seeds = self._lex_seeds(ev.lex)
            arm, reason = ARM_LEX, f"the question names '{ev.lex[0].name}'"
            if not named:
                seeds += self._body_seeds(ev.body)
        elif subject := self._subject_seeds(ev):
            seeds = subject
            arm, reason = (
                ARM_SUBJECT,
                "every word of the question is on most pages: the vault's own subject",
            )
        elif (
            coverage.covered != "yes"
            and self.keywords is not None
            and s.mode not in ("lexical", "body")
        ):
            # Stage 2: the text is not clear evidence, and the model may know the vault's
            # word for it (or translate it: "引力弹弓" for a page titled "Gravity assist").
            t = time.perf_counter()
            keywords = self.keywords(question)
            timings["keywords"] = _ms(t)
            t = time.perf_counter()
            found = self._keyword_seeds(keywords)
            timings["scan"] = _ms(t)
            if found and coverage.probability < NOT_COVERED:
                # The text is no evidence (the vault's words are not the question's, or not
                # its language): the titles the keywords name are the entry points.
                seeds = found
                arm, reason = (
                    ARM_LLM,
                    "model keywords matched page titles: " + ", ".join(keywords[:5]),
                )
                coverage = replace(coverage, covered="uncertain", reason=reason)
            else:  # the text found something too: the keywords' pages join its ranking
                keyword_pages = [self.catalog.by_path[sd.path] for sd in found]
        seeds = _dedupe(seeds)
        if seeds:
            # A page named by the question, the vault's subject or the model's keywords: the
            # graph around it, fused as the plugin does (the name is evidence on its own).
            covered = coverage if arm == ARM_LLM else _at_least_uncertain(coverage)
            t = time.perf_counter()
            ppr = self._ppr(seeds)
            timings["ppr"] = _ms(t)
            t = time.perf_counter()
            weights = s.named if named else s.subject if arm == ARM_SUBJECT else s.open
            results = self._fuse(ev, ppr, seeds, weights, k=k, exclude=exclude)
            timings["fusion"] = _ms(t)
        else:
            t = time.perf_counter()
            results, seeds, arm = self._open_ranking(
                ev, k=k, exclude=exclude, keyword_pages=keyword_pages
            )
            timings["fusion"] = _ms(t)
            covered = coverage if results else _nothing_found(coverage)
            reason = covered.reason
        pure = covered.covered == "no"
        if pure:
            arm = ARM_PURE_LLM
            reason = covered.reason
        retrieval = Retrieval(
            question,
            arm,
            pure,
            seeds,
            results,
            timings,
            keywords,
            reason,
            covered=covered.covered,
            coverage=covered.to_dict(),
        )
        if self.notes is not None:  # the source-note excerpts, and their say in coverage
            t = time.perf_counter()
            retrieval = with_sources(retrieval, self.notes, translation=ev.translation)
            timings["sources"] = _ms(t)
        timings["total"] = _ms(t0)
        return retrieval

    def _plain_bm25(
        self,
        ev: _Evidence,
        k: int,
        exclude: frozenset[str],
        timings: dict[str, float],
        t0: float,
    ) -> Retrieval:
        """The baseline (`--retriever bm25`): the text channel's ranking as it is."""
        pages, ix = self.catalog.pages, self.indexes
        hits = [
            (int(p), float(sc))
            for p, sc in zip(ev.text.pages, ev.text.scores, strict=True)
            if not ix.stubs[p] and page_value(pages, "path", int(p)) not in exclude
        ][:k]
        top = hits[0][1] if hits else 1.0
        results = [ranked_page(pages, p, sc / top, {"body": sc}) for p, sc in hits]
        timings["total"] = _ms(t0)
        return Retrieval(ev.question, ARM_BODY, False, [], results, timings, reason="plain BM25")

    def _coverage_features(self, ev: _Evidence) -> CoverageFeatures:
        """The coverage decision's inputs, each a share or a ratio (comparable across vaults)."""
        # The part of the question that asks, where the names that count stand.
        asked = " ".join(asked_about(ev.question))
        return replace(
            self._model_features(ev),
            sem_standout=max(0.0, _standout(ev.sem)),
            foreign=1.0 - self.indexes.languages.share_of(detect_language(ev.question)),
            unknown_names=self._unknown_names(ev.question, asked),
            passing_names=self._passing_names(ev, asked),
            unknown_nouns=self._unknown_nouns(ev.question, asked),
        )

    def _model_features(self, ev: _Evidence) -> CoverageFeatures:
        """The inputs the fitted model weighs, the rules' left at nothing."""
        return CoverageFeatures(
            text_coverage=ev.text.best_coverage(),
            text_best3=ev.text.best_coverage(3),
            known=self.indexes.text.known_share(evidence_terms(ev.text_terms)),
            text_gap=ev.text.standout(),
            name=self._informative_name(ev),
            sem_standout=0.0,
            foreign=0.0,
            words=float(len(set(evidence_terms(ev.text_terms)))),
        )

    def _floor(self, question: str) -> float:
        """This vault's floor for "covered" for a question in this one's language: what
        everyday questions it cannot answer score here (retrieve/background.py), measured
        once and kept in the cache folder."""
        language = detect_language(question)
        if language not in self._floors:
            cache = self.catalog.cache_file
            key = [
                INDEX_FORMAT,
                TOKENIZER_FINGERPRINT,
                INTERCEPT,
                COEFFICIENTS,
                size_bucket(len(self.catalog.pages)),
                repr(self.settings),
            ]
            self._floors[language] = cached_floor(
                language,
                self._model_probability,
                NOT_COVERED,
                cache.parent if cache is not None else None,
                key,
            )
        return self._floors[language]

    def _model_probability(self, question: str) -> float:
        """The coverage model's probability for `question`, rules aside (the background's
        everyday questions are scored with it)."""
        return coverage_probability(self._model_features(self._evidence(question, 5, {})))

    def _unknown_names(self, question: str, asked: str) -> tuple[str, ...]:
        """The words the question writes as names of which some part is on no page, in
        `asked`, the sentences that ask (and a statement one of them points back to): a name
        in a sentence that only sets the scene ("My notes are mostly in Mandarin.", "A friend
        uses Alfred.") is not what is asked about."""
        if not self.settings.unknown_name_rule:
            return ()
        return self._missing_words().names(question, asked)

    def _passing_names(self, ev: _Evidence, asked: str) -> tuple[str, ...]:
        """The names the question asks about (in `asked`) that one page mentions in passing:
        no other page holds the name, and that page is not among the best PASSING_NEAR for
        the rest of the question (with the name, the one page holding a rare name ranks high
        for it)."""
        if not self.settings.unknown_name_rule:
            return ()
        pages = self.catalog.pages

        def near(name: str, holder: int) -> bool:
            # Asked only for a name one page holds. A page titled with the name is about it
            # ("Who was born first, X or Y?": X's page, the rest of the question being Y).
            own = set(match_terms(name))
            titles = [page_value(pages, "title", holder), *page_value(pages, "aliases", holder)]
            if any(own <= set(match_terms(t)) for t in titles):
                return True
            rest = [t for t in ev.text_terms if t not in own]
            hits = self.indexes.text.search(rest, limit=PASSING_NEAR) if rest else None
            return hits is not None and holder in set(hits.pages.tolist())

        return self._missing_words().passing(ev.question, asked, near)

    def _unknown_nouns(self, question: str, asked: str) -> tuple[str, ...]:
        """The things the question asks about that no page or source note holds (its Chinese
        common nouns a vault this size would use, and what it asks to have built in), in
        `asked` or in a sentence that glosses a term in English: a thing in a sentence that
        only sets the scene ("…上飞机没网就全裂了。有办法…吗？") is not what is asked, a term
        the asker names in two languages is ("想开投机解码（speculative decoding）。"). Nor is
        what it says it does not want ("不想换整套皮肤"), nor who the asker is ("我是研究生，")."""
        if not self.settings.unknown_name_rule:
            return ()
        found = self._missing_words().nouns(without_unwanted(question), self.notes)
        topic = without_the_asker(" ".join([asked, *glossing_sentences(question)]))
        return tuple(w for w in found if w in topic)

    def _missing_words(self) -> MissingWords:
        if self._missing is None:
            self._missing = MissingWords(self.indexes.text, self._glossary)
        return self._missing

    def _named_start(self, ev: _Evidence, starts: Sequence[FusedPage]) -> bool:
        """Whether one of the walk's entry pages was found by a name that is a real part of
        the question (`graph_slot_name_share` of its weight or more)."""
        share = {m.page: m.query_coverage for m in ev.lex[: self.settings.candidates_per_signal]}
        least = self.settings.graph_slot_name_share
        return any("names" in f.ranks and share.get(f.page, 0.0) >= least for f in starts)

    def _informative_name(self, ev: _Evidence) -> float:
        """The best name match that is evidence (see `_is_informative`), else 0."""
        return next((m.score for m in ev.lex[:5] if self._is_informative(m)), 0.0)

    def _is_informative(self, m: NameMatch) -> bool:
        """A whole title or alias found in the question that is a name, not a common word:
        several words ("Gravity assist"), or one word that is not on a large share of the
        vault's pages ("Time", "目的", "历史" are)."""
        s = self.settings
        if m.name_coverage < s.named_coverage:
            return False
        terms = list(dict.fromkeys(match_terms(without_disambiguator(m.name))))
        if len(terms) > 1:
            return True
        return self.indexes.text.pages_share_all(terms) <= s.common_name_share

    def _part_hits(self, ev: _Evidence) -> list[BodyHits]:
        """Text search for each part of a question that asks two things ("how do I jump to a
        note, and how do I run a command?"): the second part's page is otherwise often ranked
        below pages that match the first part's words a little better."""
        s = self.settings
        if s.rrf_parts <= 0:
            return []
        pieces = question_parts(ev.question)
        if len(pieces) < 2:
            return []
        limit = s.candidates_per_signal
        out = []
        for piece in pieces:
            terms = content_terms(match_terms(piece))
            if len(terms) >= 2:
                out.append(self.indexes.text.search(terms, limit=limit))
        return out if len(out) >= 2 else []

    def _open_ranking(
        self,
        ev: _Evidence,
        *,
        k: int,
        exclude: frozenset[str],
        keyword_pages: Sequence[int] = (),
    ) -> tuple[list[RankedPage], list[Seed], str]:
        """A question that names no page: text, lead, informative names and Stage 0 fused by
        reciprocal rank, then the graph around the best two as a bounded bonus."""
        s, ix, pages = self.settings, self.indexes, self.catalog.pages
        skip = ix.stubs
        drop = {self.catalog.by_path[p] for p in exclude if p in self.catalog.by_path}
        names = [m.page for m in ev.lex[: s.candidates_per_signal] if self._is_informative(m)]
        parts = [
            Channel(f"part{i}", hits.pages.tolist(), s.rrf_parts)
            for i, hits in enumerate(self._part_hits(ev))
        ]
        text = ev.text.pages.tolist() if s.mode != "lexical" else []  # ablation: names only
        readable = 1.0
        if len(ev.translated.pages):
            # A question in a language the vault is not written in: its own words that the
            # vault holds are mostly numbers and Latin fragments ("2024", "01"), so its text
            # channels count for the share of the question the vault can read.
            readable = ix.text.known_share(ev.text_terms)
        channels = [
            *(parts if text else []),
            Channel("text", text, s.rrf_text * readable),
            Channel("translated", ev.translated.pages.tolist(), s.rrf_translated),
            Channel("lead", ev.lead.pages.tolist(), s.rrf_lead),
            Channel("passages", ev.passages, s.rrf_passages * readable),
            Channel("names", names if s.mode != "body" else [], s.rrf_names),
            # Only pages closer to the question than the vault's average page.
            Channel("sem", [p for p, sim in ev.sem if sim > 0], s.rrf_sem),
            Channel("keywords", list(keyword_pages), s.rrf_keywords),  # Stage 2, when it ran
        ]
        # The backbone's best page cannot be buried: the text's, or Stage 0's when no word
        # of the question is in the vault.
        backbone = "translated" if len(ev.translated.pages) else "text" if text else "sem"
        fused = reciprocal_rank_fusion(
            channels,
            k=s.rrf_k,
            bonus_channels=(backbone,),
            first_bonus=s.rrf_first_bonus,
            near_bonus=s.rrf_near_bonus,
            first_of={p.name: s.rrf_part_bonus for p in parts} if text else None,
            # A translated question's own words are mostly foreign to the vault: the channels
            # that read them agree on noise (a changelog's dates).
            agreement=backbone != "translated",
        )
        fused = [f for f in fused if not skip[f.page] and f.page not in drop]
        if not fused:
            return [], [], ARM_BODY
        # The walk starts from the best pages before the graph has its say.
        starts = fused[: s.graph_seeds]
        if s.rrf_graph > 0 and s.mode not in ("no-ppr", "lexical", "body"):
            top = {f.page: 1.0 for f in starts}
            walk = pagerank_walk(ix.walk, top, restart=s.restart, tol=s.graph_tol)
            ppr = walk.mass
            ppr[list(top)] = 0.0
            ppr[skip] = 0.0
            if drop:
                ppr[list(drop)] = 0.0
            near = best_reached(ppr, s.candidates_per_signal, walk.reached).tolist()
            fused = add_channel(fused, Channel("graph", near, s.rrf_graph), k=s.rrf_k)
            named = self._named_start(ev, starts)
            if s.graph_slot and near and (named or not s.graph_slot_named_only):
                fused = reserve_slot(fused, near[0], s.graph_slot)
        fused = fused[:k]
        top_score = fused[0].score
        sem = dict(ev.sem)
        bm25 = ev.text.as_dict()
        results = []
        for f in fused:
            signals = {f"rank_{name}": float(rank) for name, rank in f.ranks.items()}
            signals["rrf"] = f.score
            if f.page in bm25:
                signals["body"] = bm25[f.page]
            if f.page in sem:
                signals["sem"] = sem[f.page]
            results.append(ranked_page(pages, f.page, f.score / top_score, signals))
        best = fused[0].ranks
        by_sem = "sem" in best and best.get("sem", 99) < best.get("text", 99)
        arm = ARM_SEMANTIC if by_sem else ARM_BODY
        stage = "semantic" if by_sem else "body"
        matched = dict.fromkeys(ev.text.terms, "body") if stage == "body" else {}
        seeds = [self._seed(f.page, stage, f.score / starts[0].score, matched) for f in starts]
        return results, seeds, arm

    def _names(self, question: str) -> _Evidence:
        """Stage 1 alone: the question's terms and the names they match."""
        s, ix = self.settings, self.indexes
        features = name_features(question)
        terms = match_terms(question)
        weight = ix.names.question_weight(features, terms)
        lex = (
            ix.names.match(features, query_weight=weight, limit=s.candidates_per_signal)
            if s.mode != "body"
            else []
        )
        joint = ix.names.joint_coverage(lex, weight, s.named_coverage)
        none = BodyHits.empty()
        return _Evidence(question, terms, lex, joint, none, none, [])

    def _evidence(self, question: str, k: int, timings: dict[str, float]) -> _Evidence:
        s, ix = self.settings, self.indexes
        t = time.perf_counter()
        ev = self._names(question)
        # "邵弁的资料": words that only wrap the subject ("materials on") go, unless the
        # question names a page as asked (a page may be titled with one).
        plain = strip_fillers(question)
        if plain != question and not self._lex_strong(ev):
            ev = self._names(plain)
        timings["lex"] = _ms(t)

        t = time.perf_counter()
        limit = max(s.candidates_per_signal, k * 3)
        text = s.mode != "lexical"
        # The body channel searches the question's content words and a named page's synonyms;
        # the text channel the content words alone. Both read the one text index, so without
        # synonyms one search serves both. (The body channel used to search the question's
        # scaffolding words too; without them one MRR of the dev sets moved, by 0.001.)
        content = content_terms(ev.terms)
        if s.mode != "bm25":  # the baseline stays plain BM25
            # A compound the vault writes apart is searched by its parts too ("slideshow").
            content = compounds.with_parts(content, ix.text.term_ids)
        terms = content + self._name_synonyms(ev)
        evidence = evidence_terms(terms)  # what the coverage shares count (han_singles.py)
        body = ix.text.search(terms, limit=limit, evidence=evidence) if text else BodyHits.empty()
        lead = ix.lead.search(content, limit=limit) if text else BodyHits.empty()
        # The text channel always runs: the coverage decision reads it in every mode.
        if text and len(terms) == len(content):
            text_hits = body  # the same words over the same index: the same hits
        else:
            text_hits = ix.text.search(content, limit=limit, evidence=evidence_terms(content))
        translation = self._translation(question, ev.terms)
        translated = (
            ix.text.search_groups(translation(ix.text), limit=limit)
            if text and translation is not None
            else BodyHits.empty()
        )
        passages = self._passage_pages(content, text_hits.pages) if text else []
        timings["body"] = _ms(t)

        return replace(
            ev,
            body=body,
            lead=lead,
            text=text_hits,
            text_terms=content,
            translated=translated,
            translation=translation,
            passages=passages,
        )

    def _passage_pages(self, terms: list[str], candidates: np.ndarray) -> list[int]:
        """The text's candidate pages again, each by its best passage's BM25. Only they are
        scored (a page below them gains too little from a lighter channel to reach the top
        five), which keeps a large vault's passages, most holding some common word, unread."""
        if self.settings.rrf_passages <= 0 or not len(candidates):
            return []
        passages = self.passages
        pages, rows, heads = passages.page_rows(candidates)
        if not len(pages):
            return []
        scores = passages.score_rows(terms, rows)
        best = np.maximum.reduceat(scores, heads)
        order = np.lexsort((pages, -best))
        return pages[order][best[order] > 0].tolist()  # a page matched by an alias alone: none

    def _wants_semantic(self, ev: _Evidence, coverage: Coverage) -> bool:
        """Whether Stage 0 can still change the outcome, so the question is worth embedding."""
        s = self.settings
        if self.semantic is None or s.mode in ("lexical", "body", "bm25"):
            return False
        # A question that is exactly a page's name gets no semantic weight (NAMED_WEIGHTS).
        if self._named(ev) and s.named.sem == 0:
            return False
        # Words that clearly cover the question are evidence enough, as for Stage 2 (qmd
        # skips its model on a strong BM25 signal too): on the natural dev sets Stage 0 moved
        # as many of these questions' pages out of the top five as into it, and skipping it
        # spares 20-35 ms (and loading the model) on most questions. Not where a good share
        # of the vault is in another language: the page that answers may be one of those,
        # which only the meaning reaches (cross-language titles: 0.52 -> 0.59 with Stage 0).
        return (
            s.sem_when_covered
            or coverage.covered != "yes"
            or coverage.features.foreign >= s.sem_foreign_share
        )

    def _with_semantic(
        self, ev: _Evidence, question: str, k: int, timings: dict[str, float]
    ) -> _Evidence:
        """The evidence with Stage 0's pages for the question as asked: (page number, centred
        similarity), best first."""
        limit = max(self.settings.candidates_per_signal, k * 3)
        t = time.perf_counter()
        assert self.semantic is not None
        sem = self.semantic(question, limit)
        timings["semantic"] = _ms(t)
        return replace(ev, sem=sem)

    def _translation(
        self, question: str, terms: list[str]
    ) -> Callable[[BodyIndex], list[list[str]]] | None:
        """For a Chinese question over a mostly non-Chinese vault, or an English one over a
        mostly Chinese vault, what gives the question's word groups in an index's own terms
        (the pages', the source notes'); None for any other question."""
        s, ix = self.settings, self.indexes
        if s.rrf_translated <= 0:
            return None
        chinese_vault = ix.languages.share_of("zh") >= s.translate_below_share
        language = detect_language(question)
        from wikiq.retrieve import translation

        if language == "zh" and not chinese_vault:
            glossary = self._glossary()
            if glossary is not None:
                return lambda index: translation.translated_groups(terms, glossary, index)
        elif language == "en" and chinese_vault:
            inverse = self._inverse_glossary()
            if inverse is not None:
                return lambda index: translation.english_groups(terms, inverse, index)
        return None

    def _inverse_glossary(self) -> EnglishChinese | None:
        """English → Chinese, from its table in the cache folder when the catalog is cached."""
        from wikiq.retrieve.translation import sense_terms
        from wikiq.text.glossary import english_chinese
        from wikiq.vault.cache import shared_cache_dir

        cache = self.catalog.cache_file
        folder = shared_cache_dir(cache, "glossary") if cache is not None else None
        return english_chinese(sense_terms, TOKENIZER_FINGERPRINT, folder)

    def _glossary(self) -> Glossary | None:
        """CC-CEDICT, from its table in the cache folder when the catalog is cached."""
        # The glossary's module and the translation's load for the few questions needing them.
        from wikiq.text.glossary import chinese_english
        from wikiq.vault.cache import shared_cache_dir

        cache = self.catalog.cache_file
        return chinese_english(shared_cache_dir(cache, "glossary") if cache is not None else None)

    def _name_synonyms(self, ev: _Evidence) -> list[str]:
        """When the question names a page, the words of its title and aliases that the
        question lacks: the text is searched with the vault's own synonyms too
        ("echocardiography" also finds pages that say "echo", its alias)."""
        if not self.settings.expand_with_names or not self._lex_strong(ev):
            return []
        pages, best = self.catalog.pages, ev.lex[0].page
        extra: list[str] = []
        for name in (page_value(pages, "title", best), *page_value(pages, "aliases", best)):
            extra += [t for t in match_terms(name) if t not in ev.terms and t not in extra]
        return extra

    def _lex_strong(self, ev: _Evidence) -> bool:
        """One name explains the question well, or several whole names do together ("Was
        Ausaf Ali or Steven Perry born first?")."""
        s = self.settings
        return bool(ev.lex) and (
            ev.lex[0].score >= s.lex_strong_score or ev.joint >= s.joint_strong_coverage
        )

    def _named(self, ev: _Evidence) -> bool:
        """The question names one page strongly and is that page's whole name."""
        return self._lex_strong(ev) and self._is_named(ev.lex[0])

    def _is_named(self, best: NameMatch) -> bool:
        """The question is a page's whole name and nothing else ("Apollo 11", "邵弁")."""
        s = self.settings
        return best.name_coverage >= s.named_coverage and best.query_coverage >= s.named_coverage

    # --- seeds ---------------------------------------------------------------------------

    def _seed(self, page: int, stage: str, score: float, matched: dict[str, str]) -> Seed:
        return Seed(page_value(self.catalog.pages, "path", page), stage, score, matched)

    def _lex_seeds(self, lex: list[NameMatch], *, weak: bool = False) -> list[Seed]:
        s = self.settings
        if not lex:
            return []
        floor = max(0.0 if weak else s.lex_min_seed_score, lex[0].score * s.lex_seed_ratio)
        chosen = [m for m in lex[: s.max_lex_seeds] if m.score >= floor]
        return [
            self._seed(m.page, "lex", m.score, dict.fromkeys(m.matched, m.field)) for m in chosen
        ]

    def _body_seeds(self, body: BodyHits) -> list[Seed]:
        s = self.settings
        if len(body.pages) == 0:
            return []
        top = float(body.scores[0])
        seeds: list[Seed] = []
        for page, score, cov in zip(body.pages, body.scores, body.coverage, strict=True):
            if len(seeds) == s.max_body_seeds or score < top * s.body_seed_ratio:
                break
            if cov >= s.body_seed_coverage:
                weight = float(score / top) * float(cov)
                seeds.append(
                    self._seed(int(page), "body", weight, dict.fromkeys(body.terms, "body"))
                )
        return seeds

    def _subject_seeds(self, ev: _Evidence) -> list[Seed]:
        """The vault's sources, when the question names what the whole vault is about.

        The best-covered and most-cited sources come first; none when the vault has no
        `type: source` pages (a plain Obsidian vault), and the cascade goes on as before."""
        s, ix = self.settings, self.indexes
        if s.mode in ("lexical", "body", "no-subject") or not ev.terms:
            return []
        if (
            ix.text.n_docs < s.subject_min_pages
            or min(ix.text.share_of(t) for t in ev.terms) < s.subject_share
        ):
            return []
        sources = np.nonzero(ix.is_source & ~ix.stubs)[0]
        if len(sources) == 0:
            return []
        coverage = dict(zip(ev.body.pages.tolist(), ev.body.coverage.tolist(), strict=True))
        ranked = sorted(
            sources.tolist(), key=lambda p: (-coverage.get(p, 0.0), -ix.centrality[p], p)
        )[: s.max_subject_seeds]
        has = {t: np.isin(ranked, ix.text.pages_with(t)) for t in ev.body.terms}
        return [
            self._seed(p, "subject", 1.0, {t: "body" for t in ev.body.terms if has[t][i]})
            for i, p in enumerate(ranked)
        ]

    def _keyword_seeds(self, keywords: list[str]) -> list[Seed]:
        """Stage 3: every page's names scanned with every keyword; the best pages become seeds."""
        totals: dict[int, float] = {}
        matched: dict[int, dict[str, str]] = {}
        for kw in keywords:
            feats = name_features(kw)
            if not feats:
                continue
            for m in self.indexes.names.match(feats):
                if m.name_coverage < 0.5 and m.query_coverage < 0.99:
                    continue  # a keyword must cover half a name, or the name the whole keyword
                totals[m.page] = totals.get(m.page, 0.0) + m.score
                matched.setdefault(m.page, {})[kw] = m.field
        ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[
            : self.settings.max_lex_seeds
        ]
        if not ranked:
            return []
        top = ranked[0][1]
        return [self._seed(p, "keywords", v / top, matched[p]) for p, v in ranked]

    def _semantic_signal(self, ev: _Evidence) -> dict[int, float]:
        """Stage 0 as a fusion signal in [0, 1]: how far each page rises above the best page's
        ten nearest rivals, relative to the best page. It counts in full once the best page
        stands out by `sem_strong_similarity`, and only `sem_after_names` of it when a title
        matched strongly (the user named the page; look-alikes should not outrank it)."""
        s = self.settings
        if len(ev.sem) < 2:
            return {}
        top = ev.sem[0][1]
        base = _rival_mean(ev.sem)
        if top <= base:
            return {}
        damp = min(1.0, (top - base) / s.sem_strong_similarity) if s.sem_strong_similarity else 1.0
        if ev.lex and ev.lex[0].score >= s.lex_strong_score:
            damp *= s.sem_after_names
        return {page: damp * (sim - base) / (top - base) for page, sim in ev.sem if sim > base}

    # --- expansion and fusion --------------------------------------------------------------

    def _ppr(self, seeds: list[Seed]) -> Walk:
        s = self.settings
        n = len(self.catalog.pages)
        if s.mode in ("no-ppr", "lexical", "body") or n == 0:
            return Walk(np.zeros(n), np.empty(0, dtype=np.int64))
        weights = {self.catalog.by_path[seed.path]: seed.score for seed in seeds}
        if s.mode == "mc-ppr":
            mass = monte_carlo_pagerank(self.indexes.walk, weights, restart=s.restart)
            return Walk(mass, np.flatnonzero(mass))
        return pagerank_walk(self.indexes.walk, weights, restart=s.restart)

    def seed_walk(self, retrieval: Retrieval) -> np.ndarray | None:
        """Where the walk from a retrieval's seeds goes: its mass on every page (the graph
        view's neighbourhood), or None when no seed is a page of this catalog."""
        by_path = self.catalog.by_path
        weights: dict[int, float] = {}
        for seed in retrieval.seeds:
            i = by_path.get(seed.path)
            if i is not None:
                weights[i] = max(weights.get(i, 0.0), seed.score)
        if not weights:
            return None
        return personalized_pagerank(self.indexes.walk, weights, restart=self.settings.restart)

    def _graph_extras(self, seeds: dict[int, float], cand: np.ndarray) -> dict[str, np.ndarray]:
        ix = self.indexes
        return {
            "shared_sources": shared_sources(ix.graph, ix.is_source, seeds, cand),
            "adamic_adar": adamic_adar(ix.graph, ix.graph_t, ix.degree, seeds, cand),
            "type_affinity": type_affinity(ix.types, seeds, cand),
        }

    def _fuse(
        self,
        ev: _Evidence,
        ppr: Walk,
        seeds: list[Seed],
        weights: FusionWeights,
        *,
        k: int,
        exclude: frozenset[str],
    ) -> list[RankedPage]:
        s, ix, by_path = self.settings, self.indexes, self.catalog.by_path
        inp = FusionInput(
            lex={m.page: m.score for m in ev.lex[: s.candidates_per_signal]},
            body=ev.body.as_dict(),
            lead=ev.lead.as_dict(),
            sem=self._semantic_signal(ev),
            ppr=ppr.mass,
            ppr_reached=ppr.reached,
            centrality=ix.centrality,
            seeds={by_path[sd.path]: sd.score for sd in seeds},
            # Name-matched seeds already carry their name score; the others need the credit.
            found={by_path[sd.path]: sd.score for sd in seeds if sd.stage != "lex"},
        )
        ranked = fuse(
            inp,
            weights,
            ix.graph,
            ix.graph_t,
            skip=ix.stubs,
            exclude={by_path[p] for p in exclude if p in by_path},
            k=k,
            candidates_per_signal=s.candidates_per_signal,
            method=s.fusion,
            rrf_k=s.rrf_k,
            extra=lambda cand: self._graph_extras(inp.seeds, cand),
        )
        top = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        pages = self.catalog.pages
        return [ranked_page(pages, c, score / top, signals) for c, score, signals in ranked]


def ranked_page(
    pages: Sequence[Page], i: int, score: float, signals: dict[str, float]
) -> RankedPage:
    """Page `i` as a result: three fields read from the cache's columns, no page built (a
    page built reads every field, the compressed ones too: vault/packed.py)."""
    path, title, kind = (page_value(pages, f, i) for f in ("path", "title", "type"))
    return RankedPage(path, title, kind, score, signals)


RIVALS = 10  # Stage 0 compares the best page with the mean of this many next-best pages
# A name one page mentions, that page neither titled with it nor among the best this many for
# the rest of the question, is mentioned only in passing (coverage.passing_names). Over the
# dev, fresh and abstention sets: the best 3 / 5 / 10 / 20 / 40 catch 7 / 7 / 7 / 6 / 6 more
# absent questions and refuse 1 / 1 / 0 / 0 / 0 answerable ones (docs/BENCHMARKS.md, "A name
# mentioned in passing"); without the title condition 2wiki's questions ("Who was born
# first, X or Y?") lose 1.3% to false "not covered".
PASSING_NEAR = 10


def _rival_mean(sem: list[tuple[int, float]]) -> float:
    """The mean similarity of the pages right behind the best one."""
    return float(np.mean([sim for _, sim in sem[1 : RIVALS + 1]]))


def _standout(sem: list[tuple[int, float]]) -> float:
    """How far the best page's similarity stands above its rivals' mean: close neighbours
    always exist, so only a page that stands out is evidence (this holds across vaults; the
    similarity itself grows with the vault's size and sameness)."""
    if len(sem) < 2:
        return 0.0
    return sem[0][1] - _rival_mean(sem)


def _nothing_found(coverage: Coverage) -> Coverage:
    """No page shares a word (or, with Stage 0, a meaning) with the question."""
    return replace(
        coverage, covered="no", reason="no page title, alias or text matches the question"
    )


def _at_least_uncertain(coverage: Coverage) -> Coverage:
    """A page named by the question is evidence by itself: never "not covered"."""
    if coverage.covered != "no":
        return coverage
    return replace(coverage, covered="uncertain", reason="the question names a page")


def _dedupe(seeds: list[Seed]) -> list[Seed]:
    """One seed per page: the first stage that found it, with the best score any stage gave."""
    best: dict[str, Seed] = {}
    for seed in seeds:
        kept = best.get(seed.path)
        if kept is None:
            best[seed.path] = seed
        elif seed.score > kept.score:
            best[seed.path] = replace(
                kept, score=seed.score, matched={**kept.matched, **seed.matched}
            )
    return list(best.values())


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
