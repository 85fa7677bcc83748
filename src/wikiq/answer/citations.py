"""Checking citations as the answer streams: every `[[link]]` resolved, normalised or flagged.

A link to a loaded page becomes `[[__WIKI_FOLDER__/<type>/<slug>]]` whatever form the model
wrote (bare slug, no prefix, an old folder name, a title). A link to a page that exists but was
not loaded keeps its link and gets a visible mark; a link to no page is unlinked and marked.
In a pureLLM answer every link is removed (there is nothing to cite). The model's
`## References` section is held back and replaced by one rebuilt from what was really cited.
With numbered citations (`--cite numbered`, llm_wiki's style) each accepted link becomes `[n]`,
numbered in order of first citation, and the References lines carry the same numbers.

Links are checked while streaming: the checker holds back only an unfinished `[[…`, a possible
placeholder, or a line that may turn out to be the References heading, so the text shown while
streaming is exactly the final, checked text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from wikiq.answer.context import clean_page_text
from wikiq.answer.placeholder import PLACEHOLDER, partial_suffix
from wikiq.answer.prompts import REFERENCES_HEADING
from wikiq.text.scripts import mostly_cjk
from wikiq.text.sentences import SHORT_END
from wikiq.text.wiki_links import EMBED, TARGET, WIKI_LINK, link_inner
from wikiq.vault.catalog import Catalog
from wikiq.vault.markdown import CALLOUT

MARK_NOT_READ = "[⚠ not read for this answer]"
MARK_NO_PAGE = "[⚠ no such page in the vault]"
NOTHING_CITED = "*The answer cites no page; these are the pages it was given:*"
REMOVED_NOTE = "*Removed from the references (not pages this answer read):* "
MAX_LINK_CHARS = 300
MAX_DESCRIPTION_CHARS = 140
MAX_DESCRIPTION_CHARS_CJK = 60

# "References" in the languages answers come in; the rebuilt section always says References.
_REFERENCE_WORDS = frozenset(
    {
        "references",
        "reference",
        "sources",
        "citations",
        "参考文献",
        "参考资料",
        "参考",
        "引用",
        "参考來源",
        "參考文獻",
        "出典",
        "参照",
        "références",
        "referencias",
        "referências",
        "riferimenti",
        "quellen",
        "referenzen",
        "참고 문헌",
        "참고문헌",
        "출처",
    }
)
# What a kept link cites: ("note", its path) or ("page", its number in the catalog).
Cited = tuple[str, str | int]
_HEADING_PREFIX = re.compile(r"^[\s#*_]*")
_HEADING_SUFFIX = re.compile(r"[\s:：*_#]*$")
_DESCRIPTION_LEAD = re.compile(r"^[\s\-–—:：|,]+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s*")


@dataclass(frozen=True)
class CitedPage:
    index: int
    path: str
    title: str
    type: str


@dataclass(frozen=True)
class ReferenceLine:
    index: int  # page number; -1 for a source note
    path: str
    title: str
    description: str
    note: bool = False  # a source note (its link has no wiki-folder placeholder)


@dataclass(frozen=True)
class CitedNote:
    path: str  # vault-relative, no `.md`
    title: str


def is_references_heading(line: str) -> bool:
    """`## References`, `**References:**`, `参考文献：` … as a line of its own."""
    core = _HEADING_SUFFIX.sub("", _HEADING_PREFIX.sub("", line)).lower()
    return core in _REFERENCE_WORDS


def _could_be_references_heading(partial: str) -> bool:
    head = _HEADING_PREFIX.sub("", partial).lower()
    core = _HEADING_SUFFIX.sub("", head)
    if len(head) > 30:
        return False
    if core != head.rstrip() and core not in _REFERENCE_WORDS:
        return False  # punctuation after something that is not a heading word
    return any(word.startswith(core) for word in _REFERENCE_WORDS)


class LinkChecker:
    """Resolves the links of one answer against the vault and the pages that were loaded."""

    def __init__(
        self,
        catalog: Catalog,
        loaded: Iterable[int],
        *,
        pure_llm: bool,
        notes: Mapping[str, str] | None = None,
    ) -> None:
        self.catalog = catalog
        self.loaded = list(dict.fromkeys(loaded))
        self._loaded_set = set(self.loaded)
        self.pure_llm = pure_llm
        self.cited: list[int] = []  # loaded pages cited, in order of first citation
        self.flagged: list[str] = []  # link targets as written, raw (placeholder) form
        # Source notes an excerpt of which was in the context: path -> title. Only these
        # may be cited; a note whose text the model never saw is no evidence.
        self.notes = dict(notes or {})
        self._notes_lower = {p.lower(): p for p in self.notes}
        self.cited_notes: list[str] = []

    def resolve_note(self, target: str) -> str | None:
        """The loaded note a link names (`raw/papers/orca`, `.md` or not), else None."""
        t = target.strip().rstrip("\\").strip().lstrip("/")
        if t.startswith(PLACEHOLDER + "/"):
            return None  # the model's page form: never a note
        t = t.removesuffix(".md").removesuffix(".MD")
        return self._notes_lower.get(t.lower())

    def resolve(self, target: str) -> int | None:
        t = target.strip().rstrip("\\").strip()
        if t.startswith(PLACEHOLDER):
            t = t[len(PLACEHOLDER) :]
        t = t.lstrip("/")
        if not t:
            return None
        return self.catalog.find(t)

    def check(self, inner: str) -> str:
        """The replacement (raw form) for `[[inner]]` written by the model."""
        return self.cite(inner)[0]

    def cite(self, inner: str) -> tuple[str, Cited | None]:
        """The replacement for `[[inner]]`, and what it cites when it is kept as a citation:
        ("note", path) or ("page", number); None for a link marked or unlinked."""
        target_part, _, label = inner.partition("|")
        target, hash_, heading = target_part.partition("#")
        label = label.strip().rstrip("\\").strip()
        if self.pure_llm:
            self._flag(target_part)
            return label or _readable(target) or inner.strip(), None
        note = self.resolve_note(target)
        if note is not None:  # before pages: `raw/papers/orca` must not become `entities/orca`
            if note not in self.cited_notes:
                self.cited_notes.append(note)
            return f"[[{note}{'|' + label if label else ''}]]", ("note", note)
        if self.is_note_link(target):  # a note whose text was not in the context
            self._flag(target_part)
            return f"{label or f'`{target.strip()}`'} {MARK_NOT_READ}", None
        i = self.resolve(target)
        if i is None:
            self._flag(target_part)
            # Without a label, show the path the model made up, as a path (not as prose).
            shown = label or f"`{target.strip().rstrip(chr(92)).strip()}`"
            return f"{shown} {MARK_NO_PAGE}", None
        page = self.catalog.pages[i]
        keep_label = label and label.lower() not in {page.name.lower(), page.path.lower()}
        link = (
            f"[[{PLACEHOLDER}/{page.path}"
            f"{hash_ + heading.strip() if heading.strip() else ''}"
            f"{'|' + label if keep_label else ''}]]"
        )
        if i in self._loaded_set:
            if i not in self.cited:
                self.cited.append(i)
            return link, ("page", i)
        self._flag(target_part)
        return f"{link} {MARK_NOT_READ}", None

    def is_loaded(self, i: int) -> bool:
        return i in self._loaded_set

    def _flag(self, target: str) -> None:
        t = target.strip().rstrip("\\").strip()
        if t and t not in self.flagged:
            self.flagged.append(t)

    def cited_pages(self) -> list[CitedPage]:
        return [self._cited(i) for i in self.cited]

    def is_note_link(self, target: str) -> bool:
        """A link to a note outside the wiki folder (a file of the vault, not a page): it must
        never fall through to a page of the same name."""
        location = self.catalog.location
        t = target.strip().rstrip("\\").strip().lstrip("/").removesuffix(".md")
        if location.layout != "llm-wiki" or "/" not in t or t.startswith(PLACEHOLDER):
            return False
        if t.lower().startswith(f"{location.wiki_folder.lower()}/"):
            return False
        try:
            return (location.vault / f"{t}.md").is_file()
        except (OSError, ValueError):
            return False

    def cited_note_list(self) -> list[CitedNote]:
        return [CitedNote(p, self.notes[p]) for p in self.cited_notes]

    def _cited(self, i: int) -> CitedPage:
        page = self.catalog.pages[i]
        return CitedPage(i, page.path, page.title, page.type)


class CitationChecker:
    """Feed the model's raw text as it streams; get back the checked raw text to show."""

    def __init__(self, links: LinkChecker, *, numbered: bool = False) -> None:
        self.links = links
        self.numbered = numbered
        self._numbers: dict[Cited, int] = {}  # cited thing -> its [n]
        self.raw_text = ""  # checked text so far, placeholder form
        self.references: list[ReferenceLine] = []
        self._buf = ""
        self._at_line_start = True
        self._in_references = False
        self._references_raw = ""
        self._finished = False

    @property
    def has_text(self) -> bool:
        """Whether the model has written anything at all (held-back text included)."""
        return bool(self.raw_text.strip() or self._buf.strip() or self._references_raw.strip())

    def feed(self, chunk: str) -> str:
        """Checked text that can be shown now (raw form); the rest is held back."""
        self._buf += chunk
        out = self._drain(final=False)
        self.raw_text += out
        return out

    def finish(self) -> str:
        """The held-back text and the rebuilt References section (raw form)."""
        if self._finished:
            return ""
        self._finished = True
        out = self._drain(final=True)
        body = self.raw_text + out
        tail = self._references_section()
        if tail and body.strip():
            tail = _separator(body) + tail
        self.raw_text = body + tail
        return out + tail

    # --- streaming -----------------------------------------------------------------------

    def _drain(self, *, final: bool) -> str:
        out: list[str] = []
        while self._buf:
            if self._in_references:
                self._references_raw += self._buf
                self._buf = ""
                break
            if self._at_line_start:
                nl = self._buf.find("\n")
                line = self._buf if nl < 0 else self._buf[:nl]
                if nl < 0 and not final and _could_be_references_heading(line):
                    break  # wait for the rest of the line
                if (nl >= 0 or final) and is_references_heading(line) and line.strip():
                    self._in_references = True
                    self._buf = "" if nl < 0 else self._buf[nl + 1 :]
                    continue
                self._at_line_start = False
            start = self._buf.find("[[")
            nl = self._buf.find("\n")
            if nl >= 0 and (start < 0 or nl < start):
                out.append(self._buf[: nl + 1])
                self._buf = self._buf[nl + 1 :]
                self._at_line_start = True
                continue
            if start < 0:
                held = 0 if final else partial_suffix(self._buf, "[[", PLACEHOLDER)
                out.append(self._buf[: len(self._buf) - held])
                self._buf = self._buf[len(self._buf) - held :]
                break
            out.append(self._buf[:start])
            self._buf = self._buf[start:]
            close = self._buf.find("]]")
            nl = self._buf.find("\n")
            if close >= 0 and (nl < 0 or close < nl):
                out.append(self._cite(self._buf[2:close]))
                self._buf = self._buf[close + 2 :]
                continue
            if nl >= 0 or final or len(self._buf) > MAX_LINK_CHARS:
                out.append("[[")  # never closed on its line: not a link
                self._buf = self._buf[2:]
                continue
            break  # an unfinished link: hold it
        return "".join(out)

    def _cite(self, inner: str) -> str:
        """The checked link; with numbered citations an accepted one becomes `[n]` (after its
        label, if the model gave one: "Orca [1]")."""
        checked, key = self.links.cite(inner)
        if key is None or not self.numbered:
            return checked
        n = self._numbers.setdefault(key, len(self._numbers) + 1)
        label = inner.partition("|")[2].strip().rstrip("\\").strip()
        return f"{label} [{n}]" if label else f"[{n}]"

    # --- references ----------------------------------------------------------------------

    def _references_section(self) -> str:
        links = self.links
        described: dict[int, str] = {}
        described_notes: dict[str, str] = {}
        removed: list[str] = []
        trailing: list[str] = []
        for line in self._references_raw.splitlines():
            m = next((m for m in WIKI_LINK.finditer(line) if link_inner(m)), None)
            if m is None:
                text = _LIST_MARK.sub("", line).strip()
                if text and not is_references_heading(line):
                    trailing.append(line.strip())
                continue
            target = m.group(TARGET)
            note = links.resolve_note(target)
            replaced = links.check(link_inner(m))
            if note is not None:
                description = _clean_description(line[m.end() :])
                if description and note not in described_notes:
                    described_notes[note] = description
                continue
            i = links.resolve(target)
            if links.pure_llm:
                continue
            if i is None or not links.is_loaded(i):
                removed.append(replaced)
                continue
            description = _clean_description(line[m.end() :])
            if description and i not in described:
                described[i] = description
        if links.pure_llm:
            return "\n".join(trailing)
        if links.cited:
            chosen, lead = links.cited, ""
        elif links.loaded:
            chosen, lead = links.loaded, NOTHING_CITED
        else:
            chosen, lead = [], ""
        notes = links.cited_note_list()
        if not chosen and not notes:
            return "\n".join(trailing)
        if notes and not links.cited:
            chosen, lead = [], ""  # the answer cites notes only: they are its references
        self.references = [
            ReferenceLine(
                i,
                self.links.catalog.pages[i].path,
                self.links.catalog.pages[i].title,
                described.get(i) or page_description(self.links.catalog, i),
            )
            for i in chosen
        ] + [
            ReferenceLine(-1, n.path, n.title, described_notes.get(n.path, ""), note=True)
            for n in notes
        ]
        lines = [REFERENCES_HEADING, ""]
        if lead:
            lines += [lead, ""]
        if self.numbered and not lead:  # what was really cited: numbered, in that order
            numbers = [self._number(r) for r in self.references]
            order = sorted(zip(numbers, self.references, strict=True), key=lambda pair: pair[0])
            self.references = [r for _, r in order]
            lines += [f"- [{self._number(r)}] {reference_line(r)[2:]}" for r in self.references]
        else:
            lines += [reference_line(r) for r in self.references]
        if removed:
            lines += ["", REMOVED_NOTE + "; ".join(removed)]
        if trailing:
            lines += ["", *trailing]
        return "\n".join(lines) + "\n"

    def _number(self, ref: ReferenceLine) -> int:
        """A reference's [n]; one cited only in the model's References comes after the rest."""
        key: Cited = ("note", ref.path) if ref.note else ("page", ref.index)
        return self._numbers.setdefault(key, len(self._numbers) + 1)


def _separator(body: str) -> str:
    """Newlines that put a blank line between `body` and what follows."""
    if body.endswith("\n\n"):
        return ""
    return "\n" if body.endswith("\n") else "\n\n"


def reference_line(ref: ReferenceLine) -> str:
    title = ref.title.replace("|", "/").replace("]", ")").replace("[", "(")
    target = ref.path if ref.note else f"{PLACEHOLDER}/{ref.path}"
    line = f"- [[{target}|{title}]]"
    return f"{line} — {ref.description}" if ref.description else line


def page_description(catalog: Catalog, i: int) -> str:
    """A brief description of a page for References: the start of its first prose paragraph."""
    body = clean_page_text(catalog.read_body(i), catalog)
    for block in body.split("\n\n"):
        lines = [
            line.strip()
            for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "|", "```", "~~~", "---", ">"))
        ]
        text = " ".join(_LIST_MARK.sub("", line) for line in lines)
        if len(text) >= 20 and not lines[0].lstrip().startswith(("-", "*", "+")):
            return _shorten(text)
    # The summary is the page's first plain line: a callout's "> [!tip] Title" is markup.
    summary = CALLOUT.sub("", (catalog.pages[i].summary or "").lstrip("> ").strip())
    return _shorten(clean_page_text(summary, catalog))


def _clean_description(text: str) -> str:
    text = _DESCRIPTION_LEAD.sub("", clean_page_text(text)).strip()
    return _shorten(text)


def _shorten(text: str) -> str:
    """A short description, ended at a sentence if one ends late enough, else at a word."""
    text = " ".join(text.split())
    limit = MAX_DESCRIPTION_CHARS_CJK if mostly_cjk(text[:200]) else MAX_DESCRIPTION_CHARS
    if len(text) <= limit:
        return text
    window = text[:limit]
    ends = [m.end() for m in SHORT_END.finditer(window)]
    if ends and ends[-1] >= limit * 0.4:
        return window[: ends[-1]]
    cut = window[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(",;:. ，、") + "…"


def _readable(target: str) -> str:
    """`entities/buzz-aldrin` as words: `buzz aldrin`."""
    name = target.strip().rstrip("\\").rsplit("/", 1)[-1]
    return name.removesuffix(".md").replace("-", " ").replace("_", " ").strip()


def links_to_placeholder(text: str, catalog: Catalog) -> str:
    """Every link in `text` that names a page of this vault, rewritten to
    `[[__WIKI_FOLDER__/<path>]]`, whatever folder it was shown with (history after a rename)."""
    if "[[" not in text:
        return text
    links = LinkChecker(catalog, (), pure_llm=False)

    def rewrite(m: re.Match[str]) -> str:
        target, bar, label = link_inner(m).partition("|")
        path, hash_, heading = target.partition("#")
        i = None if not target or links.is_note_link(path) else links.resolve(path)
        if i is None:
            return m.group(0)
        page = catalog.pages[i].path
        return f"{m.group(EMBED)}[[{PLACEHOLDER}/{page}{hash_}{heading}{bar}{label}]]"

    return WIKI_LINK.sub(rewrite, text)


def check_text(links: LinkChecker, raw: str, *, numbered: bool = False) -> CitationChecker:
    """Check a whole text at once (the extractive answer, tests)."""
    checker = CitationChecker(links, numbered=numbered)
    checker.feed(raw)
    checker.finish()
    return checker
