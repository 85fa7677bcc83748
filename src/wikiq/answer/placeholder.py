"""The `__WIKI_FOLDER__` placeholder: the model and the history only ever see it.

The real folder name is put in only when text is shown, so renaming the wiki folder never
leaves stale paths in history for the model to copy (the plugin's "Bug C").
"""

from __future__ import annotations

import re

PLACEHOLDER = "__WIKI_FOLDER__"


def to_display(raw: str, wiki_folder: str) -> str:
    """Raw (placeholder) text as shown: `[[__WIKI_FOLDER__/x]]` → `[[wiki/x]]`, or `[[x]]` for a
    plain vault with no wiki folder."""
    if PLACEHOLDER not in raw:
        return raw
    if wiki_folder:
        return raw.replace(PLACEHOLDER, wiki_folder)
    return raw.replace(PLACEHOLDER + "/", "").replace(PLACEHOLDER, "")


def to_placeholder(text: str, wiki_folder: str) -> str:
    """Shown text back in placeholder form: links into the current folder (and into `wiki/`,
    the default, after a rename) point at `__WIKI_FOLDER__/` again."""
    folders = {f for f in (wiki_folder, "wiki") if f}
    if not folders or "[[" not in text:
        return text
    names = "|".join(re.escape(f) for f in sorted(folders, key=len, reverse=True))
    return re.sub(rf"\[\[(?:{names})/", f"[[{PLACEHOLDER}/", text)


def partial_suffix(text: str, *tokens: str) -> int:
    """Length of the longest end of `text` that could still grow into one of `tokens`."""
    best = 0
    for token in tokens:
        for size in range(min(len(text), len(token) - 1), best, -1):
            if text.endswith(token[:size]):
                best = size
                break
    return best
