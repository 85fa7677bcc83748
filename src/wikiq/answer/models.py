"""Which models answer and extract keywords, from the configuration, opened once and reused.

Order for the answer model: the caller's argument, then the configured `model` (flag,
environment, config file). When nothing is configured, a local Ollama is used if one answers
(and the answer says so); otherwise there is no model and answers are extractive. The keyword
model is `keyword_model` if set, else the answer model; `keyword_model = "none"` turns Stage 2
off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wikiq.config import Config, environment_report
from wikiq.llm import ChatModel, detect_local_ollama, open_model, parse_model_spec
from wikiq.retrieve.keywords import KeywordExtractor
from wikiq.vault.cache import cache_root

Detect = Callable[[], str | None]


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

    def __init__(self, config: Config, *, detect: Detect | None = None) -> None:
        self.config = config
        self._detect = detect or detect_local_ollama
        self._detected: str | None = None
        self._detect_done = False
        self._open: dict[tuple[str, str | None], ChatModel] = {}
        self._extractors: dict[int, KeywordExtractor] = {}
        self._lock = threading.Lock()

    def answer_model(self, model: ChatModel | str | None = None) -> ModelChoice:
        """The answer model for a call that passed `model` (None: use the configuration)."""
        if model is not None and not isinstance(model, str):
            return ModelChoice(model, model.name, "argument")
        if isinstance(model, str) and model.strip():
            return ModelChoice(self.open(model, self.config.base_url), model, "argument")
        spec = self.config.model
        if spec:
            opened = self.open(spec, self.config.base_url)
            return ModelChoice(opened, spec, self.config.source("model"))
        if self.config.get("detect_ollama"):
            found = self.detected()
            if found:
                return ModelChoice(self.open(found, None), found, "auto-detected")
        return ModelChoice(None, None, "none configured")

    def keyword_model(self, answer: ChatModel | None) -> ChatModel | None:
        """The model for Stage 2 keywords, or None (Stage 2 then does not run)."""
        if self.config.keywords_off:
            return None
        spec = self.config.keyword_model
        if spec:
            base_url = self.config.get("keyword_base_url") or self.config.base_url
            return self.open(spec, base_url)
        return answer

    def configured_keyword_model(self) -> ChatModel | None:
        """The keyword model the user configured (for `search`: never an auto-detected one)."""
        if self.config.keywords_off:
            return None
        if self.config.keyword_model:
            return self.keyword_model(None)
        if self.config.model:
            return self.open(self.config.model, self.config.base_url)
        return None

    def keywords(self, model: ChatModel) -> KeywordExtractor:
        """A keyword extractor for `model`, caching answers under the user cache folder."""
        with self._lock:
            extractor = self._extractors.get(id(model))
            if extractor is None or extractor.model is not model:
                extractor = KeywordExtractor(model, cache_dir=keyword_cache_dir())
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


def keyword_cache_dir() -> Path:
    return cache_root() / "keywords"


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
    if config.keywords_off:
        keyword = {"spec": None, "source": config.source("keyword_model"), "note": "Stage 2 off"}
    elif config.keyword_model:
        keyword = {"spec": config.keyword_model, "source": config.source("keyword_model")}
    elif answer["spec"] is None:
        keyword = {"spec": None, "source": "no model", "note": "Stage 2 needs a model"}
    else:
        keyword = {"spec": answer["spec"], "source": "same as the answer model"}
    checks = [("answer", answer["spec"], config.base_url)]
    if config.keyword_model and not config.keywords_off:
        checks.append(
            ("keyword", keyword["spec"], config.get("keyword_base_url") or config.base_url)
        )
    elif isinstance(answer["spec"], str) and not config.keywords_off:
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
    from pathlib import Path

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
