"""Every tunable of the retrieval cascade, with the values chosen by measurement.

The numbers come from the dev sets in `../shared/bench` (see docs/BENCHMARKS.md for the
figures and the commands that produced them). They are named here, in one place, so a reader
can see what the cascade decides and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from wikiq.retrieve.coverage import SEM_STANDOUT
from wikiq.retrieve.ppr import Direction

# Ablations for `wikiq eval --retriever`. "bm25" is the baseline to beat: BM25 over titles,
# aliases and text, nothing else, and never "not covered".
Mode = Literal["full", "lexical", "body", "no-ppr", "mc-ppr", "no-subject", "bm25"]
MODES: tuple[Mode, ...] = ("full", "lexical", "body", "no-ppr", "mc-ppr", "no-subject", "bm25")


@dataclass(frozen=True)
class FusionWeights:
    """How much each signal counts in the final ranking (each signal is scaled to [0, 1])."""

    lex: float = 1.0  # the page's best name match
    body: float = 0.5  # BM25 over the whole body, relative to the best page
    lead: float = 0.0  # BM25 over the lead paragraph, relative to the best page
    sem: float = 1.0  # embedding similarity (only with the optional Stage 0)
    ppr: float = 2.0  # PPR mass, relative to the best candidate
    centrality: float = 0.05  # log in-degree prior
    link_out: float = 1.0  # a seed links to this page (weighted by the seed's score)
    link_in: float = 0.0  # this page links to a seed
    backlink_lead: float = 0.0  # this page links to a seed *and* its lead matches the question
    seed: float = 0.0  # an entry point found by text, embeddings or keywords (its seed score)
    # llm_wiki's graph signals (seed 002). Measured and found not to pay on our dev sets
    # (docs/BENCHMARKS.md), so they are off; `wikiq eval` can still measure them.
    shared_sources: float = 0.0
    adamic_adar: float = 0.0
    type_affinity: float = 0.0


# When the question *is* a page's name (the name covers the whole question), the user asks
# about that page: the pages it links to matter most, then pages whose opening paragraph is
# about it. Measured on leave-one-out (links of a named page) and sample50 (its instances).
NAMED_WEIGHTS = FusionWeights(
    lex=1.0,
    body=0.3,
    lead=0.6,
    sem=0.0,  # the named page's links say more than look-alike pages (leave-one-out)
    ppr=2.0,
    centrality=0.0,
    link_out=0.5,
    link_in=0.0,
    # Pages citing the named page in their lead: +0.034 recall@5 on sample50 for 0.002-0.009
    # on leave-one-out, whose gold is by construction out-links (docs/BENCHMARKS.md).
    backlink_lead=0.3,
)
# Every other question: names, text and the graph around the seeds together. Measured on
# 2wiki's natural multi-hop questions.
OPEN_WEIGHTS = FusionWeights(
    lex=1.0,
    body=0.5,
    lead=0.0,
    sem=4.0,  # Stage 0, as shaped by Retriever._semantic_signal (cross-language: +0.30)
    ppr=2.0,
    centrality=0.05,
    link_out=1.0,
    link_in=0.0,
    backlink_lead=0.0,
    seed=1.0,
)
# A question about the vault's whole subject (Sources+PPR): the sources come first, then the
# pages they link to. Seed credit larger than what links and PPR can add up to elsewhere.
SUBJECT_WEIGHTS = replace(OPEN_WEIGHTS, seed=3.0)


@dataclass(frozen=True)
class RetrieverSettings:
    """The cascade's thresholds and weights; `mode` switches stages off for ablations."""

    mode: Mode = "full"
    # Stage 1 (names). A name match is strong when it covers a whole title or alias and part
    # of the question: the question is seeded from that page (Lex+PPR). Weaker matches are
    # one channel of the open ranking, and count only when they are names (rank_fusion.py).
    lex_strong_score: float = 0.75
    # Several whole names in one question that together explain this much of it are strong too.
    joint_strong_coverage: float = 0.5
    lex_seed_ratio: float = 0.7  # seeds: names scoring at least this share of the best one
    lex_min_seed_score: float = 0.5
    max_lex_seeds: int = 5
    # A question that is exactly a page's name: name and question coverage both at least this.
    named_coverage: float = 0.99
    # Body search. Coverage = the share of the question's IDF weight that one page contains.
    # Pages covering this much become extra seeds next to name-matched ones.
    body_seed_coverage: float = 0.6
    max_body_seeds: int = 5
    body_seed_ratio: float = 0.5
    # A question whose every word is on most pages names the vault's own subject (the
    # institution or project the whole wiki is about, "Pinewood Heart Center"): no page is
    # about it more than the others by its text, and the pages that describe it as a whole
    # are the vault's sources. Not below `subject_min_pages` pages, where every word is common.
    subject_share: float = 0.5
    subject_min_pages: int = 30
    max_subject_seeds: int = 8
    # Search the body for the named page's title and aliases too: the vault's own synonyms.
    expand_with_names: bool = True
    # Stage 0 (embeddings, optional). Similarities are centred: a page's cosine minus the
    # question's mean cosine to all pages in that page's language (embed/index.py). Stage 0
    # counts in full in the named path's fusion once the best page stands this far above the
    # mean of the next ten (coverage.SEM_STANDOUT, which also makes it evidence of coverage).
    sem_strong_similarity: float = SEM_STANDOUT
    # Share of the semantic fusion signal kept when a title or alias matched strongly: names
    # are the better evidence there (2wiki: -0.07 recall@5 at full weight, -0.003 at 0.25).
    sem_after_names: float = 0.25
    # Embed the question even when its words clearly cover it (coverage "yes"); off, Stage 0
    # is consulted only where the words leave doubt (Retriever._wants_semantic).
    sem_when_covered: bool = False
    # ... but always where this share of the vault or more is not in the question's language
    # (dev vaults: 0.006 and 0.023 skip, 0.2, 0.5 and 0.8 embed; any cut between gives the same).
    sem_foreign_share: float = 0.1
    # Stage 4 (PPR). Restart 0.3 keeps the walk local; in-links count half as much as
    # out-links (a page's own links say more about it than the pages that cite it).
    restart: float = 0.3
    direction: Direction = "both"
    in_weight: float = 0.5
    # Open questions (no page named): reciprocal-rank fusion (rank_fusion.py) with the text
    # channel (BM25 with titles counted in) as the backbone. Weights per channel, the text
    # channel's top-rank bonus, and the graph walked from the best `graph_seeds` pages as
    # one more, lighter list. Measured on the natural dev questions (docs/BENCHMARKS.md).
    rrf_text: float = 2.0
    # The lead (title and first paragraph: what a page is about). Recall@5 pooled over the
    # natural dev sets at 0.5 / 1.0 / 1.5: 0.932 / 0.938 / 0.932, leave-one-vault-out at 1.0
    # 0.938 (`python bench/fusion_lovo.py --only rrf_lead`); on the fresh sets (bench/natural2,
    # not tuned on) 0.850 / 0.872 / 0.861 (docs/BENCHMARKS.md, "The lead weighed as the text").
    rrf_lead: float = 1.0
    # The pages of the best passages (vault/page_terms.py), in the order of their best: a long
    # page whose one section answers. Natural dev recall@5 pooled over five vaults: 0.921
    # without, 0.935 at 0.35, 0.924 at 0.75, 0.912 at 1.0; no vault loses at 0.35
    # (docs/BENCHMARKS.md, "Passages").
    rrf_passages: float = 0.35
    rrf_names: float = 0.5
    rrf_sem: float = 2.0
    rrf_keywords: float = 1.0  # titles the model's keywords name (Stage 2), when the text is unsure
    rrf_graph: float = 0.5
    # A Chinese question over a vault less than `translate_below_share` Chinese, and an
    # English question over a vault at least that Chinese, are searched through the glossary
    # too (retrieve/translation.py), weighted as the text is.
    rrf_translated: float = 2.0
    translate_below_share: float = 0.5
    rrf_parts: float = 0.5  # each part of a question that asks two things, searched alone
    rrf_first_bonus: float = 0.05
    rrf_near_bonus: float = 0.02
    # The best page of one part of a question that asks two things (`rrf_parts`) keeps a place
    # too: a fifth of the text's first bonus. "读皮亚杰《结构主义》时…推崇一位生理学家提出的
    # '体内环境恒定'，这位是谁？另外皮亚杰…分成了哪几个阶段？": the first part's best page (坎农)
    # was sixth behind the walk's and the names' pages. Pooled recall@5 (rank only) over the
    # dev and the four fresh sets at 0 / 0.01 / 0.02 / 0.03 / 0.05: 458.3 / 460.3 / 458.2 /
    # 455.7 / 453.2 of 508 (dev 0.943 / 0.946 / 0.934 / 0.928 / 0.926); older sets unchanged.
    rrf_part_bonus: float = 0.01
    graph_seeds: int = 2
    # The graph list needs only the order of the walk's nearest pages, not exact values:
    # a looser push tolerance than the named path's PPR (1e-4) roughly halves its cost.
    graph_tol: float = 1e-3
    # When an entry page was found by its name, the graph's best page around it gets the
    # fifth place at least: a question naming an entity often asks about its neighbour
    # ("Humehume's father"). 2wiki recall@5 0.906 -> 0.923, all-gold 0.783 -> 0.814; the
    # natural sets 0.887 -> 0.885 (one ob-wiki question). Off for pages found by text only
    # (natural 0.862): there the neighbour is rarely what was asked.
    graph_slot: int = 5
    graph_slot_named_only: bool = True
    # ... and only when that name is a tenth of the question or more (its share of the
    # question's weight): "the director of the Titanic film" asks about the name's neighbour,
    # while a long question that mentions a name in passing asks about its other words, and
    # the slot then pushes out a page the text found. Pooled recall@5 (rank only) over the
    # dev and the four fresh natural sets, 508 questions: 455.8 -> 458.3 (dev and fresh3
    # unchanged, fresh +0.004, fresh4 and fresh5 +0.016); 2wiki unchanged at every share up to
    # 0.2 (0.929 / 0.826), 0.911 / 0.793 at 0.5 (docs/BENCHMARKS.md, "The graph's place").
    graph_slot_name_share: float = 0.1
    # A question naming something no page mentions is not covered (retrieve/coverage.py).
    unknown_name_rule: bool = True
    # A one-word title or alias on more than this share of pages is a common word, not a name.
    common_name_share: float = 0.2
    # Fusion.
    named: FusionWeights = field(default_factory=lambda: NAMED_WEIGHTS)
    open: FusionWeights = field(default_factory=lambda: OPEN_WEIGHTS)
    subject: FusionWeights = field(default_factory=lambda: SUBJECT_WEIGHTS)
    fusion: Literal["linear", "rrf"] = "linear"
    rrf_k: int = 60
    candidates_per_signal: int = 60
