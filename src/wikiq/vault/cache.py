"""The catalog cache: one folder per (vault, wiki folder) in the user's cache directory.

Never inside the vault. Files are written atomically; anything unreadable, corrupt or from an
older format is treated as absent, so the catalog is silently rebuilt.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from platformdirs import user_cache_dir

from wikiq.text.tokenize import TOKENIZER_FINGERPRINT
from wikiq.vault.locate import VaultLocation
from wikiq.vault.page import Page
from wikiq.vault.scan import FileStat
from wikiq.vault.terms import TermIndex

# Bump whenever what is stored, or how pages are parsed, changes. A change to tokenizing is
# caught by TOKENIZER_FINGERPRINT, stored beside it.
CACHE_FORMAT = 5


def _current(data: object) -> bool:
    """A cache file written by this format and this tokenizer (anything else is stale)."""
    return (
        isinstance(data, dict)
        and data.get("format") == CACHE_FORMAT
        and data.get("tokenizer") == TOKENIZER_FINGERPRINT
    )


_PAGE_FIELDS = [f.name for f in dataclasses.fields(Page)]


def cache_root(override: Path | None = None) -> Path:
    """`WIKIQ_CACHE_DIR`, else the platform's user cache folder (e.g. ~/.cache/wikiq)."""
    if override is not None:
        return override
    env = os.environ.get("WIKIQ_CACHE_DIR")
    return Path(env) if env else Path(user_cache_dir("wikiq", appauthor=False))


def vault_cache_dir(location: VaultLocation, override: Path | None = None) -> Path:
    key = f"{location.vault}\0{location.wiki_folder}".encode()
    digest = hashlib.sha1(key).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in location.vault.name)[:40]
    return cache_root(override) / "vaults" / f"{name or 'vault'}-{digest}"


@dataclass
class CachedCatalog:
    pages: list[Page]
    out_links: list[tuple[int, ...]]
    dead_links: list[Any]
    index_missing: list[str]
    index_stat: FileStat | None
    built_at: float


class CatalogCache:
    """Loads and saves one vault's cached catalog and term index."""

    def __init__(self, location: VaultLocation, cache_dir: Path | None = None) -> None:
        self.location = location
        self.dir = vault_cache_dir(location, cache_dir)
        self.path = self.dir / "catalog.pickle"
        self.terms_path = self.dir / "terms.pickle"

    def load(self) -> CachedCatalog | None:
        data = _load_pickle(self.path)
        if not _current(data):
            return None
        if (
            data.get("vault") != str(self.location.vault)
            or data.get("folder") != self.location.wiki_folder
        ):
            return None
        try:
            fields = dict(data["catalog"])
            fields["pages"] = [Page(*row) for row in fields["pages"]]
            return CachedCatalog(**fields)
        except (TypeError, KeyError):
            return None

    def load_terms(self, built_at: float) -> dict[str, TermIndex] | None:
        """The term indexes saved with the catalog built at `built_at` (else None: never mix them)."""
        data = _load_pickle(self.terms_path)
        if not _current(data):
            return None
        if data.get("built_at") != built_at:
            return None
        try:
            out = {}
            for name, f in data["fields"].items():
                matrix = sp.csr_matrix(
                    (f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"])
                )
                out[name] = TermIndex(list(f["vocab"]), matrix)
            return out
        except (KeyError, ValueError, TypeError, AttributeError):
            return None

    def save(self, catalog: CachedCatalog, terms: dict[str, TermIndex]) -> Path | None:
        """Write both files; a cache that cannot be written is skipped, never an error."""
        head = {
            "format": CACHE_FORMAT,
            "tokenizer": TOKENIZER_FINGERPRINT,
            "vault": str(self.location.vault),
            "folder": self.location.wiki_folder,
        }
        fields = {
            name: {
                "vocab": t.vocab,
                "data": np.asarray(t.matrix.data),
                "indices": np.asarray(t.matrix.indices),
                "indptr": np.asarray(t.matrix.indptr),
                "shape": t.matrix.shape,
            }
            for name, t in terms.items()
        }
        ok = _dump_pickle(self.terms_path, {**head, "fields": fields, "built_at": catalog.built_at})
        # Pages go in as plain tuples: several times faster to load than pickled objects.
        rows = [tuple(getattr(p, f) for f in _PAGE_FIELDS) for p in catalog.pages]
        ok = ok and _dump_pickle(
            self.path, {**head, "catalog": {**catalog.__dict__, "pages": rows}}
        )
        return self.path if ok else None


def _load_pickle(path: Path) -> Any:
    # Pickle is safe here because only this user's own wikiq writes this folder; it is also
    # several times faster to load than JSON or msgpack for a 100,000-page catalog.
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except Exception:
        return None


def _dump_pickle(path: Path, obj: Any) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return True
    except OSError:
        return False
