"""What a Python bot run as a process or in a sandbox may import: the
standard library, bohnarena, its own code, and the installed packages its
league lists (``packages = [...]``; bohnarena's shipped bots by default).
Found from the file system and distribution metadata alone, as
:func:`~bohnarena.core.plugins.locate` finds a bot: no package's code runs here."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from ..core.errors import UsageError
from ..core.plugins import _closure, _dist_of, _top_levels, _top_path

#: The distribution bohnarena comes in: its packages are shown without the
#: requirements of the engine (pyarrow, click, ...), which no bot needs.
OWN_TOP = "bohnarena"
MISSING = re.compile(r"No module named '([A-Za-z_][A-Za-z0-9_]*)")


class PackageError(UsageError):
    """A league names a package that is not installed here."""


@cache
def allowed_code(names: tuple[str, ...]) -> dict[str, Path]:
    """Top-level import name -> where it is, for every package ``names``
    lists (an import name, ``numpy``, or a distribution's, ``scikit-learn``)
    and whatever it requires to run, transitively; bohnarena's own
    packages alone. Raises PackageError for a name that is not installed."""
    code: dict[str, Path] = {}
    for name in names:
        dist = _dist_of(name)
        if dist is None:
            try:
                dist = importlib.metadata.distribution(name)
            except (importlib.metadata.PackageNotFoundError, ValueError):
                dist = None
        if dist is not None and OWN_TOP in _top_levels(dist):
            path = _top_path(name, dist)
            if path is not None:
                code[name] = path
                continue
            dist = None
        if dist is None:
            path = _top_path(name, None)  # a package no distribution lists
            if path is None:
                raise PackageError(f"packages: {name!r} is not installed here")
            code.setdefault(name, path)
            continue
        for d in _closure(dist):
            for top in _top_levels(d):
                found = _top_path(top, d)
                if found is not None:
                    code.setdefault(top, found)
    return code


#: Names an interpreter imports by itself when it starts (site's hooks):
#: none of a bot's to ship, whatever its import path.
STARTUP = ("sitecustomize", "usercustomize")


def shadowing(names: Iterable[str], packages: tuple[str, ...]) -> str | None:
    """Why a bot's own code may not be shown as it is, or None: one of its
    top-level ``names`` is a module of the standard library's, bohnarena's,
    one the interpreter imports as it starts, or one of the installed
    packages its league allows (``packages``, with what they require)."""
    allowed = allowed_code(packages)
    for name in sorted(names):
        if name in sys.stdlib_module_names or name in STARTUP:
            what = "a module of the standard library"
        elif name == OWN_TOP or name in allowed:
            what = "an installed package the bots may import"
        else:
            continue
        return f"it ships a top-level {name!r}, the name of {what}: rename it"
    return None


def not_allowed(text: str, packages: Sequence[str]) -> str | None:
    """Why a bot that did not load, saying ``text``, may have failed: a
    module it imports that its league does not list in ``packages`` (or
    that is not installed at all). None when ``text`` names no missing module."""
    found = MISSING.search(text)
    if found is None:
        return None
    top = found.group(1)
    if top in allowed_code(tuple(packages)) or top == OWN_TOP:
        return None
    if not _installed(top):
        return f"it imports {top}, which is not installed here"
    return (
        f"it imports {top}, which it may not: bots may import {_listed(packages)}; "
        f'a league allows more with packages = ["{top}", ...], check-bot with --package {top}'
    )


def _installed(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None  # the finders only: no code runs
    except (ImportError, ValueError):
        return False


def _listed(packages: Iterable[str]) -> str:
    return ", ".join([OWN_TOP, *packages])
