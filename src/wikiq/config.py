"""User settings: a TOML file, then environment variables, then command-line flags.

Every `WIKIQ_*` variable wikiq reads is a `Key` here and is read nowhere else: the composition
root (`wikiq.wiring`) turns these settings into the plain values the core takes. Each value
remembers where it came from (flag, environment, config file, default), so `wikiq doctor` can
say why it is used. Some keys are read from flags and the environment only (`in_file=False`):
where the vault and the caches are, and switches for one run. The file lives in
`platformdirs.user_config_dir("wikiq")/config.toml` (or `$WIKIQ_CONFIG_DIR`):

    model = "ollama:qwen2.5:7b"        # writes answers
    keyword_model = "ollama:qwen2.5:3b"  # Stage 2 keywords; default: model; "none" turns it off
    context = 32768                    # context window in tokens, when the model's is not known
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_config_dir

from wikiq.errors import ConfigError

CONFIG_FILE = "config.toml"
INSTRUCTIONS_FILE = "instructions.md"
OFF_VALUES = frozenset({"none", "off", "false", "no", "0", ""})

Kind = Literal["str", "int", "float", "bool", "path"]


@dataclass(frozen=True)
class Key:
    """One setting: its type, its environment variable, and what it does."""

    name: str
    kind: Kind
    env: str
    help: str
    default: Any = None
    secret: bool = False
    in_file: bool = True  # False: flag and environment only (the config file refuses it)


KEYS: tuple[Key, ...] = (
    Key("model", "str", "WIKIQ_MODEL", "model that writes answers, e.g. openai:gpt-4.1-mini"),
    Key(
        "keyword_model",
        "str",
        "WIKIQ_KEYWORD_MODEL",
        "model for Stage 2 keywords (default: the answer model; 'none' turns Stage 2 off)",
    ),
    Key("base_url", "str", "WIKIQ_BASE_URL", "server address of the answer model"),
    Key(
        "keyword_base_url",
        "str",
        "WIKIQ_KEYWORD_BASE_URL",
        "server address of the keyword model (default: base_url)",
    ),
    Key(
        "api_key", "str", "WIKIQ_API_KEY", "API key (default: the provider's variable)", secret=True
    ),
    Key(
        "api_key_file",
        "path",
        "WIKIQ_API_KEY_FILE",
        "file holding the API key (a key on the command line is visible to other users)",
    ),
    Key("context", "int", "WIKIQ_CONTEXT", "context window in tokens (default: the model's)"),
    Key("pages", "int", "WIKIQ_PAGES", "most pages loaded into an answer", 8),
    Key("page_chars", "int", "WIKIQ_PAGE_CHARS", "most characters loaded from one page", 8000),
    Key(
        "answer_tokens",
        "int",
        "WIKIQ_ANSWER_TOKENS",
        "tokens kept free for the answer (default: a quarter of the window, at most 4000)",
    ),
    Key("temperature", "float", "WIKIQ_TEMPERATURE", "sampling temperature (default: the model's)"),
    Key("timeout", "float", "WIKIQ_TIMEOUT", "seconds to wait for a model server", 60.0),
    Key(
        "instructions_file",
        "path",
        "WIKIQ_INSTRUCTIONS_FILE",
        f"custom query instructions (default: {INSTRUCTIONS_FILE} next to the config file)",
    ),
    Key(
        "detect_ollama",
        "bool",
        "WIKIQ_DETECT_OLLAMA",
        "use a local Ollama when no model is configured",
        True,
    ),
    Key("query_log", "bool", "WIKIQ_QUERY_LOG", "keep a local log of questions for `stats`", True),
    Key(
        "sources",
        "str",
        "WIKIQ_SOURCES",
        "source notes outside the wiki folder searched beside the pages: auto, off, or "
        "folders separated by commas",
        "auto",
    ),
    Key(
        "cite",
        "str",
        "WIKIQ_CITE",
        "how answers cite: wiki ([[wiki-links]]) or numbered ([1] markers, numbered References)",
        "wiki",
    ),
    Key(
        "auto_index",
        "bool",
        "WIKIQ_AUTO_INDEX",
        "serve and mcp build the embedding index in the background (with the embed extra)",
        True,
    ),
    # Flag and environment only: where things are, and switches for one run.
    Key("vault", "path", "WIKIQ_VAULT", "the vault folder (like --vault)", in_file=False),
    Key(
        "wiki_folder",
        "str",
        "WIKIQ_WIKI_FOLDER",
        "the wiki folder inside the vault (like --wiki-folder)",
        in_file=False,
    ),
    Key(
        "config_dir",
        "path",
        "WIKIQ_CONFIG_DIR",
        "where config.toml lives (default: the user config folder)",
        in_file=False,
    ),
    Key(
        "cache_dir",
        "path",
        "WIKIQ_CACHE_DIR",
        "where caches live (default: the user cache folder)",
        in_file=False,
    ),
    # Free text, as before: only the off words turn Stage 0 off.
    Key("embed", "str", "WIKIQ_EMBED", "'off' searches without the embedding index", "on", in_file=False),
    Key(
        "embed_model",
        "str",
        "WIKIQ_EMBED_MODEL",
        "embedding model for `wikiq index --embed` (default: local:e5-small)",
        in_file=False,
    ),
    Key(
        "debug",
        "str",
        "WIKIQ_DEBUG",
        "'1' shows the traceback of an unexpected error",
        in_file=False,
    ),
    Key(
        "build_for_pid",
        "str",
        "WIKIQ_BUILD_FOR_PID",
        "set by serve and mcp on their background index build: it stops when they exit",
        in_file=False,
    ),
)
KEYS_BY_NAME = {k.name: k for k in KEYS}
FILE_KEYS = [k.name for k in KEYS if k.in_file]


def environment_report(env: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """Every WIKIQ_* variable wikiq reads, what it does, and whether it is set (secrets hidden)."""
    env = os.environ if env is None else env
    out = []
    for key in KEYS:
        value = env.get(key.env)
        shown = "" if value is None else ("(set, hidden)" if key.secret else value)
        out.append({"name": key.env, "help": key.help, "value": shown})
    return out


def debug_traceback(env: Mapping[str, str] | None = None) -> bool:
    """`WIKIQ_DEBUG` is set: an unexpected error shows its traceback. Read alone, without the
    config file, because it is asked while handling an error (maybe the file's own)."""
    return bool((os.environ if env is None else env).get(KEYS_BY_NAME["debug"].env))


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$WIKIQ_CONFIG_DIR`, else the platform's user config folder (e.g. ~/.config/wikiq)."""
    env = os.environ if env is None else env
    override = env.get(KEYS_BY_NAME["config_dir"].env)
    return Path(override) if override else Path(user_config_dir("wikiq", appauthor=False))


@dataclass(frozen=True)
class Config:
    """Effective settings; `sources[name]` says where each value came from."""

    values: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    file: Path | None = None

    def get(self, name: str) -> Any:
        if name not in KEYS_BY_NAME:
            raise KeyError(name)
        return self.values.get(name, KEYS_BY_NAME[name].default)

    def source(self, name: str) -> str:
        return self.sources.get(name, "default")

    @property
    def model(self) -> str | None:
        return self.get("model")

    @property
    def keyword_model(self) -> str | None:
        return self.get("keyword_model")

    @property
    def keywords_off(self) -> bool:
        """True when the user turned Stage 2 off (`keyword_model = "none"`)."""
        value = self.values.get("keyword_model")
        return isinstance(value, str) and value.strip().lower() in OFF_VALUES

    @property
    def base_url(self) -> str | None:
        return self.get("base_url")

    @property
    def context(self) -> int | None:
        return self.get("context")

    def instructions_path(self) -> Path | None:
        """The custom-instructions file to read, if one is set or sits next to the config file."""
        value = self.get("instructions_file")
        if value:
            return Path(value).expanduser()
        if self.file is not None:
            default = self.file.parent / INSTRUCTIONS_FILE
            return default if default.is_file() else None
        return None

    def with_flags(self, **flags: Any) -> Config:
        """This config with command-line values on top (None means "flag not given")."""
        values = dict(self.values)
        sources = dict(self.sources)
        for name, value in flags.items():
            if value is None:
                continue
            key = KEYS_BY_NAME[name]
            values[name] = _convert(key, value, f"--{name.replace('_', '-')}")
            sources[name] = f"--{name.replace('_', '-')}"
        return Config(values, sources, self.file)

    def describe(self) -> list[dict[str, Any]]:
        """Every setting as `{name, value, source, help}`; secrets show only whether they are set."""
        rows = []
        for key in KEYS:
            value = self.get(key.name)
            if key.secret and value:
                value = "(set)"
            rows.append(
                {
                    "name": key.name,
                    "value": str(value) if isinstance(value, Path) else value,
                    "source": self.source(key.name),
                    "env": key.env,
                    "help": key.help,
                }
            )
        return rows


def load_config(
    *,
    env: Mapping[str, str] | None = None,
    path: Path | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Config:
    """Read the config file, then the environment, then `flags`; later ones win."""
    env = os.environ if env is None else env
    file = path or config_dir(env) / CONFIG_FILE
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, value in _read_file(file).items():
        values[name] = value
        sources[name] = f"config file {file}"
    for key in KEYS:
        raw = env.get(key.env)
        if raw is not None and raw.strip() != "":
            values[key.name] = _convert(key, raw, key.env)
            sources[key.name] = f"environment {key.env}"
    config = Config(values, sources, file)
    return config.with_flags(**flags) if flags else config


def _read_file(file: Path) -> dict[str, Any]:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ConfigError(
            f"Could not read the config file {file}: {err.strerror or err}."
        ) from None
    import tomllib  # here: most runs have no config file to parse

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"The config file {file} is not valid TOML: {err}.") from None
    out: dict[str, Any] = {}
    for name, value in data.items():
        key = KEYS_BY_NAME.get(name)
        if key is None or not key.in_file:
            import difflib

            close = difflib.get_close_matches(name, FILE_KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(
                f"Unknown setting '{name}' in {file}{hint}: known settings are "
                f"{', '.join(FILE_KEYS)}."
            )
        out[name] = _convert(key, value, f"'{name}' in {file}")
    return out


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def _convert(key: Key, value: Any, where: str) -> Any:
    """A raw value (TOML, environment text or flag) as the key's type, or a one-sentence error."""
    try:
        if key.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError
        if key.kind == "int":
            if isinstance(value, bool):
                raise ValueError
            if isinstance(value, int):
                number = value
            else:
                m = _SIZE.match(str(value))
                if not m:
                    raise ValueError
                scale = {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]
                number = int(float(m.group(1)) * scale)
            if number <= 0:
                raise ValueError
            return number
        if key.kind == "float":
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        if key.kind == "path":
            return Path(str(value)).expanduser()
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return ", ".join(v.strip() for v in value)  # a TOML list: sources = ["raw", "_raw"]
        if not isinstance(value, str):
            raise ValueError
        return value.strip()
    except (TypeError, ValueError):
        expected = {
            "bool": "true or false",
            "int": "a positive whole number (e.g. 8192 or 32k)",
            "float": "a number",
            "path": "a file path",
            "str": "a string",
        }[key.kind]
        raise ConfigError(f"{where} must be {expected}, not {value!r}.") from None
