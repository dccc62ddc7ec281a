"""Packages whose public names load their module on first use (PEP 562).

A package lists which of its modules holds each public name; importing the package then costs
nothing, and ``from package import name`` imports just that module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_exports(
    package: str, modules: Mapping[str, tuple[str, ...]], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """The module-level ``__getattr__`` of ``package``; found names are cached in ``namespace``."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
