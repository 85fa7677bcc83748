"""Text handling shared by the whole engine: slugs, matching tokens, token counts, language,
and the one definition of wiki-link syntax (`wiki_links`), sentence ends (`sentences`) and
script ranges (`scripts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikiq.lazy_names import lazy_names

# `tokenize` is imported here, not lazily: the function shares its name with its module, and
# once the module is imported the package attribute would be the module. Everything that
# reads a vault tokenizes anyway.
from wikiq.text.tokenize import stem, tokenize

if TYPE_CHECKING:
    from wikiq.text.language import detect_language, language_name
    from wikiq.text.slug import slug_key, slugify
    from wikiq.text.token_count import count_tokens

# The rest load on first use: language detection's and token counting's tables cost a search
# process ~20 ms before it detects or counts anything.
_LAZY = {
    "detect_language": "wikiq.text.language",
    "language_name": "wikiq.text.language",
    "slug_key": "wikiq.text.slug",
    "slugify": "wikiq.text.slug",
    "count_tokens": "wikiq.text.token_count",
}

__all__ = [
    "count_tokens",
    "detect_language",
    "language_name",
    "slug_key",
    "slugify",
    "stem",
    "tokenize",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
