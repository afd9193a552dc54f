"""Loading bot classes from specs, and locating sandboxed bots without importing them.

Entry points are read here for every group (bots; games, see bohnarena/core/game.py).

A spec is one of:

* the name of a bot registered in the entry-point group ``bohnarena.bots``
  (the shipped bots are registered there too);
* ``path/to/file.py:Class``;
* ``package.module:Class``;
* ``/path/to/root/package.module:Class``: a module under a directory that
  is not on ``sys.path`` (a ladder's unpacked submission), located only,
  for a bot that runs out of process: in this process it is not loaded;

any of them followed by the parameters it sets (``trader?keep=3``: params.py).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import Distribution, EntryPoint
from pathlib import Path
from typing import TypeVar

from .errors import BotLoadError, UsageError
from .params import split_spec, with_params
from .stopping import noting_stops
from .untrusted import one_line

GROUP = "bohnarena.bots"
T = TypeVar("T")


@dataclass(frozen=True)
class BotInfo:
    name: str
    spec: str  # what loads it: "module:Class"
    origin: str  # the distribution that registers it
    version: str
    game: str = "?"  # "bohnanza", "wuerfel"; "?" when not loaded (or not a bot of any game)
    problem: str = ""  # why it does not load (a name clash, an import error); "" if it loads


class Registered(dict[str, EntryPoint]):
    """Registered entry points (bots, games) by name (the names two
    distributions both register are left out: they are in ``clashes``), and
    the distributions whose entry points could not be read (``broken``:
    name -> reason)."""

    def __init__(
        self,
        bots: Mapping[str, EntryPoint],
        clashes: Mapping[str, tuple[EntryPoint, ...]],
        broken: Mapping[str, str],
    ) -> None:
        super().__init__(bots)
        self.clashes = dict(clashes)
        self.broken = dict(broken)


@cache
def registered(group: str = GROUP) -> Registered:
    """Registered bots, or the entry points of another ``group`` (read once
    per process). A distribution whose entry_points.txt is malformed is
    skipped (it may be unrelated to bohnarena)."""
    found: dict[str, list[EntryPoint]] = {}
    broken: dict[str, str] = {}
    for dist in _distributions():
        try:
            eps = [ep for ep in dist.entry_points if ep.group == group]
        except Exception as e:  # any parse error of someone else's metadata
            broken[_dist_name(dist)] = f"{type(e).__name__}: {e}"
            continue
        for ep in {ep.name: ep for ep in reversed(eps)}.values():  # one per name and distribution
            found.setdefault(ep.name, []).append(ep)
    bots = {name: eps[0] for name, eps in found.items() if len(eps) == 1}
    clashes = {name: tuple(eps) for name, eps in found.items() if len(eps) > 1}
    return Registered(bots, clashes, broken)


def _distributions() -> Iterator[Distribution]:
    """Installed distributions, the first of each name on sys.path (as
    importlib.metadata.entry_points() does)."""
    seen: set[str] = set()
    for dist in importlib.metadata.distributions():
        key = _normalize(_dist_name(dist))
        if key == "?" or key not in seen:  # nameless: unreadable METADATA, never a duplicate
            seen.add(key)
            yield dist


def _dist_name(dist: Distribution | None) -> str:
    try:
        return (dist.metadata["Name"] if dist is not None else None) or "?"
    except Exception:  # unreadable METADATA
        return "?"


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _origin(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"{_dist_name(dist)} {dist.version if dist else '?'}"


def clash_message(name: str, eps: tuple[EntryPoint, ...], what: str = "bot") -> str:
    both = " and ".join(f"{_origin(ep)} ({ep.value})" for ep in eps)
    return f"{what} name {name!r} is registered by {len(eps)} distributions: {both}; " + (
        "uninstall one of them, or name the bot by module:Class"
        if what == "bot"
        else "uninstall one of them"
    )


def entry_point(name: str) -> EntryPoint | None:
    """The entry point registered as ``name``; None if there is none.
    Raises BotLoadError if two distributions register it."""
    reg = registered()
    if name in reg.clashes:
        raise BotLoadError(clash_message(name, reg.clashes[name]))
    return reg.get(name)


def list_bots(load: bool = True) -> list[BotInfo]:
    """Every registration, sorted by name; with ``load``, each bot is
    imported to learn its game and whether it loads."""
    reg = registered()
    rows = [(name, ep, "") for name, ep in reg.items()]
    for name, eps in reg.clashes.items():
        rows += [
            (
                name,
                ep,
                "name clash: "
                + ", ".join(_origin(o) for o in eps if o is not ep)
                + " registers it too",
            )
            for ep in eps
        ]
    out = []
    for name, ep, problem in sorted(rows, key=lambda r: (r[0], _origin(r[1]))):
        game = "?"
        if load and not problem:
            game, problem = _probe(ep)
        dist = ep.dist
        out.append(
            BotInfo(name, ep.value, _dist_name(dist), dist.version if dist else "?", game, problem)
        )
    return out


def _probe(ep: EntryPoint) -> tuple[str, str]:
    """(game, problem) of a registered bot, by importing it."""
    try:
        cls = bot_code(ep.load, ep.name, short_error)
    except BotLoadError as e:  # a broken plugin is listed, not fatal
        return "?", str(e)
    game = game_of(cls)
    return (game, "") if game else ("?", "not a bot class of any game")


def game_of(cls: object) -> str | None:
    """The game a bot class plays: its ``game`` attribute, else the game
    whose bot base class it subclasses."""
    from .game import game_names, get_game  # (the game registry reads entry points here)

    if not isinstance(cls, type):
        return None
    names = game_names()
    declared = getattr(cls, "game", "")
    if isinstance(declared, str) and declared in names:
        return declared
    for name in names:
        try:
            if issubclass(cls, get_game(name).bot_base):
                return name
        except UsageError:  # a broken game: its bots are listed without a game
            continue
    return None


def bot_code(load: Callable[[], T], bot: str, failed: Callable[[BaseException], str]) -> T:
    """``load()``, which runs code of a bot's (its import). Whatever that
    raises, ``SystemExit``, ``KeyboardInterrupt`` and ``GeneratorExit``
    included, is a :class:`BotLoadError` of one line, ``failed(e)``, never
    an exit of bohnarena's: only the user's own Ctrl-C (or SIGTERM, SIGHUP)
    still stops it. ``bot`` names the bot if even ``failed`` fails."""
    with noting_stops() as stops:
        try:
            return load()
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt) and stops.arrived:
                raise
            try:
                why = failed(e)
            except BaseException:  # an exception whose text raises in turn
                why = f"{bot} does not load: it raised something that cannot be shown"
            raise BotLoadError(one_line(why, 400)) from None


def raised(e: BaseException) -> str:
    """What was raised: ``Type: message``, or ``Type`` when it says nothing."""
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def short_error(e: BaseException) -> str:
    if isinstance(e, SyntaxError):
        return f"syntax error in {e.filename}, line {e.lineno}: {e.msg}"
    return raised(e).splitlines()[0][:200]


@cache
def load_bot(spec: str, base: type) -> type:
    """The bot class named by ``spec``; it must subclass ``base``. Cached per
    process (a failure is not cached)."""
    spec = spec.strip()
    base_spec, given = split_spec(spec)
    if given:
        return with_params(load_bot(base_spec, base), spec, given)
    if not spec:
        raise BotLoadError("empty bot spec")
    ep = entry_point(spec)
    if ep is not None:
        # a broken plugin package is the user's to fix
        cls = bot_code(
            ep.load, spec, lambda e: f"bot {spec!r} ({ep.value}) does not load: {short_error(e)}"
        )
        return _check(cls, spec, base)
    if ":" not in spec:
        known = ", ".join(sorted(registered())) or "none"
        raise BotLoadError(
            f"unknown bot {spec!r}: not a registered bot (registered: {known}), "
            "and not of the form file.py:Class or module:Class"
        )
    where, _, attr = spec.rpartition(":")
    module = load_module(where)
    try:
        cls = getattr(module, attr)
    except AttributeError:
        raise BotLoadError(f"{where} has no class {attr!r}") from None
    return _check(cls, spec, base)


def load_module(where: str) -> object:
    """The module ``where`` names: a file (``x.py``) or an importable name;
    whatever its import raises is a one-line :class:`BotLoadError`."""
    return _load_file(where) if where.endswith(".py") else _load_module(where)


def _check(cls: object, spec: str, base: type) -> type:
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise BotLoadError(
            f"{spec} is not a bot class (not a subclass of {base.__module__}.{base.__qualname__})"
        )
    return cls


def _load_module(name: str) -> object:
    def failed(e: BaseException) -> str:
        if isinstance(e, SyntaxError):
            return short_error(e)
        if isinstance(e, ImportError):
            return f"cannot import {name}: {e}"
        return f"importing {name} raised {raised(e)}"

    return bot_code(lambda: importlib.import_module(name), name, failed)


def _load_file(path: str) -> object:
    try:
        path.encode()
    except UnicodeEncodeError:  # (a name of bytes that are not UTF-8: nothing can log it)
        raise BotLoadError(f"bot file {path!r} is named with bytes that are not UTF-8") from None
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
    loader = spec.loader

    def failed(e: BaseException) -> str:
        if isinstance(e, SyntaxError):
            return f"syntax error in {path}, line {e.lineno}: {e.msg}"
        return f"loading {path} raised {raised(e)}"

    def load() -> None:
        sys.modules[name] = module
        try:
            loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise

    bot_code(load, path, failed)
    return module


# -- locating a sandboxed bot without importing it ---------------------------
@dataclass(frozen=True)
class Located:
    """Where a bot that runs in a sandbox lives, found from the file system
    and distribution metadata alone: nothing of the bot is imported here.

    ``paths`` maps a top-level import name to what makes it up: a package
    directory or a module file (``six`` -> ``.../six.py``); for a file spec,
    the file's stem -> the file's directory. It holds the bot's own code (its
    distribution's top-level packages, or the top-level package of a module
    spec without one) and that of its distribution's runtime requirements,
    transitively; a non-importable top-level directory of a distribution
    (``numpy.libs``, shared libraries) is keyed by its directory name.
    """

    spec: str
    module: str  # what the sandbox imports: "pkg.mod", or a file spec's stem
    attr: str  # the class name
    dist: str | None  # the distribution that provides it
    paths: Mapping[str, Path]
    file: Path | None = None  # a file spec's file (absolute)
    own: tuple[Path, ...] = field(default=())  # the bot's own code, hashed by source_bytes()
    version: str = ""  # the distribution's version

    def source_bytes(self, spec: str | None = None) -> bytes:
        """The bot's own code (every .py file of its top-level package, or
        its file) and its distribution's version: what the source hash of a
        sandboxed bot covers. Requirements are not included. ``spec``: the
        spec as its league file wrote it (default: the one located)."""
        parts = [(spec or self.spec).encode(), f"{self.dist} {self.version}".encode()]
        for root in self.own:
            files = [root] if root.is_file() else python_files(root)
            parts += [
                str(f.relative_to(root.parent)).encode() + b"\0" + f.read_bytes() for f in files
            ]
        return b"\0".join(parts)

    def source_hash(self) -> str:
        return hashlib.blake2b(self.source_bytes(), digest_size=16).hexdigest()


MAX_HASHED_FILES = 2000


def python_files(root: Path) -> list[Path]:
    """The .py files under ``root`` (hidden directories and caches left out;
    at most MAX_HASHED_FILES, in a stable order)."""
    found = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        found += [Path(dirpath) / f for f in sorted(files) if f.endswith(".py")]
        if len(found) >= MAX_HASHED_FILES:
            break
    return found[:MAX_HASHED_FILES]


def locate(spec: str) -> Located:
    """Locate the bot named by ``spec`` (registered name, file.py:Class or
    module:Class) without importing any of its code (parameters after a
    ``?`` are kept in its ``spec`` only). Raises BotLoadError."""
    found = _locate(split_spec(spec.strip())[0])
    return found if found.spec == spec.strip() else replace(found, spec=spec.strip())


def _locate(spec: str) -> Located:
    spec = spec.strip()
    if not spec:
        raise BotLoadError("empty bot spec")
    ep = entry_point(spec)
    if ep is not None:
        module, _, attr = ep.value.partition(":")
        return _locate_module(spec, module.strip(), attr.strip(), ep.dist)
    if ":" not in spec:
        known = ", ".join(sorted(registered())) or "none"
        raise BotLoadError(
            f"unknown bot {spec!r}: not a registered bot (registered: {known}), "
            "and not of the form file.py:Class or module:Class"
        )
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py"):
        file = Path(where).expanduser().resolve()
        if not file.is_file():
            raise BotLoadError(f"bot file {where} does not exist")
        # Hashed: every Python file beside it and below (what it could import in process).
        return Located(spec, file.stem, attr, None, {file.stem: file.parent}, file, (file.parent,))
    if "/" in where:
        return _locate_rooted(spec, Path(where).parent, Path(where).name, attr)
    return _locate_module(spec, where, attr, _dist_of(where.partition(".")[0]))


def _locate_module(spec: str, module: str, attr: str, dist: Distribution | None) -> Located:
    top = module.partition(".")[0]
    top_path = _top_path(top, dist)
    if top_path is None:
        raise BotLoadError(
            f"cannot find module {module}" + (f" (of {_dist_name(dist)})" if dist else "")
        )
    if not _has_module(top_path, module):
        raise BotLoadError(f"cannot find module {module} in {top_path}")
    paths: dict[str, Path] = {}
    if dist is not None:
        for d in _closure(dist):
            for name in _top_levels(d):
                path = _top_path(name, d)
                if path is not None:
                    paths.setdefault(name, path)
    paths[top] = top_path  # what the import system finds first is what the sandbox imports
    return Located(
        spec,
        module,
        attr,
        _dist_name(dist) if dist else None,
        paths,
        own=(top_path,),
        version=dist.version if dist else "",
    )


def _locate_rooted(spec: str, root: Path, module: str, attr: str) -> Located:
    """A bot ``module`` under ``root``, a directory of code no import path
    holds: what it may import of its own is every top-level package and
    module of ``root`` (a submission's code, none of it run here)."""
    if not root.is_absolute() or not root.is_dir():
        raise BotLoadError(f"bot directory {root} does not exist (a rooted spec is absolute)")
    top = module.partition(".")[0]
    paths: dict[str, Path] = {}
    for path in sorted(root.iterdir()):
        name = path.name.removesuffix(".py")
        if path.is_symlink() or not name.isidentifier():
            continue
        if path.is_dir() or (path.is_file() and path.suffix == ".py"):
            paths[name] = path
    if top not in paths or not _has_module(paths[top], module):
        raise BotLoadError(f"cannot find module {module} in {root}")
    return Located(spec, module, attr, None, paths, own=tuple(paths.values()))


def _top_levels(dist: Distribution) -> list[str]:
    """The top-level names a distribution installs: top_level.txt, and the
    first components of its files (an editable install lists only its
    finder there; its packages are in top_level.txt)."""
    names: list[str] = []
    try:
        declared = dist.read_text("top_level.txt") or ""
        # Only an installed distribution's RECORD lists installed files; a
        # source tree's egg-info (found through the working directory) lists
        # its sources, tests and all.
        files = (dist.files or []) if dist.read_text("RECORD") is not None else []
    except Exception:  # unreadable metadata: nothing to add
        return names
    names += [line.strip().split("/")[0] for line in declared.splitlines() if line.strip()]
    for f in files:
        first = f.parts[0] if f.parts else ""
        if (
            not first
            or first == ".."
            or first == "__pycache__"
            or first.startswith("__editable__")
            or first.endswith((".dist-info", ".egg-info", ".pth", ".data"))
        ):
            continue
        if len(f.parts) == 1:  # a top-level file: a module, or something else (skipped)
            if not first.endswith(tuple(importlib.machinery.all_suffixes())):
                continue
            first = first.partition(".")[0]
        names.append(first)
    return list(dict.fromkeys(names))


def _top_path(name: str, dist: Distribution | None) -> Path | None:
    """Where the top-level ``name`` is: find_spec of a top-level name runs
    only the finders (so an editable install resolves to its real
    directory), never the package's code."""
    found = None
    if name.isidentifier():
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
    if found is not None:
        origin = Path(found.origin) if found.origin and found.has_location else None
        if origin is not None and origin.stem == "__init__":
            return origin.parent
        if origin is None and found.submodule_search_locations is not None:
            locations = [Path(p) for p in found.submodule_search_locations]  # a namespace package
            own = Path(str(dist.locate_file(name))) if dist is not None else None
            return own if own in locations else (locations[0] if locations else None)
        if origin is not None and origin.is_file():  # a module (six.py, even with a __path__)
            return origin
    if dist is not None:  # a data directory of the distribution (numpy.libs)
        path = Path(str(dist.locate_file(name)))
        if path.exists():
            return path
    return None


def _has_module(top_path: Path, module: str) -> bool:
    """Whether ``module`` exists under its top-level package, looked up in
    the file system (find_spec of a dotted name would import the parents)."""
    parts = module.split(".")[1:]
    if not parts:
        return True
    if not top_path.is_dir():
        return False
    parent, last = top_path.joinpath(*parts[:-1]), parts[-1]
    if (parent / last).is_dir():
        return True
    return any(
        (parent / (last + suffix)).is_file() for suffix in importlib.machinery.all_suffixes()
    )


def _marker_holds(marker: str) -> bool:
    """Whether a requirement's environment marker holds here, extras off.
    Without ``packaging`` (not a dependency) only extras are recognized."""
    if not marker:
        return True
    if "extra" in marker:
        return False
    try:
        from packaging.markers import (  # type: ignore[import-not-found, unused-ignore]
            InvalidMarker,
            Marker,
        )
    except ImportError:
        return True
    try:
        return bool(Marker(marker).evaluate())
    except InvalidMarker:
        return True


def _dist_of(top: str) -> Distribution | None:
    """The distribution that installs the top-level name ``top``, if any."""
    for dist in _distributions():
        if top in _top_levels(dist):
            return dist
    return None


def _closure(dist: Distribution) -> list[Distribution]:
    """``dist`` and its installed runtime requirements, transitively. A
    requirement behind an ``extra`` marker, or whose marker does not hold
    here, is skipped (as is one that is not installed)."""
    out: list[Distribution] = []
    seen: set[str] = set()
    todo = [dist]
    while todo:
        d = todo.pop()
        key = _normalize(_dist_name(d))
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
        try:
            requires = d.requires or []
        except Exception:
            requires = []
        for req in requires:
            name, _, marker = req.partition(";")
            if not _marker_holds(marker.strip()):
                continue
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", name)
            if match is None or _normalize(match.group(1)) in seen:
                continue
            try:
                todo.append(importlib.metadata.distribution(match.group(1)))
            except importlib.metadata.PackageNotFoundError:
                continue
    return out
