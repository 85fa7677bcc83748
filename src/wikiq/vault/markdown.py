"""Reading one Markdown page: frontmatter, code fences, wiki-links, first heading, summary.

Everything here is pure text in, data out, and never raises on any input: a vault is
user-written text and a broken page must be reported and skipped, never crash a query.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from wikiq.text.wiki_links import EMBED, HEADING, LABEL, LINK_PARTS, TARGET, WIKI_LINK
from wikiq.vault.simple_yaml import load_simple


@cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader, imported on first use: most frontmatter is read by `load_simple`,
    and a warm `wikiq search` reads none, so the ~20 ms import waits for a page that needs it."""
    import yaml

    try:  # libyaml is ~10x faster; PyYAML wheels normally ship it.
        return yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - depends on the PyYAML build
        return yaml.SafeLoader

BOM = "\ufeff"

_FRONTMATTER_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
# A fence opens with 3+ backticks or tildes, indented at most 3 spaces (CommonMark).
_FENCE_LINE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*\r?$", re.MULTILINE)
# Obsidian's block ids ("… text ^callout-tip") end a line and name it for [[page#^id]] links:
# not text. A callout opens a quote with its type: "> [!tip] Title", "> [!warning]- Title".
BLOCK_ID = re.compile(r"[ \t]+\^[A-Za-z0-9-]+[ \t]*$", re.MULTILINE)
CALLOUT = re.compile(r"^\[!([A-Za-z][\w-]*)\][+-]?[ \t]*")


def without_block_ids(text: str) -> str:
    """The text without Obsidian's `^block-id` line ends."""
    return BLOCK_ID.sub("", text) if "^" in text else text


@dataclass(frozen=True)
class Frontmatter:
    """The YAML block at the top of a page. `data` is empty when absent or broken."""

    data: dict[str, Any]
    text: str  # the raw YAML text (for link extraction), "" when absent
    body_start: int  # character offset of the body in the (BOM-stripped) page text
    error: str | None = None


@dataclass(frozen=True)
class WikiLink:
    target: str  # as written, e.g. "entities/neil-armstrong" (may be "" for [[#heading]])
    heading: str | None  # "Early life" for [[t#Early life]], "^abc" for a block reference
    label: str | None
    embed: bool  # ![[...]]
    in_frontmatter: bool


def split_frontmatter(text: str) -> Frontmatter:
    """Split a page into its YAML frontmatter and body; broken YAML yields empty data plus an error."""
    if text.startswith(BOM):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return Frontmatter({}, "", 0)
    first_nl = text.index("\n") + 1
    close = _FRONTMATTER_CLOSE.search(text, first_nl)
    if close is None:
        return Frontmatter({}, "", 0, "frontmatter starts with --- but is never closed")
    yaml_text = text[first_nl : close.start()]
    body_start = close.end()
    if body_start < len(text) and text[body_start] == "\n":
        body_start += 1
    try:
        data = load_simple(yaml_text) if yaml_text.strip() else {}
    except Exception as err:
        return _broken(yaml_text, body_start, err)
    if data is None:
        data = _load_yaml(yaml_text, body_start)
        if isinstance(data, Frontmatter):  # refused or broken
            return data
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return Frontmatter({}, yaml_text, body_start, "frontmatter is not a key: value mapping")
    return Frontmatter({str(k): v for k, v in data.items()}, yaml_text, body_start)


def _load_yaml(yaml_text: str, body_start: int) -> Any:
    """What PyYAML reads from `yaml_text`, or the Frontmatter that says why it is not read."""
    import yaml

    try:
        refused = _refuse_yaml(yaml_text)
        if refused:
            return Frontmatter({}, yaml_text, body_start, refused)
        return yaml.load(yaml_text, Loader=_yaml_loader())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = " ".join(str(getattr(err, "problem", None) or "invalid YAML").split())
        return Frontmatter({}, yaml_text, body_start, f"broken frontmatter{where}: {problem}")
    except Exception as err:
        return _broken(yaml_text, body_start, err)


def _broken(yaml_text: str, body_start: int, err: Exception) -> Frontmatter:
    return Frontmatter({}, yaml_text, body_start, "broken frontmatter: " + " ".join(str(err).split()))


# Frontmatter is a few hundred bytes of keys; beyond these it is not frontmatter but an attack
# or an accident, and reading it would cost minutes and gigabytes. A YAML alias repeats what
# its anchor holds, so a few nested ones ("billion laughs", 73 aliases) stand for billions of
# values: what counts is the size the aliases expand to, not how many there are.
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_YAML_NODES = 10_000


def _refuse_yaml(yaml_text: str) -> str | None:
    """Why this YAML is not parsed (too large, expanding too far), or None to parse it."""
    if len(yaml_text) > MAX_FRONTMATTER_CHARS:
        return (
            f"frontmatter is {len(yaml_text) // 1024} KB, more than "
            f"{MAX_FRONTMATTER_CHARS // 1024} KB: read without it"
        )
    if "&" not in yaml_text or "*" not in yaml_text:
        return None  # no anchor, or nothing refers to one: nothing can expand
    import yaml

    try:
        nodes = _expanded_nodes(yaml_text)
    except yaml.YAMLError:
        return None  # the loader reports it, with its line
    if nodes > MAX_YAML_NODES:
        return (
            f"frontmatter's YAML aliases expand to more than {MAX_YAML_NODES:,} values: "
            "read without it"
        )
    return None


def _expanded_nodes(yaml_text: str) -> int:
    """How many values the YAML holds once every alias is replaced by what it names, counted
    from the parser's events (no value is built); stops counting past the budget."""
    import yaml

    sizes: dict[str, int] = {}  # anchor -> values it stands for
    open_nodes: list[tuple[str | None, int]] = []  # collections being read: (anchor, total so far)
    total = 0
    for event in yaml.parse(yaml_text, Loader=_yaml_loader()):
        if isinstance(event, yaml.CollectionStartEvent):
            open_nodes.append((event.anchor, total))
            total += 1
        elif isinstance(event, yaml.CollectionEndEvent) and open_nodes:
            anchor, start = open_nodes.pop()
            if anchor:
                sizes[anchor] = total - start
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            total += sizes.get(event.anchor or "", 1)
        if total > MAX_YAML_NODES:
            break
    return total


def code_fence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of fenced code blocks (an unclosed fence runs to the end of the text)."""
    if "```" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    open_start = -1
    open_char = ""
    open_len = 0
    for m in _FENCE_LINE.finditer(text):
        marker = m.group(1)
        if open_start < 0:
            open_start, open_char, open_len = m.start(), marker[0], len(marker)
        elif marker[0] == open_char and len(marker) >= open_len and not m.group(2).strip():
            spans.append((open_start, m.end()))
            open_start = -1
    if open_start >= 0:
        spans.append((open_start, len(text)))
    return spans


def _mask_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Blank out spans while keeping offsets (so positions stay valid)."""
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(re.sub(r"[^\n]", " ", text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def mask_code(text: str) -> str:
    """The text with fenced blocks and inline code spans blanked out, offsets preserved."""
    if "`" not in text and "~~~" not in text:
        return text
    masked = _mask_spans(text, code_fence_spans(text))
    if "`" not in masked:
        return masked
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), masked)


def extract_links(
    body: str, frontmatter_text: str = "", *, masked: str | None = None
) -> list[WikiLink]:
    """Every [[wiki-link]] in the frontmatter and the body, ignoring links inside code."""
    links: list[WikiLink] = []
    for text, in_frontmatter in _texts_with_links(body, frontmatter_text, masked):
        links.extend(_links_in(text, in_frontmatter=in_frontmatter))
    return links


def _texts_with_links(
    body: str, frontmatter_text: str, masked: str | None
) -> Iterator[tuple[str, bool]]:
    """The frontmatter, then the body with its code masked, each only when it holds a link:
    (text, whether it is the frontmatter)."""
    if frontmatter_text and "[[" in frontmatter_text:
        yield frontmatter_text, True
    if "[[" in body:
        yield (mask_code(body) if masked is None else masked), False


def _links_in(text: str, *, in_frontmatter: bool) -> list[WikiLink]:
    out = []
    for m in WIKI_LINK.finditer(text):
        embed, target, heading, label = m.group(EMBED, TARGET, HEADING, LABEL)
        out.append(
            WikiLink(
                _target(target),
                heading[1:].strip() if heading else None,
                label.strip() if label is not None else None,
                bool(embed),
                in_frontmatter,
            )
        )
    return out


def link_targets(body: str, frontmatter_text: str = "", *, masked: str | None = None) -> list[str]:
    """The targets of `extract_links`, in the same order, without building a link for each
    (reading a vault needs only these: ~15% of parsing a page went into the links)."""
    return [
        _target(target)
        for text, _ in _texts_with_links(body, frontmatter_text, masked)
        for target, _heading, _label in LINK_PARTS.findall(text)
    ]


def _target(raw: str) -> str:
    # Inside Markdown tables Obsidian writes [[target\\|label]]; the backslash is not part of
    # the target.
    return raw.strip().rstrip("\\").strip()


def first_heading(body: str, *, masked: str | None = None) -> str | None:
    """The text of the first level-1 heading outside code, if any."""
    if "# " not in body and "#\t" not in body:
        return None
    m = _H1.search(mask_code(body) if masked is None else masked)
    if m is None:
        return None
    title = body[m.start(1) : m.end(1)].strip()
    return title or None


def split_lead(body: str, limit: int = 600, *, masked: str | None = None) -> tuple[str, str]:
    """The first paragraph of prose (where a page says what it is; headings, tables, quotes
    and code skipped), cut to `limit` characters, and the rest of the body."""
    start, end = lead_span(body, limit, masked=masked)
    return body[start:end], body[:start] + body[end:]


def lead_span(body: str, limit: int = 600, *, masked: str | None = None) -> tuple[int, int]:
    """Where `split_lead`'s lead is in `body`: (start, end), (0, 0) when there is none."""
    if masked is None:
        masked = mask_code(body)
    pos = 0
    start = end = -1
    for line in masked.splitlines(keepends=True):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "---", "|", ">")):
            if start >= 0:
                break
        elif start < 0:
            start, end = pos, pos + len(line)
        else:
            end = pos + len(line)
        pos += len(line)
    if start < 0:
        return 0, 0
    return start, min(end, start + limit)


def lead_paragraph(body: str, limit: int = 600) -> str:
    """The first paragraph of prose, on one line."""
    return " ".join(split_lead(body, limit)[0].split())


def summary_line(body: str, limit: int = 100) -> str:
    """The plugin's summary: the first non-empty body line not starting with # or ---, cut to `limit`."""
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and not line.startswith("---"):
            return line[:limit]
    return ""


def as_str_list(value: Any) -> list[str]:
    """Frontmatter lists come as a list, a single string, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list | tuple | set):
        out = []
        for item in value:
            if item is None or isinstance(item, dict | list):
                continue
            s = str(item).strip()
            if s:
                out.append(s)
        return out
    return [str(value).strip()] if str(value).strip() else []


def as_bool(value: Any) -> bool | None:
    """YAML booleans plus the strings people actually type ("true", "yes", "false", "no")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in {"true", "yes", "on", "1"}:
            return True
        if lowered in {"false", "no", "off", "0"}:
            return False
    if isinstance(value, int):
        return bool(value)
    return None
