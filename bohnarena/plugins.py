"""Loading bot classes from specs.

A spec is one of:

* the name of a bot registered in the entry-point group ``bohnarena.bots``
  (the shipped bots are registered there too);
* ``path/to/file.py:Class``;
* ``package.module:Class``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from .errors import BotLoadError

GROUP = "bohnarena.bots"


@dataclass(frozen=True)
class BotInfo:
    name: str
    spec: str  # what loads it: "module:Class"
    origin: str  # the distribution that registers it
    version: str


@cache
def registered() -> dict[str, EntryPoint]:
    """Registered bots (read once per process)."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def list_bots() -> list[BotInfo]:
    out = []
    for name, ep in sorted(registered().items()):
        dist = ep.dist
        out.append(BotInfo(name, ep.value, dist.name if dist else "?", dist.version if dist else "?"))
    return out


@cache
def load_bot(spec: str, base: type) -> type:
    """The bot class named by ``spec``; it must subclass ``base``. Cached per
    process (a failure is not cached)."""
    spec = spec.strip()
    if not spec:
        raise BotLoadError("empty bot spec")
    eps = registered()
    if spec in eps:
        try:
            cls = eps[spec].load()
        except Exception as e:  # a broken plugin package is the user's to fix
            raise BotLoadError(f"bot {spec!r} ({eps[spec].value}) does not load: "
                               f"{type(e).__name__}: {e}") from None
        return _check(cls, spec, base)
    if ":" not in spec:
        known = ", ".join(sorted(eps)) or "none"
        raise BotLoadError(f"unknown bot {spec!r}: not a registered bot (registered: {known}), "
                           "and not of the form file.py:Class or module:Class")
    where, _, attr = spec.rpartition(":")
    module = _load_file(where) if where.endswith(".py") else _load_module(where)
    try:
        cls = getattr(module, attr)
    except AttributeError:
        raise BotLoadError(f"{where} has no class {attr!r}") from None
    return _check(cls, spec, base)


def _check(cls: object, spec: str, base: type) -> type:
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise BotLoadError(f"{spec} is not a bot class (not a subclass of "
                           f"{base.__module__}.{base.__qualname__})")
    return cls


def _load_module(name: str) -> object:
    try:
        return importlib.import_module(name)
    except SyntaxError as e:
        raise BotLoadError(f"syntax error in {e.filename}, line {e.lineno}: {e.msg}") from None
    except ImportError as e:
        raise BotLoadError(f"cannot import {name}: {e}") from None
    except Exception as e:
        raise BotLoadError(f"importing {name} raised {type(e).__name__}: {e}") from None


def _load_file(path: str) -> object:
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise BotLoadError(f"bot file {path} does not exist")
    # One module per file content: the same file loads once per process.
    digest = hashlib.blake2b(str(file).encode() + file.read_bytes(), digest_size=6).hexdigest()
    name = f"bohnarena_botfile_{file.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        del sys.modules[name]
        raise BotLoadError(f"syntax error in {path}, line {e.lineno}: {e.msg}") from None
    except Exception as e:
        del sys.modules[name]
        raise BotLoadError(f"loading {path} raised {type(e).__name__}: {e}") from None
    return module


def bot_name(cls: type) -> str:
    return getattr(cls, "name", "") or cls.__name__


def sandboxed_source(spec: str) -> bytes:
    """The source of a bot that will run in a sandbox, read without importing
    it: the file of a ``file.py:Class`` spec, else the module's file."""
    where = spec.rpartition(":")[0] if ":" in spec else ""
    if where.endswith(".py"):
        path = Path(where).expanduser()
        if not path.is_file():
            raise BotLoadError(f"bot file {where} does not exist")
        return path.read_bytes() + spec.encode()
    if not where:
        ep = registered().get(spec)
        if ep is None:
            raise BotLoadError(f"unknown bot {spec!r}")
        where = ep.value.partition(":")[0]
    try:
        found = importlib.util.find_spec(where)
    except (ImportError, ValueError) as e:
        raise BotLoadError(f"cannot find module {where}: {e}") from None
    if found is None or not found.origin or not Path(found.origin).is_file():
        raise BotLoadError(f"cannot find module {where}")
    return Path(found.origin).read_bytes() + spec.encode()
