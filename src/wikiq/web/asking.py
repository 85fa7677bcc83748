"""One question's answer as server-sent events, with the blocking answerer kept off the event loop.

`Wiki.ask_stream` is a plain iterator (it waits on the model's HTTP stream), so each step runs
in a worker thread. When the browser goes away the stream is cancelled between steps and the
iterator is closed, which closes the model connection too.

Events: `retrieval` (the search JSON and the graph), `token` (display text), `done` (the whole
answer, the cited pages, where each `[[link]]` goes, the excerpts of the source notes it cites
with the passage that answers marked, and the graph with the cited pages lit), `error` (one
sentence).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from wikiq.answer.answerer import NOTE_TYPE
from wikiq.answer.conversation import MAX_QUESTION_CHARS, history_turns
from wikiq.answer.events import AnswerDone, AnswerEvent, AnswerToken, RetrievalDone
from wikiq.answer.extractive import passage_span
from wikiq.answer.result import Answer, Turn
from wikiq.errors import WikiqError
from wikiq.retrieve.result import Retrieval
from wikiq.text.wiki_links import TARGET, WIKI_LINK
from wikiq.web.graph import answer_graph
from wikiq.wiki import Wiki

log = logging.getLogger("wikiq.web")

T = TypeVar("T")


@dataclass(frozen=True)
class Question:
    text: str
    history: list[Turn]  # earlier turns, oldest first; answers in their raw placeholder form


def parse_question(body: Any) -> Question:
    """The request body `{question, history: [{question, answer}]}`, checked and capped."""
    if not isinstance(body, dict):
        raise WikiqError("Send a JSON object with a 'question'.")
    text = body.get("question")
    if not isinstance(text, str) or not text.strip():
        raise WikiqError("The question is empty: type a question first.")
    if len(text) > MAX_QUESTION_CHARS:
        raise WikiqError(f"The question is too long (more than {MAX_QUESTION_CHARS} characters).")
    raw = body.get("history") or []
    if not isinstance(raw, list):
        raise WikiqError("'history' must be a list of {question, answer} turns.")
    return Question(text.strip(), history_turns(raw))


class AnswerEvents:
    """Answers as SSE dicts for one vault and one model, for many concurrent questions."""

    def __init__(
        self, wiki: Wiki, *, model: str | None = None, limiter: anyio.CapacityLimiter | None = None
    ) -> None:
        self.wiki = wiki
        self.model = model
        self._limiter = limiter

    async def stream(self, question: Question) -> AsyncIterator[dict[str, Any]]:
        """SSE events for one question; errors become an `error` event, never a broken stream."""
        events: Iterator[AnswerEvent] | None = None
        try:
            events = await self._in_thread(self._open, question)
            while True:
                event = await self._in_thread(_next, events)
                if isinstance(event, RetrievalDone):
                    data = await self._in_thread(self._retrieval_data, event.retrieval)
                    yield _sse("retrieval", data)
                elif isinstance(event, AnswerToken):
                    yield _sse("token", {"text": event.text})
                elif isinstance(event, AnswerDone):
                    yield _sse("done", await self._in_thread(self._done_data, event.answer))
                else:
                    break
        except WikiqError as err:
            yield _sse("error", {"message": str(err)})
        except Exception as err:  # a bug must not take the page down with it
            log.exception("answering failed")
            yield _sse(
                "error", {"message": f"wikiq hit an unexpected error: {type(err).__name__}: {err}"}
            )
        finally:
            if events is not None:
                with anyio.CancelScope(shield=True):
                    await self._in_thread(_close, events)

    async def _in_thread(self, func: Callable[..., T], *args: Any) -> T:
        # Never abandoned on cancel: a step ends before the iterator may be closed.
        return await anyio.to_thread.run_sync(func, *args, limiter=self._limiter)

    def _open(self, question: Question) -> Iterator[AnswerEvent]:
        return self.wiki.ask_stream(question.text, model=self.model, history=question.history)

    def _retrieval_data(self, retrieval: Retrieval) -> dict[str, Any]:
        loc = self.wiki.location
        data: dict[str, Any] = retrieval.to_dict(str(loc.vault), loc.wiki_folder)
        data["graph"] = answer_graph(self.wiki.retriever, retrieval)
        return data

    def _done_data(self, answer: Answer) -> dict[str, Any]:
        cited = [c.path for c in answer.citations]
        return {
            "answer": answer.to_dict(),
            "cited": cited,
            # The source notes among them: the status line counts pages and notes apart.
            "cited_notes": [c.path for c in answer.citations if c.type == NOTE_TYPE],
            "links": link_targets(self.wiki, answer.text),
            "excerpts": self._cited_excerpts(answer),
            "graph": answer_graph(self.wiki.retriever, answer.retrieval, cited),
        }

    def _cited_excerpts(self, answer: Answer) -> list[dict[str, Any]]:
        """The excerpts of the notes the answer cites: path, title, text, and `mark`, the
        [start, end) of the passage that answers the question (None if none matches)."""
        notes = {c.path for c in answer.citations if c.type == NOTE_TYPE}
        if not notes or answer.retrieval is None:
            return []
        idf = self.wiki.word_weights()  # the words' weights, as the answer used them
        out = []
        for x in answer.retrieval.sources:
            if x.path in notes:
                notes.discard(x.path)  # one excerpt per note, the best
                span = passage_span(x.text, answer.question, idf)
                out.append(
                    {
                        "path": x.path,
                        "title": x.title,
                        "text": x.text,
                        "mark": span,
                        "pages": x.pages,
                    }
                )
        return out


def link_targets(wiki: Wiki, text: str) -> dict[str, dict[str, str] | None]:
    """Every `[[target]]` in an answer and the page it resolves to (None: not in this vault)."""
    out: dict[str, dict[str, str] | None] = {}
    for match in WIKI_LINK.finditer(text):
        target = match.group(TARGET).strip()
        if target and target not in out:
            i = wiki.catalog.find(target)
            page = wiki.catalog.pages[i] if i is not None else None
            out[target] = {"path": page.path, "title": page.title} if page else None
    return out


def _next(events: Iterator[AnswerEvent]) -> AnswerEvent | None:
    return next(events, None)


def _close(events: Iterator[AnswerEvent]) -> None:
    close = getattr(events, "close", None)
    if close is not None:
        try:
            close()
        except Exception:  # closing a half-read model stream must not raise into the server
            log.debug("closing an answer stream failed", exc_info=True)


def _sse(event: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"event": event, "data": json.dumps(data, ensure_ascii=False)}
