"""The per-vault cache folders in the user's cache directory, and the ones left behind.

Each vault wikiq has read keeps a folder under `<cache>/vaults/` (vault/cache.py). A vault that
is moved, renamed or deleted leaves its folder there for good, and a large vault's is gigabytes.
`wikiq doctor` lists them; `wikiq doctor --prune-caches` removes the folders whose vault no
longer exists. Only folders under `<cache>/vaults/` are ever removed, never anything in a vault.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from wikiq.vault import store
from wikiq.vault.cache import CATALOG_FILE, cache_root


@dataclass(frozen=True)
class CacheFolder:
    """One vault's cache folder."""

    path: Path
    vault: Path | None  # the vault it was built for (None: no readable catalog says so)
    size: int  # bytes

    @property
    def left_behind(self) -> bool:
        """Built for a vault that is no longer there (moved, renamed or deleted)."""
        return self.vault is not None and not self.vault.is_dir()

    def to_dict(self) -> dict[str, object]:
        return {
            "folder": str(self.path),
            "vault": str(self.vault) if self.vault else None,
            "bytes": self.size,
            "left_behind": self.left_behind,
        }


@dataclass(frozen=True)
class VaultCaches:
    """Every vault's cache folder, and those just removed (`--prune-caches`)."""

    root: Path
    folders: list[CacheFolder]
    removed: list[CacheFolder]

    @property
    def total(self) -> int:
        return sum(f.size for f in self.folders)

    @property
    def left_behind(self) -> list[CacheFolder]:
        return [f for f in self.folders if f.left_behind]

    def to_dict(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "bytes": self.total,
            "folders": [f.to_dict() for f in self.folders],
            "removed": [f.to_dict() for f in self.removed],
        }


def vault_caches(override: Path | None = None, prune: bool = False) -> VaultCaches:
    """The cache folders; with `prune`, those left behind are removed first."""
    folders = cache_folders(override)
    removed = [f for f in folders if prune and f.left_behind and remove(f, override)]
    kept = [f for f in folders if f not in removed]
    return VaultCaches(cache_root(override) / "vaults", kept, removed)


def cache_folders(override: Path | None = None) -> list[CacheFolder]:
    """Every vault's cache folder, by path."""
    root = cache_root(override) / "vaults"
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:  # no cache yet, or not readable
        return []
    return [CacheFolder(p, _built_for(p), _size(p)) for p in folders]


def remove(folder: CacheFolder, override: Path | None = None) -> bool:
    """Delete one cache folder (only one directly under `<cache>/vaults/`); False if it could
    not be removed."""
    if folder.path.parent != cache_root(override) / "vaults" or folder.path.is_symlink():
        return False
    try:
        shutil.rmtree(folder.path)
    except OSError:
        return False
    return True


def _built_for(folder: Path) -> Path | None:
    head = store.head(folder / CATALOG_FILE)
    vault = head.get("vault") if head else None
    return Path(vault) if isinstance(vault, str) else None


def _size(folder: Path) -> int:
    total = 0
    for f in folder.rglob("*"):
        try:
            if f.is_file() and not f.is_symlink():
                total += f.stat().st_size
        except OSError:  # removed while counted
            continue
    return total
