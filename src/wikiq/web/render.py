"""Page Markdown to HTML that cannot run anything: raw HTML is shown as text, links are allow-listed.

Page text is untrusted (a page may hold `<script>` or `onerror=`). markdown-it with `html`
off escapes every tag; links keep only http(s) and mailto; images are not fetched (a remote
image would tell a server that the page was opened) and show as their alt text. Obsidian
`[[links]]` become in-app links to the page they resolve to, or plain text when dead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from wikiq.vault.markdown import without_block_ids

Resolve = Callable[[str], str | None]  # link target -> page path, or None when dead

_SAFE_SCHEME = re.compile(r"^(https?:|mailto:)", re.IGNORECASE)


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[target]]`, `[[target|label]]`, `[[target#heading]]`, and embeds `![[target]]`."""
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    start = pos + (3 if embed else 2)
    if not (embed or src.startswith("[[", pos)):
        return False
    end = src.find("]]", start)
    if end < 0 or "\n" in src[start:end] or end == start:
        return False
    if not silent:
        inner = src[start:end]
        target, _, label = inner.partition("|")
        page, _, heading = target.partition("#")
        token = state.push("wikilink", "", 0)
        token.meta = {
            "target": page.strip(),
            "heading": heading.strip().lstrip("^"),
            # "[[#Supported types]]" reads as "Supported types", as Obsidian shows it
            "label": (label or (target if page.strip() else heading)).strip(),
            "embed": embed,
        }
    state.pos = end + 2
    return True


class SafeMarkdown:
    """Renders a page body; `resolve` maps `[[targets]]` to page paths of the open vault."""

    def __init__(self, resolve: Resolve) -> None:
        self._resolve = resolve
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.validateLink = lambda url: bool(_SAFE_SCHEME.match(url.strip()))  # type: ignore[method-assign]
        md.inline.ruler.before("link", "wikilink", _wikilink_rule)
        md.add_render_rule(
            "wikilink", lambda _renderer, tokens, idx, _opts, _env: self._wikilink(tokens[idx])
        )
        md.add_render_rule("link_open", _render_link_open)
        md.add_render_rule("image", _render_image)
        self._md = md

    def render(self, text: str) -> str:
        """HTML as Obsidian draws it: callouts as boxes, block ids hidden."""
        return _callouts(self._md.render(without_block_ids(text)))

    def _wikilink(self, token: Token) -> str:
        meta = token.meta
        label = escapeHtml(meta["label"])
        if not meta["target"]:  # "[[#Heading]]": a section of the page being read
            return f'<span class="wikilink section" title="a section of this page">{label}</span>'
        path = self._resolve(meta["target"])
        if path is None:
            return f'<span class="wikilink dead" title="not a page in this vault">{label}</span>'
        return (
            f'<a class="wikilink" href="#page={escapeHtml(_fragment(path))}" '
            f'data-page="{escapeHtml(path)}">{label}</a>'
        )


# A callout is a quote whose first line is "[!type] Title" (markdown-it has escaped the text).
_CALLOUT_HTML = re.compile(r"<blockquote>\s*<p>\[!([A-Za-z][\w-]*)\][+-]?[ \t]*([^\n<]*)")


def _callouts(html: str) -> str:
    """Obsidian callouts (`> [!tip] Title`) as titled boxes instead of quotes."""
    if "[!" not in html:
        return html

    def box(m: re.Match[str]) -> str:
        kind = m.group(1).lower()
        title = m.group(2).strip() or escapeHtml(kind.capitalize())
        return (
            f'<blockquote class="callout" data-callout="{escapeHtml(kind)}">'
            f'<p class="callout-title">{title}</p><p>'
        )

    return _CALLOUT_HTML.sub(box, html)


def _fragment(path: str) -> str:
    return quote(path, safe="/")


def _render_link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    return (
        f'<a href="{escapeHtml(href)}" target="_blank" rel="noopener noreferrer nofollow" '
        f'class="external">'
    )


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or [])
    return f'<span class="image-placeholder">[image: {escapeHtml(alt or "untitled")}]</span>'
