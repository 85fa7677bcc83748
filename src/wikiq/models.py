"""Which models answer and extract keywords, from the configuration, opened once and reused.

Part of the composition root (beside `wiring.py`): it reads the settings so the core need not.
Order for the answer model: the caller's argument, then the configured `model` (flag,
environment, config file). When nothing is configured, a local Ollama is used if one answers
(and the answer says so); otherwise there is no model and answers are extractive.

One rule picks the keyword model (`keyword_rule`): `keyword_model` if set, else the model that
writes the answer; `keyword_model = "none"` turns Stage 2 off. `search` writes no answer: its
answer model is the configured one, never a detected one (`answer_model(detect=False)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiq.config import Config, environment_report
from wikiq.llm import ChatModel, detect_local_ollama, open_model, parse_model_spec
from wikiq.retrieve.keywords import KeywordExtractor

Detect = Callable[[], str | None]
KeywordRule = Literal["off", "own", "answer"]


def keyword_rule(config: Config) -> KeywordRule:
    """Where Stage 2's model comes from: nowhere (`keyword_model = "none"`), its own setting,
    or the model that writes the answer."""
    if config.keywords_off:
        return "off"
    return "own" if config.keyword_model else "answer"


@dataclass(frozen=True)
class ModelChoice:
    """The model used for answers and why (shown by the CLI and `doctor`)."""

    model: ChatModel | None
    spec: str | None
    source: str  # "argument", "--model", "environment WIKIQ_MODEL", "auto-detected", …

    @property
    def auto_detected(self) -> bool:
        return self.source == "auto-detected"

    def note(self) -> str:
        """One sentence for the user when the model was not chosen by them."""
        if self.auto_detected and self.spec:
            return (
                f"Using {self.spec} from the local Ollama server, because no model is configured "
                "(set one with --model or `model` in the config file)."
            )
        return ""


class Models:
    """The chat models one `Wiki` uses; each spec is opened once (its connection is reused)."""

    def __init__(
        self, config: Config, *, detect: Detect | None = None, cache_dir: Path | None = None
    ) -> None:
        """`cache_dir`: where keyword answers are kept (None: not kept)."""
        self.config = config
        self.cache_dir = cache_dir
        self._detect = detect or detect_local_ollama
        self._detected: str | None = None
        self._detect_done = False
        self._open: dict[tuple[str, str | None], ChatModel] = {}
        self._extractors: dict[int, KeywordExtractor] = {}
        self._lock = threading.Lock()

    def answer_model(
        self, model: ChatModel | str | None = None, *, detect: bool = True
    ) -> ModelChoice:
        """The answer model for a call that passed `model` (None: use the configuration; a
        local Ollama only with `detect`)."""
        if model is not None and not isinstance(model, str):
            return ModelChoice(model, model.name, "argument")
        if isinstance(model, str) and model.strip():
            return ModelChoice(self.open(model, self.config.base_url), model, "argument")
        spec = self.config.model
        if spec:
            opened = self.open(spec, self.config.base_url)
            return ModelChoice(opened, spec, self.config.source("model"))
        if detect and self.config.get("detect_ollama"):
            found = self.detected()
            if found:
                return ModelChoice(self.open(found, None), found, "auto-detected")
        return ModelChoice(None, None, "none configured")

    def keyword_model(self, answer: ChatModel | None) -> ChatModel | None:
        """The model for Stage 2 keywords when `answer` writes the answer, or None (Stage 2
        then does not run)."""
        rule = keyword_rule(self.config)
        if rule == "off":
            return None
        if rule == "own":
            base_url = self.config.get("keyword_base_url") or self.config.base_url
            return self.open(self.config.keyword_model or "", base_url)
        return answer

    def keywords(self, model: ChatModel) -> KeywordExtractor:
        """A keyword extractor for `model`, keeping its answers in `cache_dir`."""
        with self._lock:
            extractor = self._extractors.get(id(model))
            if extractor is None or extractor.model is not model:
                extractor = KeywordExtractor(model, cache_dir=self.cache_dir)
                self._extractors[id(model)] = extractor
            return extractor

    def open(self, spec: str, base_url: str | None) -> ChatModel:
        key = (spec.strip(), base_url or None)
        with self._lock:
            model = self._open.get(key)
            if model is None:
                model = open_model(
                    spec,
                    base_url=base_url or None,
                    api_key=self._key_for(spec),
                    context_window=self.config.context,
                    timeout=float(self.config.get("timeout")),
                )
                self._open[key] = model
            return model

    def _key_for(self, spec: str) -> str | None:
        """The configured `api_key`, only for the provider of the configured answer model: a key
        is never sent to another provider's server."""
        key = self.config.get("api_key") or _read_key_file(self.config.get("api_key_file"))
        if not key:
            return None
        owner = self.config.model or spec
        same = parse_model_spec(spec).provider == parse_model_spec(owner).provider
        return key if same else None

    def detected(self) -> str | None:
        """`ollama:<model>` when a local Ollama answers (asked once per `Models`)."""
        with self._lock:
            if not self._detect_done:
                self._detected = self._detect()
                self._detect_done = True
            return self._detected

    def close(self) -> None:
        with self._lock:
            for model in self._open.values():
                close = getattr(model, "close", None)
                if callable(close):
                    close()
            self._open.clear()


def config_report(config: Config, *, detect: Detect | None = None) -> dict[str, object]:
    """What `ask` will use and why, without calling any model (`wikiq doctor`); keys never shown."""
    from wikiq.errors import ModelError

    models = Models(config, detect=detect)
    problems: list[str] = []
    answer: dict[str, object] = {"spec": None, "source": "none configured"}
    if config.model:
        answer = {"spec": config.model, "source": config.source("model")}
    elif config.get("detect_ollama"):
        found = models.detected()
        if found:
            answer = {"spec": found, "source": "auto-detected local Ollama"}
    if answer["spec"] is None:
        answer["note"] = "no model: answers are extracted passages, quoted from the vault"
    keyword: dict[str, object]
    rule = keyword_rule(config)
    if rule == "off":
        keyword = {"spec": None, "source": config.source("keyword_model"), "note": "Stage 2 off"}
    elif rule == "own":
        keyword = {"spec": config.keyword_model, "source": config.source("keyword_model")}
    elif answer["spec"] is None:
        keyword = {"spec": None, "source": "no model", "note": "Stage 2 needs a model"}
    else:
        keyword = {"spec": answer["spec"], "source": "same as the answer model"}
    checks = [("answer", answer["spec"], config.base_url)]
    if rule == "own":
        checks.append(
            ("keyword", keyword["spec"], config.get("keyword_base_url") or config.base_url)
        )
    elif isinstance(answer["spec"], str) and rule == "answer":
        keyword["context_window"] = None
    for role, spec, base_url in checks:
        if isinstance(spec, str):
            try:
                opened = models.open(spec, base_url)
                window = config.context or opened.context_window
                (answer if role == "answer" else keyword)["context_window"] = window
            except ModelError as err:
                problems.append(f"{role} model: {err}")
    if keyword.get("context_window", 0) is None:
        keyword["context_window"] = answer.get("context_window")
    models.close()
    file = config.file
    return {
        "file": str(file) if file else None,
        "file_exists": bool(file and file.is_file()),
        "answer_model": answer,
        "keyword_model": keyword,
        "settings": config.describe(),
        "environment": environment_report(),
        "problems": problems,
    }


def _read_key_file(path: object) -> str | None:
    """The first line of the key file (`api_key_file`, WIKIQ_API_KEY_FILE, --api-key-file)."""
    if not path:
        return None
    from wikiq.errors import ConfigError

    file = Path(str(path)).expanduser()
    try:
        text = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(
            f"Cannot read the API key file {file} (from --api-key-file or WIKIQ_API_KEY_FILE): "
            f"{getattr(err, 'strerror', None) or err}."
        ) from None
    return text.splitlines()[0].strip() if text else None
