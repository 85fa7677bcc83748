"""The name index: every page's title, basename and aliases as weighted features.

A name is matched against a question by features: stemmed Latin words, and for CJK text
overlapping character bigrams (a one-character run stays a unigram). Bigrams make CJK matching
behave like the plugin's substring match without depending on how a segmenter split a
question. Features are weighted by IDF over names, so a rare name word counts for more than
"system" or "theory". Scoring is two sparse products, so every page is checked on every
question: there is no window of candidates a page could fall out of.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field

import numpy as np

from wikiq.retrieve.topk import kth_largest
from wikiq.sparse import CSR, distinct_values
from wikiq.text.scripts import CJK_RUNS
from wikiq.vault.catalog import Catalog
from wikiq.vault.packed import SMALL_BLOCK_BYTES, Packed, PackedStrings
from wikiq.vault.rows import page_field
from wikiq.vault.terms import match_terms

FIELD_TITLE = "title"
FIELD_ALIAS = "alias"


def name_features(text: str) -> list[str]:
    """Matching features of a name or a question: Latin terms plus CJK bigrams, deduplicated."""
    feats: list[str] = [t for t in match_terms(text) if not CJK_RUNS.fullmatch(t)]
    for run in CJK_RUNS.findall(text.lower()):
        if len(run) == 1:
            feats.append(run)
        else:
            feats.extend(run[i : i + 2] for i in range(len(run) - 1))
    return list(dict.fromkeys(feats))


# A trailing parenthetical that tells same-named pages apart ("The V.I.P.s (film)", "Mercury
# (planet)", "水星（行星）") is not part of the name: matched with it, "film" alone would name
# every film in the vault.
_DISAMBIGUATOR = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")


# Enough for the names of a vault of ~30,000 pages; past that the oldest are forgotten.
NAME_MEMO = 1 << 17


@functools.lru_cache(maxsize=NAME_MEMO)
def _features_of_name(name: str) -> tuple[str, ...]:
    """A page name's features, remembered: a running server rebuilds the name index after
    every edit, and tokenizing ob-wiki's 30,000 names again took ~1 s of it."""
    return tuple(name_features(without_disambiguator(name)))


def without_disambiguator(name: str) -> str:
    """The name without its trailing parenthetical, unless that is all there is."""
    stripped = _DISAMBIGUATOR.sub("", name)
    return stripped if stripped.strip() else name


@dataclass(frozen=True)
class NameMatch:
    """How well one page's best name matches a question."""

    page: int
    score: float  # name coverage × question coverage blend, in [0, 1]
    name_coverage: float  # share of the name's weight found in the question
    query_coverage: float  # share of the question's weight the name explains
    field: str  # "title" or "alias"
    # The name and the features that matched are read from the index when first asked: a
    # search returns up to 200 names and the cascade reads those of its first few (at a
    # million pages, reading them all cost ~6 ms a question).
    name_number: int = dataclass_field(repr=False)
    index: NameIndex = dataclass_field(repr=False, compare=False)
    question_features: frozenset[str] = dataclass_field(repr=False, compare=False)

    @functools.cached_property
    def name(self) -> str:
        """The matching title or alias as written."""
        return self.index.names[self.name_number]

    @functools.cached_property
    def matched(self) -> tuple[str, ...]:
        """The question's features found in this name, in the name's order."""
        wanted = self.question_features
        return tuple(f for f in self.index.features(self.name_number) if f in wanted)


# A name search that hits more than HEAD_FROM names (a common word is in a good share of a
# million names) sorts only its best ones, this many per page asked for, when those already
# hold enough pages. Below it, sorting them all costs less than choosing the best.
HEAD_FROM = 20_000
HEAD_NAMES_PER_PAGE = 4


def _listed_names(catalog: Catalog) -> tuple[list[str], list[int], list[str]]:
    """Every page's distinct names (its file name, title and aliases), their pages, and
    whether each is a title or an alias."""
    names: list[str] = []
    owners: list[int] = []
    fields: list[str] = []
    # By column: a cached catalog's pages are never built (a million pages: ~1.4 GB).
    pages = catalog.pages
    columns = (page_field(pages, "name"), page_field(pages, "title"), page_field(pages, "aliases"))
    for i, (name, title, aliases) in enumerate(zip(*columns, strict=True)):
        seen: set[str] = set()
        for text, fld in (
            (name, FIELD_TITLE),
            (title, FIELD_TITLE),
            *((a, FIELD_ALIAS) for a in aliases),
        ):
            key = text.strip().lower()
            if key and key not in seen:
                seen.add(key)
                names.append(text.strip())
                owners.append(i)
                fields.append(fld)
    return names, owners, fields


def name_index(catalog: Catalog, previous: NameIndex | None = None) -> NameIndex:
    """The catalog's name index: `previous` itself when every page has the names it had (a
    body edit: 1.6 s of a refresh at 100,000 pages), else one built from it."""
    listed = _listed_names(catalog)
    if previous is not None and _same_names(previous, len(catalog.pages), *listed):
        return previous
    return NameIndex(catalog, previous, listed)


def _same_names(
    index: NameIndex, n_pages: int, names: list[str], owners: list[int], fields: list[str]
) -> bool:
    """Whether `index` was built from exactly these names, of these pages."""
    if index.n_pages != n_pages or len(index.names) != len(names):
        return False
    is_alias = np.fromiter((f == FIELD_ALIAS for f in fields), dtype=bool, count=len(fields))
    return (
        np.array_equal(index.owner, np.asarray(owners, dtype=np.int32))
        and np.array_equal(index.is_alias, is_alias)
        and list(index.names) == names
    )


class NameIndex:
    """Titles, basenames and aliases of every page, as sparse postings: feature → names."""

    # An alias hit counts a little less than a title hit (the plugin gives 3 vs 2 points).
    ALIAS_FACTOR = 0.85
    feature_ends: np.ndarray  # where each name's features end in `feature_words`

    def __init__(
        self,
        catalog: Catalog,
        previous: NameIndex | None = None,
        listed: tuple[list[str], list[int], list[str]] | None = None,
    ) -> None:
        """`previous`: the index this one replaces (a running server's, after an edit): the
        features of every name it already had are copied, not tokenized again (a 100,000-page
        vault has ~230,000 names: 4 s of each rebuild, which the memo's size cannot hold)."""
        import scipy.sparse as sp  # building only: a question reads the flat postings

        names, owners, fields = listed if listed is not None else _listed_names(catalog)
        self.names = names
        self.owner = np.asarray(owners, dtype=np.int32)
        self.is_alias = np.asarray([f == FIELD_ALIAS for f in fields], dtype=bool)
        self.n_pages = len(catalog.pages)

        vocab: dict[str, int] = {}
        # Each feature's column, in a typed array: a million pages' ~8 million features as
        # Python ints in lists (with their rows) held ~0.4 GB while the index was built.
        cols = array("q")
        # Each name's features, one flat list and where each name's end: stored as one text
        # (vault/store.py), a search reads the few names it matched instead of decoding a
        # list per name (~20 ms a process on ob-wiki's 30,000 names).
        self.feature_words: list[str] = []
        ends = array("q")
        had: dict[str, int] = {}
        old_words: Sequence[str] = ()
        old_ends = np.zeros(1, dtype=np.int64)
        if previous is not None:  # walked or sliced whole: a cached index decodes them once
            had = {name: r for r, name in enumerate(previous.names)}
            old_words, old_ends = previous.feature_words, previous.feature_ends
        for text in names:
            old = had.get(text)
            if old is None:
                feats: Sequence[str] = _features_of_name(text)
            else:
                feats = old_words[int(old_ends[old - 1]) if old else 0 : int(old_ends[old])]
            self.feature_words.extend(feats)
            ends.append(len(self.feature_words))
            cols.extend(vocab.setdefault(f, len(vocab)) for f in feats)
        self.feature_ends = np.frombuffer(ends, dtype=np.int64).copy()
        self.vocab = vocab
        # Name r's features are entries ends[r - 1]:ends[r]: its row, once for each.
        rows = np.repeat(np.arange(len(names)), np.diff(self.feature_ends, prepend=0))
        columns = np.frombuffer(cols, dtype=np.int64)
        matrix = sp.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, columns)),
            shape=(len(names), len(vocab)),
        )
        # Document frequency counts pages, not names, so a page's many aliases don't dilute it.
        page_feature = sp.csr_matrix(
            (
                np.ones(len(rows), dtype=np.float32),
                (self.owner[rows], columns),
            ),
            shape=(self.n_pages, len(vocab)),
        )
        page_feature.data[:] = 1.0
        page_feature.sum_duplicates()
        df = np.asarray((page_feature > 0).sum(axis=0)).ravel()
        n = max(self.n_pages, 1)
        self.idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        self.unseen_idf = float(math.log(1.0 + (n + 0.5) / 0.5))
        # By feature (the columns): a question reads the postings of its features.
        self.postings = CSR.from_scipy(matrix.T.tocsr())
        self.name_weight = np.asarray(matrix @ self.idf).ravel()

    def packed(self) -> NameIndex:
        """This index as the cache keeps it: its names and their features compressed in small
        blocks (vault/packed.py: a question reads a few dozen of a million pages' 2.8 million
        names, 104 MB plain), where each name's features end in four bytes."""
        saved = copy.copy(self)
        saved.names = Packed(list(self.names), SMALL_BLOCK_BYTES)  # type: ignore[assignment]
        saved.feature_words = Packed(list(self.feature_words), SMALL_BLOCK_BYTES)  # type: ignore[assignment]
        if int(self.feature_ends.max(initial=0)) <= np.iinfo(np.uint32).max:
            saved.feature_ends = self.feature_ends.astype(np.uint32)
        return saved

    def features(self, name: int) -> list[str]:
        """The matching features of name number `name`."""
        start = int(self.feature_ends[name - 1]) if name else 0
        end = int(self.feature_ends[name])
        words = self.feature_words
        if isinstance(words, PackedStrings):  # from the cache: read from its block
            return words.span(start, end)
        return [words[j] for j in range(start, end)]

    def feature_weight(self, feature: str) -> float:
        j = self.vocab.get(feature)
        return float(self.idf[j]) if j is not None else self.unseen_idf

    def question_weight(self, features: Sequence[str], words: Sequence[str]) -> float:
        """The weight a question's coverage is measured against.

        Known features count with their IDF. Of the rest, only real words count (once each,
        as rare): the bigrams that straddle two Chinese words ("面为", "么总") are artefacts
        of bigramming, not things the question asks about, and must not dilute coverage.
        """
        weight = sum(self.feature_weight(f) for f in dict.fromkeys(features) if f in self.vocab)
        for word in dict.fromkeys(words):
            if word in self.vocab:
                continue
            if CJK_RUNS.fullmatch(word):
                grams = [word[i : i + 2] for i in range(len(word) - 1)] or [word]
                if all(g in self.vocab for g in grams):
                    continue  # already counted through its bigrams
            weight += self.unseen_idf
        return weight

    def joint_coverage(
        self, matches: Sequence[NameMatch], query_weight: float, whole: float, top: int = 10
    ) -> float:
        """Share of the question explained by all the whole names it contains, taken together."""
        covered: set[str] = set()
        for m in matches[:top]:
            if m.name_coverage >= whole:
                covered.update(m.matched)
        weight = sum(self.feature_weight(f) for f in covered)
        return min(weight / query_weight, 1.0) if query_weight > 0 else 0.0

    def _best_per_page(self, hit_names: np.ndarray, score: np.ndarray, limit: int) -> np.ndarray:
        """Positions (in `hit_names`) of each page's best name, best first, at most `limit`:
        names ordered by score (ties by name number), each page's first name kept. Only the
        best names are sorted when they already hold `limit` pages: they are the head of the
        whole order, since every name scoring as much as the last of them is among them."""
        if limit > 0 and len(score) > max(HEAD_FROM, HEAD_NAMES_PER_PAGE * limit):
            floor = kth_largest(score, HEAD_NAMES_PER_PAGE * limit)
            best = self._first_per_page(hit_names, score, np.nonzero(score >= floor)[0])
            if len(best) >= limit:
                return best[:limit]
        return self._first_per_page(hit_names, score, np.arange(len(score)))[:limit]

    def _first_per_page(self, hit_names: np.ndarray, score: np.ndarray, among: np.ndarray) -> np.ndarray:
        """Of the names at positions `among`, each page's best, best first."""
        order = among[np.lexsort((hit_names[among], -score[among]))]
        _, first = np.unique(self.owner[hit_names[order]], return_index=True)
        return order[np.sort(first)]

    def match(
        self, features: Sequence[str], *, query_weight: float | None = None, limit: int = 200
    ) -> list[NameMatch]:
        """Pages with a name sharing a feature with `features` (every page is checked), best
        name per page, best first, at most `limit` of them."""
        ids = [self.vocab[f] for f in dict.fromkeys(features) if f in self.vocab]
        if not ids:
            return []
        if query_weight is None:
            query_weight = sum(self.feature_weight(f) for f in features)
        # Walk the postings of the question's features straight into per-name sums: the cost
        # follows how many names share a feature, not the vault's size.
        m = self.postings
        starts, ends = m.indptr[ids], m.indptr[np.asarray(ids) + 1]
        rows = np.concatenate([m.indices[a:b] for a, b in zip(starts, ends, strict=True)])
        weights = np.repeat(self.idf[ids], ends - starts)
        # The names hit, grouped without a sort (a common word is in a good share of a
        # million names' features); each name's weights are summed in the postings' order.
        hit_names, inverse = distinct_values(rows, np.empty(len(self.owner), dtype=np.int64))
        matched = np.bincount(inverse, weights=weights, minlength=len(hit_names))
        if len(hit_names) == 0:
            return []
        name_cov = matched / np.maximum(self.name_weight[hit_names], 1e-9)
        query_cov = matched / max(query_weight, 1e-9)
        score = name_cov * (0.55 + 0.45 * np.minimum(query_cov, 1.0))
        score = np.where(self.is_alias[hit_names], score * self.ALIAS_FACTOR, score)
        best = self._best_per_page(hit_names, score, limit)
        feature_set = frozenset(features)
        numbers = hit_names[best]
        # Read out as Python values in one go: a numpy scalar a field cost ~0.3 ms a question.
        columns = zip(
            numbers.tolist(),
            self.owner[numbers].tolist(),
            score[best].tolist(),
            np.minimum(name_cov[best], 1.0).tolist(),
            np.minimum(query_cov[best], 1.0).tolist(),
            self.is_alias[numbers].tolist(),
            strict=True,
        )
        out = [
            NameMatch(
                page=page,
                score=page_score,
                name_coverage=name_share,
                query_coverage=query_share,
                field=FIELD_ALIAS if alias else FIELD_TITLE,
                name_number=r,
                index=self,
                question_features=feature_set,
            )
            for r, page, page_score, name_share, query_share, alias in columns
        ]
        out.sort(key=lambda m: (-m.score, m.page))
        return out
