"""How well the vault answers one clause of a question, for the coverage rules that read a
question clause by clause (retrieve/coverage.py): a long question one of whose clauses a page
answers (`best_part`), and the clause an unknown name stands in (`name_context`).

Each clause is searched on its own, and the share of its distinctive words held by the page
its search puts first is what counts: the question's other clauses, chatty or not, cannot
dilute it.
"""

from __future__ import annotations

from wikiq.retrieve.body import BodyIndex
from wikiq.retrieve.coverage import PART_MIN_TERMS
from wikiq.text.han_singles import evidence_terms
from wikiq.text.stopwords import asking_sentences, content_terms, question_clauses
from wikiq.vault.terms import match_terms


def best_part(text: BodyIndex, question: str) -> float:
    """The best share of one clause's distinctive words on the page its own search puts
    first, over the clauses of `PART_MIN_TERMS` words or more (0 for a single clause)."""
    clauses = question_clauses(question)
    if len(clauses) < 2:
        return 0.0
    best = 0.0
    for clause in clauses:
        terms = content_terms(match_terms(clause))
        if len(set(evidence_terms(terms))) >= PART_MIN_TERMS:
            best = max(best, _first_page_share(text, terms))
    return best


def name_context(text: BodyIndex, question: str, names: tuple[str, ...]) -> float:
    """The least share, over the unknown names, of the other distinctive words of the clause
    each stands in (in the sentences that ask) that the page its own search puts first holds;
    0 for a name that is its clause alone ("…文字（OCR），…"): nothing around it is answered."""
    clauses = [c for s in asking_sentences(question) for c in question_clauses(s)]
    least = 1.0
    for name in names:
        clause = next((c for c in clauses if name in c), None)
        if clause is None:  # written across a clause's end: no clause of its own
            continue
        terms = content_terms(match_terms(clause.replace(name, " ")))
        if not evidence_terms(terms):
            return 0.0
        least = min(least, _first_page_share(text, terms))
    return least


def _first_page_share(text: BodyIndex, terms: list[str]) -> float:
    hits = text.search(terms, limit=10, coverage_of=1, evidence=evidence_terms(terms))
    return hits.best_coverage()
