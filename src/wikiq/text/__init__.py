"""Text handling shared by the whole engine: slugs, matching tokens, token counts, language."""

from wikiq.text.language import detect_language, language_name
from wikiq.text.slug import slug_key, slugify
from wikiq.text.token_count import count_tokens
from wikiq.text.tokenize import QueryTerms, cjk_bigrams, query_terms, stem, tokenize

__all__ = [
    "QueryTerms",
    "cjk_bigrams",
    "count_tokens",
    "detect_language",
    "language_name",
    "query_terms",
    "slug_key",
    "slugify",
    "stem",
    "tokenize",
]
