"""A page's fields from one tokenization: the body, its lead, and its passages."""

from __future__ import annotations

from collections import Counter

from wikiq.vault.markdown import mask_code, split_lead
from wikiq.vault.page_terms import PASSAGE_BUDGET, _count_in_python, page_terms
from wikiq.vault.terms import count_terms

SECTION = "The comet sheds dust along its orbit, and the dust trail glows at night. "


def _long_body() -> str:
    first = SECTION * (PASSAGE_BUDGET // len(SECTION))
    second = "Tides rise and fall because the moon pulls the oceans. " * 12
    return (
        "Orbital debris is what is left in orbit of old missions.\n\n"
        f"## Comets\n\n{first}\n\n## Tides\n\n{second}\n"
    )


def _fields(title: str, body: str) -> dict:  # type: ignore[type-arg]
    return page_terms(title, body, mask_code(body))


def test_the_body_and_lead_are_counted_as_one_pass_over_the_whole_text_counts_them() -> None:
    body = _long_body()
    fields = _fields("Orbital debris", body)
    lead, _ = split_lead(body)
    assert fields["body"] == count_terms(body)
    assert fields["lead"] == count_terms(lead)


def test_a_long_page_has_a_passage_per_section_each_with_the_title() -> None:
    body = _long_body()
    fields = _fields("Orbital debris", body)
    passages = fields["passages"]
    assert len(passages) >= 2
    title = count_terms("Orbital debris")
    # Every passage carries the title's terms; without them, the passages add up to the body.
    assert all(all(p.get(t, 0) >= n for t, n in title.items()) for p in passages)
    total: Counter[str] = Counter()
    for p in passages:
        total.update({t: n - title.get(t, 0) for t, n in p.items()})
    assert +total == Counter(fields["body"])
    # The tides are in one passage, the comet's dust in others: a section stays whole.
    assert sum("tide" in p for p in passages) == 1
    assert not any("tide" in p and "comet" in p for p in passages)


def test_a_short_page_is_one_passage_and_an_empty_one_none() -> None:
    assert len(_fields("Moon", "The moon orbits the earth.\n")["passages"]) == 1
    assert _fields("Moon", "")["passages"] == []
    assert _fields("Moon", "\n\n---\n")["passages"] == []


def test_the_python_count_gives_what_counters_c_loop_gives() -> None:
    # The fallback for a Python without collections._count_elements: same counts, same order.
    terms = ["b", "a", "b", "c", "a", "b", "日志", "a"]
    counts: dict[str, int] = {}
    _count_in_python(counts, iter(terms))
    assert counts == dict(Counter(terms))
    assert list(counts) == ["b", "a", "c", "日志"]
