"""Package names imported on first use (PEP 562), so importing a package stays cheap: `wikiq`
for the CLI's start-up, `wikiq.llm` so embedding code does not load the chat providers."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(
    package: str, names: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for `names` (name -> module that defines it)."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # the next lookup is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *names])

    return __getattr__, __dir__
