"""`Wiki`: the Python API, and the one object every interface (CLI, web, MCP) is built on.

It takes its settings from the composition root (`wiring.py`, `models.py`) and hands the core
plain values."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikiq import wiring
from wikiq.config import Config, load_config
from wikiq.errors import EmptyQuestion
from wikiq.retrieve.cascade import KeywordSource, Retriever, RetrieverSettings
from wikiq.retrieve.indexes import RetrievalIndexes
from wikiq.retrieve.result import Retrieval
from wikiq.vault.catalog import (
    LEAN_FROM_PAGES,
    Catalog,
    Progress,
    open_catalog,
    vault_changes,
)
from wikiq.vault.locate import VaultLocation
from wikiq.vault.notes import SourcesSetting
from wikiq.vault.scan import VaultScan
from wikiq.vault.store import deferred_saves, saves_at_once, settle_prefetch
from wikiq.vault.terms import FieldTerms
from wikiq.watching import WATCH_SHARE, Watcher

if TYPE_CHECKING:  # the answering layer (and its HTTP client) loads on the first question
    from wikiq.answer.answerer import Answer, Answerer, Turn
    from wikiq.answer.events import AnswerEvent
    from wikiq.answer.extractive import Idf
    from wikiq.llm import ChatModel
    from wikiq.models import ModelChoice, Models
    from wikiq.retrieve.keywords import KeywordExtractor
    from wikiq.retrieve.sources import NoteSearch
    from wikiq.vault.note_index import NoteIndex
    from wikiq.vault.notes import NoteScan

# How often the vault is compared with the catalog: a stat of every page file, ~70 ms on
# ob-wiki's 8,000 pages (docs/BENCHMARKS.md), done by a background thread in `serve` and `mcp`
# and before a question (at most this often) otherwise.
REFRESH_INTERVAL = 1.0
# From this many pages a watcher's refresh is done by a forked child (`_refreshed_apart`): the
# child's work holds no lock this process needs, and its memory goes with it.
REFRESH_APART_FROM = LEAN_FROM_PAGES  # where a first read is done apart too
log = logging.getLogger("wikiq")


class Wiki:
    """An opened vault: its location and catalog, plus search and answers on top."""

    def __init__(
        self, location: VaultLocation, catalog: Catalog, config: Config | None = None
    ) -> None:
        self.location = location
        self.catalog = catalog
        self._retriever: Retriever | None = None
        # The indexes of a catalog a refresh replaced, until the new one's are built from them.
        self._replaced: RetrievalIndexes | None = None
        self._config = config
        self._wired: wiring.Wired | None = None
        self._models: Models | None = None
        self._answerer: Answerer | None = None
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._patch_lock = threading.Lock()  # edits taken in place, and a refresh's swap
        self._first_build_lock = threading.Lock()  # taken before the two above
        self._checked = time.monotonic()  # when the vault was last compared with the catalog
        self._check_seconds = 0.0  # how long that comparison took (the watcher's pace)
        self._use_cache = True  # how `open` read the catalog, to read it again
        self._watching = False
        self._building: subprocess.Popen[bytes] | None = None  # index_in_background's child
        self._index_stamp: tuple[int, int] | None = None  # the index file search last took in
        # Edits taken in place under a watcher (`_take_edits`): the retriever they are patched
        # over, and each edited page's counts, until the next refresh builds exact indexes.
        self._patched_over: Retriever | None = None
        self._edits: dict[int, FieldTerms] = {}
        self._edited: dict[Path, float] = {}  # the files taken in place, and when
        self._watcher: Watcher | None = None

    @property
    def config(self) -> Config:
        """Effective settings: config file, then environment (then flags, if given to `open`)."""
        if self._config is None:
            self._config = load_config()
        return self._config

    @property
    def wired(self) -> wiring.Wired:
        """The plain values this wiki hands the core, read from `config` once."""
        if self._wired is None:
            self._wired = wiring.wire(self.config)
        return self._wired

    @property
    def models(self) -> Models:
        """The chat models this wiki uses, opened on first use and kept."""
        with self._lock:
            if self._models is None:
                from wikiq.models import Models

                self._models = Models(self.config, cache_dir=self.wired.keyword_cache_dir)
            return self._models

    @property
    def retriever(self) -> Retriever:
        """The retrieval cascade over this vault (indexes built on first use, then kept)."""
        if self._building is not None:
            self._follow_build()
        if self._retriever is None:
            # One build: a server warming it on one thread while a first question arrives on
            # another would otherwise build the indexes twice (at a million pages, ~1 GB more).
            with self._first_build_lock:
                if self._retriever is None:
                    retriever = self._new_retriever(self.catalog)
                    retriever.replaces, self._replaced = self._replaced, None
                    self._retriever = self._with_edits_found(retriever)
        return self._retriever

    def warm(self) -> None:
        """Build now what every question needs (the catalog's tables, the indexes, the
        passages' counts), so that a server's first question does not wait for them."""
        catalog = self.catalog
        # Not the body's counts: a question never reads them, and from the cache they are
        # worked out from the passages (vault/body_terms.py: ~8 s and 0.4 GB at 1M pages).
        _ = catalog.by_path, catalog.resolver, catalog.graph
        self.retriever.warm()

    def _with_edits_found(self, retriever: Retriever) -> Retriever:
        """`retriever` with the edits its catalog left to it (`Catalog.edited`: a large
        vault's cache opened as it is) taken in place; when they cannot be (a page's names
        or frontmatter changed), the catalog is read again with them, as before."""
        edited = self.catalog.edited
        if not edited or self._patched_over is not None:
            return retriever
        root = self.catalog.location.wiki_root
        rows = {root / file: row for row, file, _ in edited}
        _ = retriever.indexes  # built, or read from the cache: what the edits are patched into
        with self._patch_lock:
            got = self._patched(list(rows), retriever, self.catalog, {}, rows)
            if got is not None:
                self._patched_over, self._edits = retriever, got[1]
                return got[0]
        self.catalog = open_catalog(
            self.location, cache_dir=self.wired.cache_dir, use_cache=self._use_cache
        )
        return self._new_retriever(self.catalog)

    def _new_retriever(self, catalog: Catalog) -> Retriever:
        retriever = Retriever(catalog)
        # Stage 0 joins by itself once `wikiq index --embed` has built an index.
        semantic = self._semantic(catalog=catalog)
        if semantic is not None:
            retriever = retriever.with_sources(semantic=semantic)
        return retriever.with_notes(self._note_search(catalog))

    @property
    def sources_setting(self) -> SourcesSetting:
        """Which notes outside the wiki folder are source notes (`sources` setting)."""
        return self.wired.sources

    def note_index(self, catalog: Catalog | None = None) -> NoteIndex | None:
        """The source notes' index (built or refreshed now), or None when there are none."""
        from wikiq.vault.note_index import open_note_index

        return open_note_index(
            self.catalog if catalog is None else catalog,
            self.sources_setting,
            cache_dir=self.wired.cache_dir,
            use_cache=self._use_cache,
        )

    def source_notes(self) -> NoteScan | None:
        """The source-note files (a stat each, nothing read), or None when there are none."""
        from wikiq.vault.note_links import linked_targets
        from wikiq.vault.notes import scan_notes

        setting = self.sources_setting
        if self.location.layout != "llm-wiki" or setting.off:
            return None
        linked = linked_targets(self.catalog) if setting.mode == "folders" else ()
        scan = scan_notes(self.location, setting, linked)
        return scan if scan.files or scan.skipped else None

    def _note_search(self, catalog: Catalog) -> NoteSearch | None:
        if self.location.layout != "llm-wiki" or self.sources_setting.off:
            return None  # a plain vault's notes are all pages already
        from wikiq.retrieve.sources import NoteSearch

        index = self.note_index(catalog)
        return NoteSearch(index) if index is not None else None

    def _notes_changed(self) -> bool:
        """Whether a source note was added, edited or removed since the retriever read them."""
        from wikiq.vault.note_index import notes_are_current

        retriever = self._retriever
        if retriever is None or self.location.layout != "llm-wiki" or self.sources_setting.off:
            return False
        scan = self.source_notes()
        if retriever.notes is None:
            return scan is not None and bool(scan.files)
        return scan is None or not notes_are_current(retriever.notes.index, scan)

    def _semantic(self, embedder: Any = None, catalog: Catalog | None = None) -> Any:
        if not self.wired.embeddings_on:
            return None  # `WIKIQ_EMBED=off`: Stage 0's code (~15 ms of imports) is not loaded
        from wikiq.embed.semantic import AUTO_REFRESH_PAGES, semantic_source

        # While a background build writes the index, search only reads it.
        refresh = 0 if self._building is not None else AUTO_REFRESH_PAGES
        semantic = semantic_source(
            self.location,
            self.catalog if catalog is None else catalog,  # an empty vault's catalog is falsy
            enabled=self.wired.embeddings_on,
            auto_refresh=refresh,
        )
        if semantic is not None:
            if embedder is not None:
                semantic.embedder = embedder  # the model already loaded: not loaded again
            if self._watching:
                semantic.prefetch()
        return semantic

    def index_in_background(self) -> str | None:
        """Build the embedding index in a low-priority child process when the vault has no
        complete one and the embedding extra is installed (what `serve` and `mcp` do); search
        takes in the vectors as the build saves them. Returns the sentence to tell the user,
        or None when nothing was started."""
        from wikiq.embed import background
        from wikiq.embed.semantic import catalog_index_path

        if not self.wired.embeddings_on or not background.extra_installed():
            return None
        path = catalog_index_path(self.location, self.catalog)
        why = background.needs_build(path)
        if why is None:
            return None
        env = wiring.build_environment(background.DEFAULT_EMBED_MODEL)
        child = background.start_build(self.location.vault, self.location.wiki_folder, path, env)
        if child is None:
            return None
        self._building = child
        self._index_stamp = _stamp(path)
        return (
            f"{why}: building it in the background at low priority; search uses it as it "
            f"grows (log: {path.parent / background.LOG_FILE})"
        )

    def _follow_build(self) -> None:
        """Take in the index each time the background build saves it (one stat a question)."""
        child = self._building
        if child is None:
            return
        from wikiq.embed.semantic import catalog_index_path

        running = child.poll() is None
        stamp = _stamp(catalog_index_path(self.location, self.catalog))
        if stamp == self._index_stamp and running:
            return
        with self._lock:
            self._index_stamp = stamp
            if not running:
                self._building = None
            if self._retriever is not None:
                semantic = self._semantic(getattr(self._retriever.semantic, "embedder", None))
                if semantic is not None:
                    self._retriever = self._retriever.with_sources(semantic=semantic)

    def stop_background_index(self) -> None:
        """Stop a background build (its work so far is saved; the next start resumes it)."""
        child, self._building = self._building, None
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGINT)  # like Ctrl-C: the build saves what it has
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

    def embeddings_summary(self) -> str:
        """The embedding index in one line, and how far a build is (doctor, web, MCP)."""
        from wikiq.embed.semantic import embeddings_summary

        return embeddings_summary(self.location, self.catalog, enabled=self.wired.embeddings_on)

    def word_weights(self) -> Idf:
        """How much each word of a question weighs (its IDF over the pages, titles counted
        in): what answers choose their passages by and the web page marks excerpts by. The
        search's own text index, loaded already: adding up every page's body counts for it
        cost an answer 0.36 s on ob-wiki, 1.2 s at 100,000 pages."""
        return self.retriever.indexes.text.idf_of

    def search(
        self,
        question: str,
        *,
        k: int = 8,
        keywords: KeywordSource | None = None,
        settings: RetrieverSettings | None = None,
    ) -> Retrieval:
        """Rank the pages that answer `question` (or decide none does: `pure_llm`)."""
        if not question.strip():
            raise EmptyQuestion()
        self.keep_fresh()
        return self.searcher(keywords=keywords, settings=settings).retrieve(question, k=k)

    def searcher(
        self,
        *,
        keywords: KeywordSource | None = None,
        settings: RetrieverSettings | None = None,
        use_model: bool = True,
    ) -> Retriever:
        """The retrieval `search` runs, to run it over many questions (`eval`): the vault as it
        is now, `settings` applied, and Stage 2 keywords from the configured model unless
        `use_model` is False."""
        retriever = self.retriever
        if settings is not None and settings != retriever.settings:
            retriever = retriever.with_settings(**settings.__dict__)
        # Stage 2 only with a model the user configured (search never asks for a local
        # Ollama); with none, the model code is not even loaded.
        if keywords is None and use_model and (self.config.model or self.config.keyword_model):
            keywords = self._keywords(self.models.answer_model(detect=False).model)
        if keywords is not None:
            retriever = retriever.with_sources(keywords=keywords)
        return retriever

    def _keywords(self, answer: ChatModel | None) -> KeywordExtractor | None:
        """Stage 2's keyword source when `answer` writes the answer (`keyword_rule`)."""
        model = self.models.keyword_model(answer)
        return self.models.keywords(model) if model is not None else None

    def choose_model(self, model: ChatModel | str | None = None) -> ModelChoice:
        """The model `ask` would use for `model` (None: the configured one, else a local
        Ollama, else none — an extractive answer), and why."""
        return self.models.answer_model(model)

    def ask_stream(
        self,
        question: str,
        *,
        model: ChatModel | str | None = None,
        history: Sequence[Turn] = (),
        k: int | None = None,
        faithful: bool = False,
    ) -> Generator[AnswerEvent, None, None]:
        """Answer `question`: yields `RetrievalDone`, then `AnswerToken`s, then `AnswerDone`.

        `model=None` uses the configured model; with none configured, a local Ollama if one
        runs (the answer's notes say so), else an extractive answer quoting the vault.
        `faithful`: only verbatim quotes of source-note excerpts, one citation per claim.
        """
        from wikiq import querylog
        from wikiq.answer.events import AnswerDone
        from wikiq.retrieve.keywords import CountingKeywords

        self.keep_fresh()
        choice = self.choose_model(model)
        found = self._keywords(choice.model)
        retriever = self.retriever
        keywords: CountingKeywords | None = None
        if found is not None:
            keywords = CountingKeywords(found)
            retriever = retriever.with_sources(keywords=keywords)
        notes = [choice.note()] if choice.note() else []
        events = self._get_answerer().stream(
            question,
            model=choice.model,
            history=history,
            k=k,
            notes=notes,
            retrieve=lambda q, n: retriever.retrieve(q, k=n),
            faithful=faithful,
        )
        for event in events:
            if isinstance(event, AnswerDone):
                if keywords is not None:
                    event.answer.keyword_usage = keywords.usage
                if self.wired.query_log:
                    querylog.append(event.answer, self.wired.query_log_file)
            yield event

    def ask(
        self,
        question: str,
        *,
        model: ChatModel | str | None = None,
        history: Sequence[Turn] = (),
        k: int | None = None,
        faithful: bool = False,
    ) -> Answer:
        """Answer `question` and return the finished, checked `Answer`."""
        from wikiq.answer.events import AnswerDone

        events = self.ask_stream(question, model=model, history=history, k=k, faithful=faithful)
        for event in events:
            if isinstance(event, AnswerDone):
                return event.answer
        raise RuntimeError("the answer stream ended without an answer")  # pragma: no cover

    def _get_answerer(self) -> Answerer:
        with self._lock:
            if self._answerer is None:
                from wikiq.answer.answerer import Answerer

                self._answerer = Answerer(
                    self.catalog,
                    lambda q, n: self.retriever.retrieve(q, k=n),
                    wiring.answer_settings(self.config, self.location),
                    idf=self.word_weights,
                )
            return self._answerer

    def close(self) -> None:
        """Close the connections of the models this wiki opened (a background index build
        goes on: it saves as it goes, and it is its own process)."""
        if self._models is not None:
            self._models.close()

    @classmethod
    def open(
        cls,
        vault: str | os.PathLike[str] | None = None,
        *,
        wiki_folder: str | None = None,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        progress: Progress | None = None,
        config: Config | None = None,
        for_questions: bool = False,
    ) -> Wiki:
        """Find the vault (argument, `WIKIQ_VAULT`, `.llm-wiki.json`, `CLAUDE.md`) and read it.

        `config` defaults to the user's config file and environment (`wikiq.config`);
        `cache_dir` beats its `cache_dir` (`WIKIQ_CACHE_DIR`). `for_questions`: the caller
        searches or asks next, so the caches a question reads are read while the vault is
        scanned (`store.prefetch`)."""
        config = config if config is not None else load_config()
        wired = wiring.wire(config, cache_dir=cache_dir)
        location = wiring.locate(config, vault, wiki_folder)
        if use_cache and for_questions:
            _prefetch_question_caches(location, wired)
        catalog = open_catalog(
            location,
            cache_dir=wired.cache_dir,
            use_cache=use_cache,
            progress=progress,
            edits_in_place=True,  # a few edits in a large vault: patched, not read in (delta.py)
        )
        if use_cache:
            _word_table(wired.cache_dir, catalog.files_read)
        wiki = cls(location, catalog, config)
        wiki._wired = wired
        wiki._use_cache = use_cache
        return wiki

    def watch(self, interval: float = REFRESH_INTERVAL) -> Callable[[], None]:
        """Keep the catalog fresh from a background thread (what `serve` and `mcp` do), so
        questions never wait for the check; returns the function that stops it."""
        stop = threading.Event()
        self._watcher = Watcher(self, interval)
        self._watching = True
        threading.Thread(
            target=self._watcher.run, args=(stop,), name="wikiq-watch", daemon=True
        ).start()
        # A process that answers many questions loads Stage 0's model now, so that the first
        # question needing it does not wait. A one-shot `wikiq search` does not: most
        # questions skip Stage 0 (Retriever._wants_semantic), and loading the model for
        # nothing cost it 0.2 s.
        semantic = self._retriever.semantic if self._retriever is not None else None
        prefetch = getattr(semantic, "prefetch", None)  # SemanticSearch; a test's source has none
        if prefetch is not None:
            prefetch()

        def halt() -> None:
            stop.set()
            self._watching = False

        return halt

    @property
    def pending_edits(self) -> int:
        """Pages edited since the indexes were built that are searched through patched
        indexes (taken in place by the watcher, or found at open in a large vault's cache)
        until a refresh rebuilds them (retrieve/delta.py)."""
        return len(self._edits)

    @property
    def refresh_seconds(self) -> float | None:
        """How long the watcher's last refresh took (None before one has run)."""
        return self._watcher.refresh_seconds if self._watcher is not None else None

    def _ready_for_edits(self) -> None:
        """What taking an edit in place reads, read now on the watcher's thread: the page
        table by path and the pages' counts (at a million pages, seconds the first edit
        would otherwise wait)."""
        try:
            _ = self.catalog.by_path
            for name in ("body", "lead"):
                self.catalog.field_terms(name)
        except Exception:  # the edit will read them itself, or refresh the whole vault
            log.debug("wikiq: could not prepare for edits", exc_info=True)

    def _take_edits(self, written: set[Path] | list[Path]) -> bool:
        """Take edits of existing pages in place: searched now, with the indexes patched
        (retrieve/delta.py), until a refresh builds them exactly. False when they cannot be
        (a new, renamed or unreadable page, other names or frontmatter): refresh then."""
        with self._patch_lock:
            over = self._patched_over or self._retriever
            got = self._patched(written, over, self.catalog, self._edits)
            if got is None:
                return False
            now = time.monotonic()
            with self._lock:
                self._retriever, self._edits = got
                self._patched_over = over
                self._edited.update((path, now) for path in written)
                self._answerer = None
            return True

    def _patched(
        self,
        written: set[Path] | list[Path],
        over: Retriever | None,
        catalog: Catalog,
        edits: dict[int, FieldTerms],
        rows: dict[Path, int] | None = None,
    ) -> tuple[Retriever, dict[int, FieldTerms]] | None:
        """`over` with the pages of `written` (and those of `edits`, taken before) patched in,
        and every edit it holds; None when they cannot be taken in place."""
        from wikiq.retrieve.delta import patched_retriever, read_edits

        if over is None or over.built_indexes is None or not written:
            return None
        try:
            new = read_edits(catalog, written, rows)
            if new is None:
                return None
            merged = {**edits, **new}
            patched = patched_retriever(over, catalog, merged)
        except Exception:  # the full refresh will read it, and report what is wrong
            log.debug("wikiq: an edit could not be taken in place", exc_info=True)
            return None
        return (patched, merged) if patched is not None else None

    def _swap(self, catalog: Catalog, retriever: Retriever | None, started: float) -> None:
        """Hand new questions a refresh's catalog and indexes (questions already running keep
        the objects they hold). The files taken in place since the refresh began (it may have
        read them before the edit) are patched over its indexes first, so that no question
        sees an edit vanish and come back."""
        with self._patch_lock:
            again = [path for path, at in self._edited.items() if at >= started]
            got = self._patched(again, retriever, catalog, {})
            with self._lock:
                if retriever is None and self._retriever is not None:
                    self._replaced = self._retriever.built_indexes or self._replaced
                self.catalog = catalog
                self._retriever = got[0] if got else retriever
                self._answerer = None
                self._patched_over = retriever if got else None
                self._edits = got[1] if got else {}
                self._edited = {path: self._edited[path] for path in again} if got else {}

    def keep_fresh(self) -> None:
        """`refresh()` before a question, unless a watcher already keeps the catalog fresh
        off the question's path. At the watcher's own pace: the vault is compared again only
        after ten times as long as the last comparison took (a million pages take 2.7 s to
        compare, so a loop of questions is not mostly comparisons)."""
        if not self._watching:
            self.refresh(min_interval=max(REFRESH_INTERVAL, WATCH_SHARE * self._check_seconds))

    def refresh(self, *, min_interval: float = REFRESH_INTERVAL) -> bool:
        """Take in pages added, edited, renamed or deleted since the catalog was read: a stat
        of every page file, at most once per `min_interval` seconds, and only the changed
        pages are read again. True when something changed. `search` and `ask` call it, so a
        running server or agent sees the vault as it is now."""
        with self._refresh_lock:
            now = time.monotonic()
            if now - self._checked < min_interval:
                return False
            started = now
            self._checked = now
            changes = vault_changes(self.catalog)
            current = changes is None
            unchanged = current and not self._notes_changed()
            self._check_seconds = time.monotonic() - now
            if unchanged:
                return False
            # The caches are written once the new vault is in use, not before (store.py).
            with deferred_saves() as saves:
                if current:
                    retriever = self._warm(self.catalog) if self._watching else None
                    self._swap(self.catalog, retriever, started)  # with the notes re-read
                    saves.flush()
                    return True
                assert changes is not None  # not `current`
                catalog = self._refreshed_apart(changes) if self._watching else None
                if catalog is None:
                    catalog = open_catalog(
                        self.location,
                        cache_dir=self.wired.cache_dir,
                        use_cache=self._use_cache,
                        scan=changes,
                        previous=self.catalog,  # in memory: the cache on disk is the same
                    )
                # Under a watcher this runs off the questions' path: build the indexes here
                # (~1.4 s on 8,000 pages), so no question waits for them; until they are
                # ready, questions are answered from the vault as it was a moment ago.
                retriever = self._warm(catalog) if self._watching else None
                if self._watching:  # an edit taken in place looks its page up by path (1 s at 1M)
                    _ = catalog.by_path
                self._swap(catalog, retriever, started)
                saves.flush()
            return True

    def _refreshed_apart(self, scan: VaultScan) -> Catalog | None:
        """A large vault's refresh under a watcher, done by a forked child that reads what
        changed, builds the indexes and saves both; this process then opens the files it
        saved (~1 s at a million pages). In this process the refresh held the interpreter
        for seconds at a time (a million pages: ~50 s of work), and questions and edits
        taken in place waited behind it. None where it cannot be done that way (a small
        vault, no cache folder, no fork): the refresh is then done here."""
        cache_dir = self.wired.cache_dir
        if len(self.catalog) < REFRESH_APART_FROM or not self._use_cache or cache_dir is None:
            return None
        from wikiq.retrieve.indexes import cached_indexes
        from wikiq.vault.apart import run_apart

        previous = self.catalog
        over = self._patched_over or self._retriever
        names = over.built_indexes if over is not None else None
        settings = RetrieverSettings()  # as `_new_retriever` makes them

        def work(_: Progress | None) -> float:
            with saves_at_once():
                catalog = open_catalog(
                    self.location, cache_dir=cache_dir, scan=scan, previous=previous
                )
                if catalog.cache_file is None:
                    raise OSError("the catalog could not be saved")
                cached_indexes(catalog, settings.direction, settings.in_weight, names)
            return catalog.built_at

        settle_prefetch()  # no cache read may be half-done in a thread when the child forks
        built_at = run_apart(work, None)
        if built_at is None:
            return None
        catalog = open_catalog(self.location, cache_dir=cache_dir, scan=scan)
        if catalog.built_at != built_at:  # the files were not the child's after all
            log.debug("wikiq: a refresh's saved catalog was not the one opened")
        return catalog

    def _warm(self, catalog: Catalog) -> Retriever:
        # Built (or read from the cache) now, not on a question; from the indexes they replace.
        return self._new_retriever(catalog).warm(previous=self._retriever)

    def __repr__(self) -> str:
        return f"Wiki({str(self.location.vault)!r}, pages={len(self.catalog)})"


# A vault read with at least this many pages loaded rjieba's whole dictionary, next to which
# writing the word table (~1 s, once per cache folder) is small; small vaults never write it.
WORD_TABLE_AFTER_PAGES = 1000


def _prefetch_question_caches(location: VaultLocation, wired: wiring.Wired) -> None:
    """Start reading the catalog, the retrieval indexes, the passages' counts and the source
    notes' index (~60 MB on ob-wiki) in the background: a search reads them all right after the scan."""
    from wikiq.retrieve.indexes import RETRIEVAL_FILE
    from wikiq.vault.cache import CATALOG_FILE, NOTES_FILE, PASSAGES_FILE, vault_cache_dir
    from wikiq.vault.store import prefetch

    folder = vault_cache_dir(location, wired.cache_dir)
    # In the order a search loads them (the retriever opens the notes before its indexes),
    # so the one it needs next is the one read first.
    names = [CATALOG_FILE]
    if location.layout == "llm-wiki" and not wired.sources.off:
        names.append(NOTES_FILE)  # read only where `_note_search` will read it
    names += [RETRIEVAL_FILE, PASSAGES_FILE]
    prefetch(folder / name for name in names)


def _word_table(cache_dir: Path | None, files_read: int) -> None:
    """Let questions cut their Chinese with jieba's word table in the cache folder
    (text/han_words.py: the same cuts without loading rjieba's dictionary, ~0.13 s), and
    write the table after reading a big vault."""
    from wikiq.text.tokenize import TOKENIZER_FINGERPRINT, use_word_table

    folder = wiring.segmenter_dir(cache_dir)
    if files_read >= WORD_TABLE_AFTER_PAGES:
        from wikiq.text.han_words import build_han_words

        build_han_words(folder, TOKENIZER_FINGERPRINT)
    use_word_table(folder)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)
