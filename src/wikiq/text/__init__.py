"""Text handling shared by the whole engine: slugs, matching tokens, token counts, language,
and the one definition of wiki-link syntax (`wiki_links`), sentence ends (`sentences`) and
script ranges (`scripts`)."""

from wikiq.text.language import detect_language, language_name
from wikiq.text.slug import slug_key, slugify
from wikiq.text.token_count import count_tokens
from wikiq.text.tokenize import stem, tokenize

__all__ = [
    "count_tokens",
    "detect_language",
    "language_name",
    "slug_key",
    "slugify",
    "stem",
    "tokenize",
]
