"""The text index's counts: each page's body with its title and aliases counted in."""

from __future__ import annotations

import numpy as np

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve import indexes
from wikiq.retrieve.body import BodyIndex
from wikiq.retrieve.indexes import NAME_REPEAT, titled_terms
from wikiq.sparse import CSR
from wikiq.vault.terms import TermIndex

PAGES = {
    "concepts/orbit": page("Orbit", "A path around the moon, and around the moon again."),
    "entities/moon": page("Moon", "Earth's satellite.", aliases=("Luna",)),
}


def _with_counts(terms: TermIndex, data: np.ndarray) -> TermIndex:
    m = terms.matrix
    return TermIndex(terms.vocab, CSR(m.indptr, m.indices, data, m.shape))


def test_two_byte_counts_give_two_byte_sums_and_the_same_weights(
    make_catalog: CatalogFactory,
) -> None:
    catalog = make_catalog(PAGES)
    body = catalog.terms
    wide = titled_terms(catalog, _with_counts(body, body.matrix.data.astype(np.float32)))
    narrow = titled_terms(catalog, _with_counts(body, body.matrix.data.astype(np.uint16)))
    assert wide.matrix.data.dtype == np.float32 and narrow.matrix.data.dtype == np.uint16
    moon = catalog.by_path["entities/moon"]
    assert narrow.row(moon)["luna"] == NAME_REPEAT and narrow.row(moon) == wide.row(moon)
    one_byte = titled_terms(catalog, _with_counts(body, body.matrix.data.astype(np.uint8)))
    assert one_byte.matrix.data.dtype == np.uint16 and one_byte.row(moon) == wide.row(moon)
    assert np.array_equal(BodyIndex(narrow).weight_matrix().data, BodyIndex(wide).weight_matrix().data)


def test_a_sum_that_would_not_fit_in_two_bytes_is_kept_wide(make_catalog: CatalogFactory) -> None:
    catalog = make_catalog(PAGES)
    body = catalog.terms
    data = body.matrix.data.astype(np.uint16)
    moon = catalog.by_path["entities/moon"]
    start = int(body.matrix.indptr[moon])
    data[start] = 65_534  # the moon page's first word, next to its name's extra 3
    titled = titled_terms(catalog, _with_counts(body, data))
    assert titled.matrix.data.dtype == np.float32 and float(titled.matrix.data.max()) >= 65_534


def test_names_whose_terms_were_cut_last_time_give_the_same_counts_and_new_names_their_own(
    make_catalog: CatalogFactory,
) -> None:
    # A refresh after a body edit reuses the name terms of the build before it; a renamed
    # page, or a new alias, must not: each result equals one computed with nothing reused.
    catalog = make_catalog(PAGES)
    first = titled_terms(catalog, catalog.terms)
    again = titled_terms(catalog, catalog.terms)
    moon = catalog.by_path["entities/moon"]
    assert again.vocab == first.vocab and again.row(moon) == first.row(moon)
    for changed in (
        {**PAGES, "entities/moon": page("Selene", "Earth's satellite.", aliases=("Luna",))},
        {**PAGES, "entities/moon": page("Moon", "Earth's satellite.", aliases=("Luna", "Mene"))},
        {**PAGES, "entities/moon": page("Moon", "Earth's satellite.", aliases=("Lu", "na"))},
    ):
        renamed = make_catalog(changed)
        after = titled_terms(renamed, renamed.terms)  # the previous names' terms at hand
        indexes._last_named.clear()
        fresh = titled_terms(renamed, renamed.terms)
        assert after.vocab == fresh.vocab
        assert after.matrix.indices.tolist() == fresh.matrix.indices.tolist()
        assert after.matrix.data.tolist() == fresh.matrix.data.tolist()
        assert after.row(renamed.by_path["entities/moon"]) != first.row(moon)
