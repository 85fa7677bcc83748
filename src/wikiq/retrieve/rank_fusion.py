"""Rank fusion for open questions (those that do not name a page): weighted reciprocal ranks.

Each channel is a ranked list of pages. A page earns `weight / (k + rank)` from every list it
is in (rank from 1, k = 60 as in Elastic, qmd and llm_wiki), and the text channel's first pages
a fixed bonus so its best hit cannot be buried by pages that are merely middling everywhere
(qmd's top-rank bonus). Ranks, unlike scores, mean the same on every channel and every vault,
which is what lets one set of weights carry over (research/ranking-and-abstention.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Channel:
    """One ranked list of pages and how much a rank in it counts."""

    name: str  # "text", "lead", "names", "sem", "graph": shown in the results' signals
    pages: Sequence[int]  # page numbers, best first
    weight: float


class FusedPage(NamedTuple):
    """One page of a fused ranking (a tuple: a frozen dataclass cost ~1 us a page to make,
    and a question's fusion makes a hundred or more)."""

    page: int
    score: float
    ranks: dict[str, int]  # channel -> rank (from 1) of this page in it


def reciprocal_rank_fusion(
    channels: Sequence[Channel],
    *,
    k: int = 60,
    bonus_channels: Sequence[str] = ("text",),
    first_bonus: float = 0.05,
    near_bonus: float = 0.02,
    near_ranks: int = 3,
    first_of: Mapping[str, float] | None = None,
    agreement: bool = True,
) -> list[FusedPage]:
    """Every page of every channel, best first (ties by page number).

    The first page of a `bonus_channels` list gets `first_bonus`, as does a page two
    channels rank first; its pages ranked 2..`near_ranks` get `near_bonus` (the best rank
    counts): with weight 2 and k = 60 a first rank is worth 0.033, so the bonus keeps a clear
    text hit ahead of pages that are merely middling in every channel. `first_of`: a smaller
    bonus for the first page of other channels (once a page, the largest). `agreement`:
    whether two channels' first page gets `first_bonus` (not when the channels read words the
    vault does not understand: a translated question's own words agree on noise)."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    # The only pages a bonus can go to: each list's first, and a bonus list's first few.
    could_gain: list[int] = []
    for channel in channels:
        weight, name, listed = channel.weight, channel.name, channel.pages
        if weight <= 0:
            continue
        if len(listed):
            could_gain.append(listed[0])
            if name in bonus_channels:
                could_gain.extend(listed[1:near_ranks])
        for rank, page in enumerate(listed, start=1):
            seen = ranks.get(page)
            if seen is None:
                ranks[page] = {name: rank}
                scores[page] = weight / (k + rank)
            elif name not in seen:  # a page listed twice in one channel counts once
                seen[name] = rank
                scores[page] += weight / (k + rank)
    for page in dict.fromkeys(could_gain):
        seen = ranks[page]
        best = min((seen[c] for c in bonus_channels if c in seen), default=0)
        # Two channels' first page is not buried either ("叔本华…的宠物是猫还是狗？": the
        # names and the passages put the philosopher's page first, the whole text 25th).
        if best == 1 or (agreement and sum(rank == 1 for rank in seen.values()) >= 2):
            scores[page] += first_bonus
        elif 1 < best <= near_ranks:
            scores[page] += near_bonus
        if first_of:
            scores[page] += max((b for c, b in first_of.items() if seen.get(c) == 1), default=0.0)
    order = sorted([(-score, page) for page, score in scores.items()])
    return [FusedPage(page, -score, ranks[page]) for score, page in order]


def add_channel(fused: list[FusedPage], channel: Channel, *, k: int = 60) -> list[FusedPage]:
    """`fused` with one more channel's reciprocal ranks added (used for the graph, which is
    walked from the fused ranking's best pages), re-sorted."""
    by_page = {f.page: f for f in fused}
    for rank, page in enumerate(channel.pages, start=1):
        old = by_page.get(page)
        gain = channel.weight / (k + rank)
        if old is None:
            by_page[page] = FusedPage(page, gain, {channel.name: rank})
        elif channel.name not in old.ranks:
            by_page[page] = FusedPage(page, old.score + gain, {**old.ranks, channel.name: rank})
    return sorted(by_page.values(), key=lambda f: (-f.score, f.page))


def reserve_slot(fused: list[FusedPage], page: int, slot: int) -> list[FusedPage]:
    """`page` moved up to position `slot` (from 1) when it ranks below it: the graph's best
    neighbour of the entry pages gets one place in the answer (llm_wiki reserves 15-30% of its
    window for graph neighbours), never above the text's best pages."""
    at = next((i for i, f in enumerate(fused) if f.page == page), None)
    if at is not None and at < slot:
        return fused
    moved = fused.pop(at) if at is not None else FusedPage(page, 0.0, {"graph": 1})
    i = min(slot - 1, len(fused))
    score = fused[i].score if i < len(fused) else moved.score  # the place it takes
    fused.insert(i, FusedPage(page, score, moved.ranks))
    return fused
