"""Splitting a page into chunks (Stage 0's embeddings, the passages, the source notes): at
headings, then paragraphs, then lines.

Every chunk is an exact slice of the page text (`text[start:end]`, CRLF and BOM included) and
knows its byte offsets in the file. A fenced code block that fits the budget is never cut; a
bigger one is cut between its lines, and each piece is re-balanced with fence lines of the
block's own marker and language, so a piece never reads as prose or leaves a fence open. A
line longer than the whole budget is the one case cut mid-line; offsets stay exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from wikiq.text.sentences import CLAUSE_END
from wikiq.vault.markdown import BOM, code_fence_spans, split_frontmatter

DEFAULT_BUDGET = 1200  # characters of page text per chunk
DEFAULT_OVERLAP = 150  # characters repeated at a cut inside a section
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*\r?\n?\Z")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")
# Where prose may be cut when no line break is near: after a sentence, then at any space.
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Chunk:
    """A slice of a page: `page_text[start:end] == text`; bytes `[byte_start, byte_end)`."""

    start: int
    end: int
    byte_start: int
    byte_end: int
    text: str
    heading: str = ""  # the headings above the chunk, "Setup > Linux"
    fence_open: str = ""  # a fence line put before `text` when it starts inside a code block
    fence_close: str = ""  # and after it when it ends inside one

    @property
    def balanced(self) -> str:
        """The chunk with every code fence it touches opened and closed (for embedding)."""
        return self.fence_open + self.text + self.fence_close


class _Block(NamedTuple):
    """(A tuple: building frozen dataclasses took a sixth of the cutting, 61 -> 51 us a
    generated page.)"""

    start: int
    end: int  # includes the blank lines after the block
    kind: str  # "heading", "fence", "text"
    level: int = 0  # heading level
    title: str = ""  # heading text
    fence: tuple[int, int] | None = None  # the fence itself, without trailing blank lines


def chunk_page(
    text: str, *, budget: int = DEFAULT_BUDGET, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """The chunks of a page's body (frontmatter skipped), in order, each at most `budget`
    characters once balanced; consecutive pieces of one section overlap by up to `overlap`."""
    if budget < 40:
        raise ValueError("a chunk budget below 40 characters cannot hold a fenced line")
    body_start = _body_start(text)
    spans = _chunk_spans(text, body_start, budget, max(0, min(overlap, budget // 3)))
    offsets = _byte_offsets(text, sorted({p for s in spans for p in (s[0], s[1])}))
    return [
        Chunk(s, e, offsets[s], offsets[e], text[s:e], heading, fo, fc)
        for s, e, heading, fo, fc in spans
    ]


def section_spans(body: str, *, budget: int) -> list[tuple[int, int]]:
    """Where `chunk_page` would cut a body that has no frontmatter left (a page's parsed
    body, whose first line may be a rule), without overlap: (start, end) offsets, in order."""
    return [(s, e) for s, e, *_ in _chunk_spans(body, 0, budget, 0)]


def _body_start(text: str) -> int:
    bom = 1 if text.startswith(BOM) else 0
    return bom + split_frontmatter(text).body_start


# --- blocks ------------------------------------------------------------------------------


def _blocks(text: str, start: int) -> list[_Block]:
    """The body as consecutive blocks: headings, fenced code, paragraphs (each with the blank
    lines after it); fences are found first so `# comment` in code is never a heading."""
    body = text[start:]
    fences = iter([(start + s, start + e) for s, e in code_fence_spans(body)])
    next_fence = next(fences, None)
    # The blocks tile the body from the first one on: each ends where the next one starts
    # (the blank lines after a block are its own), the last at the end of the text. So each
    # is noted once, where it starts, and given its end at the end.
    found: list[tuple[int, str, int, str, tuple[int, int] | None]] = []
    in_paragraph = False
    fence_end = start  # lines before this are in the code block found last
    pos = start
    for line in body.split("\n"):  # (a last piece after a final newline is empty: blank)
        ls, pos = pos, pos + len(line) + 1
        if ls < fence_end:
            continue
        if next_fence is not None and ls >= next_fence[0]:
            fs, fe = next_fence
            fence_end = _line_end(text, fe)
            found.append((fs, "fence", 0, "", (fs, fence_end)))
            in_paragraph = False
            next_fence = next(fences, None)
            continue
        if not line.strip():
            in_paragraph = False  # blank lines belong to the block before them
            continue
        heading = _HEADING.match(line)
        if heading:
            title = (heading.group(2) or "").strip()
            found.append((ls, "heading", len(heading.group(1)), title, None))
            in_paragraph = False
        elif not in_paragraph:
            found.append((ls, "text", 0, "", None))
            in_paragraph = True
    if not found:
        return []
    ends = [block[0] for block in found[1:]] + [len(text)]
    return [
        _Block(bs, end, kind, level, title, fence)
        for (bs, kind, level, title, fence), end in zip(found, ends, strict=True)
    ]


def _line_end(text: str, pos: int) -> int:
    """Just past the newline ending the line that holds `pos - 1` (fence spans stop before it)."""
    if pos < len(text) and text[pos] == "\n":
        return pos + 1
    return pos


# --- packing -----------------------------------------------------------------------------

_Span = tuple[int, int, str, str, str]  # start, end, heading path, fence open, fence close


def _chunk_spans(text: str, start: int, budget: int, overlap: int) -> list[_Span]:
    blocks = _blocks(text, start)
    fences = [b.fence for b in blocks if b.fence is not None]
    spans: list[_Span] = []
    path: list[tuple[int, str]] = []
    cur_start = -1
    cur_end = -1
    cur_heading = ""

    def flush() -> None:
        nonlocal cur_start
        if cur_start >= 0:
            _emit(spans, text, cur_start, cur_end, cur_heading)
            cur_start = -1

    heading = ""  # the path's titles joined, redone only when a heading changes the path
    for block in blocks:
        if block.kind == "heading":
            # A heading is the preferred place to cut, unless the chunk so far is short.
            if cur_start >= 0 and cur_end - cur_start >= budget // 2:
                flush()
            while path and path[-1][0] >= block.level:
                path.pop()
            if block.title:
                path.append((block.level, block.title))
            heading = " > ".join(title for _, title in path)
        reach = _reach(text, block)
        size = reach - block.start
        if size > budget:
            flush()
            if block.kind == "fence" and block.fence is not None:
                spans.extend(_split_fence(text, block.fence, budget, overlap, heading))
            else:
                spans.extend(_split_prose(text, block.start, reach, budget, overlap, heading))
            continue
        if cur_start < 0:
            cur_start, cur_end, cur_heading = block.start, block.end, heading
        elif reach - cur_start <= budget:
            cur_end = block.end
        else:
            prev_start, prev_end = cur_start, cur_end
            flush()
            back = _overlap_start(
                text, prev_start, prev_end, block.start, reach, budget, overlap, fences
            )
            if block.kind == "heading":
                back = block.start  # never repeat the end of one section at the top of the next
            cur_start, cur_end, cur_heading = back, block.end, heading
    flush()
    return spans


def _reach(text: str, block: _Block) -> int:
    """Where a block's content ends (blank lines after it do not count), plus the fence line
    a chunk has to add when the block is a code block left open at the end of the page."""
    stop = block.start + len(text[block.start : block.end].rstrip())
    if block.kind == "fence":
        stop += len(_unclosed_fence_closer(text[block.start : stop]))
    return stop


def _emit(spans: list[_Span], text: str, start: int, end: int, heading: str) -> None:
    start, end = _trim(text, start, end)
    if end > start:
        spans.append((start, end, heading, "", _unclosed_fence_closer(text[start:end])))


def _unclosed_fence_closer(piece: str) -> str:
    """The closing line for a code block left open at the end of the page, else ""."""
    spans = code_fence_spans(piece)
    if not spans:
        return ""
    fs, fe = spans[-1]
    lines = piece[fs:fe].split("\n")
    opener = _FENCE_OPEN.match(lines[0])
    marker = opener.group(1) if opener else "```"
    if len(lines) > 1 and _is_closer(lines[-1], marker):
        return ""
    return ("\r\n" if lines[0].endswith("\r") else "\n") + marker


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop blank lines before and whitespace after, so a chunk starts and ends with content."""
    while start < end:
        nl = text.find("\n", start, end)
        line_end = end if nl < 0 else nl + 1
        if text[start:line_end].strip():
            break
        start = line_end
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _overlap_start(
    text: str,
    prev_start: int,
    prev_end: int,
    block_start: int,
    reach: int,
    budget: int,
    overlap: int,
    fences: list[tuple[int, int]],
) -> int:
    """Where the next chunk starts: a line or sentence start within `overlap` characters before
    the previous chunk's end, outside any code block, if the result still fits the budget."""
    if overlap <= 0:
        return block_start
    earliest = max(reach - budget, prev_end - overlap, prev_start + 1)
    for cut in _cut_points(text, earliest, prev_end):
        if any(fs < cut < fe for fs, fe in fences):
            continue
        return cut
    return block_start


def _cut_points(text: str, lo: int, hi: int) -> Iterator[int]:
    """Positions in [lo, hi) after a newline, then after a sentence end, earliest first."""
    if lo >= hi:
        return
    window = text[lo:hi]
    seen: set[int] = set()
    lines = [lo + i + 1 for i, ch in enumerate(window) if ch == "\n" and lo + i + 1 < hi]
    sentences = [lo + m.end() for m in CLAUSE_END.finditer(window) if lo + m.end() < hi]
    for cut in [*lines, *sentences]:
        if cut > lo and cut not in seen:
            seen.add(cut)
            yield cut


def _split_prose(
    text: str, start: int, end: int, budget: int, overlap: int, heading: str
) -> list[_Span]:
    """A paragraph bigger than the budget: cut at line ends, then sentence ends, then spaces."""
    out: list[_Span] = []
    pos = start
    while pos < end:
        cut = end if end - pos <= budget else _best_cut(text, pos, pos + budget)
        s, e = _trim(text, pos, cut)
        if e > s:
            out.append((s, e, heading, "", ""))
        if cut >= end:
            break
        nxt = cut
        if overlap > 0:
            for back in _cut_points(text, max(pos + 1, cut - overlap), cut):
                nxt = back
                break
        pos = nxt if nxt > pos else cut
    return out


def _best_cut(text: str, lo: int, hi: int) -> int:
    """The latest good place to end a piece that starts at `lo` and may reach `hi`."""
    half = lo + (hi - lo) // 2
    nl = text.rfind("\n", half, hi)
    if nl >= 0:
        return nl + 1
    window = text[half:hi]
    ends = [half + m.end() for m in CLAUSE_END.finditer(window) if half + m.end() <= hi]
    if ends:
        return ends[-1]
    spaces = [half + m.end() for m in _SPACE.finditer(window) if half + m.end() <= hi]
    if spaces:
        return spaces[-1]
    return hi


def _split_fence(
    text: str, fence: tuple[int, int], budget: int, overlap: int, heading: str
) -> list[_Span]:
    """A code block bigger than the budget, cut between its lines; every piece opens and closes
    with fence lines of the block's own marker and language."""
    fs, fe = fence
    lines = [(fs + m.start(), fs + m.end()) for m in _LINE.finditer(text[fs:fe])]
    opener = _FENCE_OPEN.match(text, fs)
    marker = opener.group(1) if opener else "```"
    language = opener.group(2) if opener else ""
    newline = "\r\n" if text[lines[0][0] : lines[0][1]].endswith("\r\n") else "\n"
    closed = len(lines) > 1 and _is_closer(text[lines[-1][0] : lines[-1][1]], marker)
    open_line = f"{marker}{language}{newline}"
    if len(open_line) * 2 + 8 > budget:  # a language name too long to repeat: keep the marker
        open_line = f"{marker}{newline}"
    # Room for code once both fence lines are added (a marker longer than the budget allows
    # is absurd; then pieces may run over rather than never end).
    room = max(budget - 2 * len(open_line) - len(newline), 8)

    def blank(n: int) -> bool:
        return not text[lines[n][0] : lines[n][1]].strip()

    pieces: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        while i < len(lines) - 1 and blank(i):
            i += 1  # a piece starts with code, not with the blank lines before it
        piece_start = lines[i][0]
        j = i
        while j < len(lines) and lines[j][1] - piece_start <= room:
            j += 1
        if j == i:  # one line longer than the room: the degenerate case, cut inside it
            ls, le = lines[i]
            pieces.extend((p, min(p + room, le)) for p in range(ls, le, room))
            i += 1
            continue
        pieces.append((piece_start, lines[j - 1][1]))
        fresh = j  # the next piece must reach a line this one lacks (blank lines do not count)
        while fresh < len(lines) and blank(fresh):
            fresh += 1
        if fresh >= len(lines):
            break
        # Repeat whole lines from the end of this piece, up to `overlap` characters.
        k = j
        while k - 1 > i and lines[j - 1][1] - lines[k - 1][0] <= overlap:
            k -= 1
        while k < j and lines[fresh][1] - lines[k][0] > room:
            k += 1
        i = k
    out: list[_Span] = []
    for ps, pe in pieces:
        s, e = _trim(text, ps, pe)
        if e <= s:
            continue
        fo = "" if s == fs else open_line
        fc = "" if closed and e > lines[-1][0] else newline + marker
        out.append((s, e, heading, fo, fc))
    return out


def _is_closer(line: str, marker: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and bool(stripped)
        and set(stripped) == {marker[0]}
        and len(stripped) >= len(marker)
    )


def _byte_offsets(text: str, positions: list[int]) -> dict[int, int]:
    """UTF-8 byte offset of each character position (positions sorted ascending)."""
    out: dict[int, int] = {}
    done_chars = 0
    done_bytes = 0
    for pos in positions:
        done_bytes += len(text[done_chars:pos].encode("utf-8", errors="surrogatepass"))
        done_chars = pos
        out[pos] = done_bytes
    return out
