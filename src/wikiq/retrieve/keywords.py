"""Stage 2: ask a model for the question's keywords (only when titles and bodies match weakly).

The model names concepts; it never sees or picks pages, so no page can fall outside a window
(the plugin's position-1,410 bug). Whatever the model returns — JSON, fenced JSON, a list,
prose around it, or nothing — parsing degrades to fewer keywords, never to an error.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from wikiq.errors import WikiqError
from wikiq.llm.base import ChatModel, Message, Usage

MAX_KEYWORDS = 10
MAX_WORDS_PER_KEYWORD = 5
KEYWORD_MAX_TOKENS = 1000

KEYWORD_SYSTEM_PROMPT = """You are a multilingual query keyword extractor for a personal wiki search system.
Given a user's question, output 5-10 keywords that would match the TITLES or ALIASES of wiki pages about it.
Rules:
- Detect the question's language. Give keywords in that language, and ALWAYS add the English equivalent of each key term as well.
- Include synonyms, abbreviations, full names and closely related domain terms.
- Prefer concrete nouns and short noun phrases (1-5 words); keep names and technical terms verbatim.
- Never output the whole question, language codes, or explanations.
- Most specific keywords first.
Output ONLY JSON: {"keywords": ["...", "..."]}"""

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$", re.MULTILINE)


def keyword_messages(question: str) -> list[Message]:
    # The question goes in as quoted data; the rules live only in the system message.
    return [
        Message("system", KEYWORD_SYSTEM_PROMPT),
        Message(
            "user",
            f"User question: {json.dumps(question, ensure_ascii=False)}\n\nExtract 5-10 searchable keywords for the wiki as JSON.",
        ),
    ]


def parse_keywords(text: str) -> list[str]:
    """Keywords from whatever a model wrote; [] when there are none."""
    text = _THINK.sub(" ", text or "").strip()
    if not text:
        return []
    candidates: list[str] = [m.group(1) for m in _FENCE.finditer(text)]
    candidates.append(text)
    for chunk in candidates:
        found = _from_json(chunk)
        if found:
            return _clean(found)
    items = _LIST_ITEM.findall(text)
    if len(items) >= 2:
        return _clean(items)
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) == 1 and ("," in lines[0] or "，" in lines[0] or "、" in lines[0]):
        return _clean(re.split(r"[,，、;；]", lines[0].split(":", 1)[-1]))
    if 2 <= len(lines) <= MAX_KEYWORDS * 2 and all(
        len(line.split()) <= MAX_WORDS_PER_KEYWORD for line in lines
    ):
        return _clean(lines)
    return []


def _from_json(chunk: str) -> list[str]:
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"[\[{]", chunk)):
        try:
            value, _ = decoder.raw_decode(chunk, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            value = value.get(
                "keywords", next((v for v in value.values() if isinstance(v, list)), [])
            )
        if isinstance(value, list):
            strings = [v for v in value if isinstance(v, str)]
            if strings:
                return strings
    return []


def _clean(items: list[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        kw = item.strip().strip("\"'`“”‘’「」").strip()
        kw = re.sub(r"\s+", " ", kw)
        if not kw or len(kw.split()) > MAX_WORDS_PER_KEYWORD or len(kw) > 80:
            continue
        key = kw.lower()
        if key not in seen:
            seen.add(key)
            out.append(kw)
        if len(out) == MAX_KEYWORDS:
            break
    return out


class KeywordExtractor:
    """Calls a model for keywords, caching each question's answer on disk."""

    def __init__(self, model: ChatModel, cache_dir: Path | None = None) -> None:
        self.model = model
        self.cache_dir = cache_dir
        self.last_error: str | None = None

    def _cache_file(self, question: str) -> Path | None:
        if self.cache_dir is None:
            return None
        key = hashlib.sha1(f"{self.model.name}\0{question}".encode()).hexdigest()
        return self.cache_dir / f"{key}.json"

    def __call__(self, question: str) -> list[str]:
        """Keywords for `question`; [] if the model fails (the cascade then moves on)."""
        return self.extract(question)[0]

    def extract(self, question: str) -> tuple[list[str], Usage]:
        """Keywords for `question` and the tokens the model spent on them (none when cached)."""
        self.last_error = None
        cached = self._read_cache(question)
        if cached is not None:
            return cached, Usage()
        try:
            reply = self.model.complete(
                keyword_messages(question), max_tokens=KEYWORD_MAX_TOKENS, json_mode=True
            )
        except WikiqError as err:
            self.last_error = str(err)
            return [], Usage()
        keywords = parse_keywords(reply.text)
        if not keywords and reply.reasoning:
            # A reasoning model that spent its budget thinking: its thoughts name the concepts.
            keywords = parse_keywords(reply.reasoning)
        if keywords:
            self._write_cache(question, keywords)
        return keywords, reply.usage

    def _read_cache(self, question: str) -> list[str] | None:
        path = self._cache_file(question)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return [k for k in data if isinstance(k, str)] if isinstance(data, list) else None

    def _write_cache(self, question: str, keywords: list[str]) -> None:
        path = self._cache_file(question)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(keywords, ensure_ascii=False), encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs a repeated model call


class CountingKeywords:
    """One answer's keyword source: the shared extractor, plus the tokens this answer spent.

    The extractor is shared by every question (and by the web server's threads); the tokens
    are counted per answer, so each answer reports what its own keywords cost."""

    def __init__(self, extractor: KeywordExtractor) -> None:
        self.extractor = extractor
        self.usage = Usage()

    def __call__(self, question: str) -> list[str]:
        keywords, usage = self.extractor.extract(question)
        self.usage.add(usage)
        return keywords
