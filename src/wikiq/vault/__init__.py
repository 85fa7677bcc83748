"""Reading a vault: finding it, parsing its pages, resolving links the way Obsidian does, safe
page access (nothing outside the vault), and the cached `Catalog` every search starts from."""

from wikiq.vault.catalog import Catalog, open_catalog
from wikiq.vault.locate import VaultLocation, locate_vault
from wikiq.vault.notes import SourcesSetting, parse_sources
from wikiq.vault.page import Page

__all__ = [
    "Catalog",
    "Page",
    "SourcesSetting",
    "VaultLocation",
    "locate_vault",
    "open_catalog",
    "parse_sources",
]
