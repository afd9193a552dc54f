"""What a run is made of and whether it can start: each bot's source
hashed (nothing of a sandboxed bot imported), the facts a results directory
records (versions, rules, data files), and the preflight that starts every
bot once before any match is sent, on this machine and on every worker of a
cluster."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import stat
import sys
import tempfile
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.entry import BotEntry
from ..core.errors import BohnarenaError, BotLoadError, UsageError
from ..core.game import Game, get_game
from ..core.plugins import load_bot, locate
from ..external.botfiles import shown, tree
from ..external.packages import not_allowed
from ..league.file import League
from ..referee.limits import Limits
from ..store import layout
from .execution import Backend
from .seating import make_seat


def source_hash(entry: BotEntry, base: type, home: Path | None = None) -> str:
    """A hash of the code a bot can run: a Python bot's package (every .py
    file of its top-level package, or of its file's directory tree) and its
    distribution's version; a command bot's command line and what its
    sandbox shows (:func:`~bohnarena.external.botfiles.shown`: each file it names, or
    every file of its own directory); a bot served over HTTP: its URL alone
    (a service's code cannot be hashed). A bot run in process is also
    loaded here, which checks its spec before anything is written; no other
    bot's code is imported, only read (see :func:`~bohnarena.core.plugins.locate`).
    ``home``: a directory whose paths are hashed relative to it (a ladder's:
    moved elsewhere, its bots keep their hashes); a Python bot's spec is
    hashed as its league file wrote it."""
    if entry.service is not None:  # (a model's: its settings and system prompt too)
        parts = [entry.service.url.encode(), *([entry.chat.identity()] if entry.chat else [])]
    elif entry.command is not None:
        here = partial(_relative, home=home)
        parts = [" ".join(map(here, entry.command)).encode(), here(entry.dir or "").encode()]
        for path in shown(entry):
            parts += [here(str(f)).encode() + b"\0" + _content(f) for f in tree(path)]
        if entry.params:  # (a Python bot's are in its spec)
            parts.append(json.dumps(dict(entry.params), sort_keys=True).encode())
    else:
        if entry.isolation == "inprocess":
            try:
                load_bot(entry.spec or "", base)
            except BotLoadError as e:
                raise BotLoadError(f"bot {entry.name!r}: {e}") from None
        parts = [locate(entry.spec or "").source_bytes(entry.written)]
    return hashlib.blake2b(b"\0".join(parts), digest_size=16).hexdigest()


def _relative(path: str, home: Path | None) -> str:
    """``path`` relative to ``home`` when it is an absolute path inside it."""
    if home is None or not path.startswith("/") or not Path(path).is_relative_to(home):
        return path
    return str(Path(path).relative_to(home))


MAX_HASHED_BYTES = 64 << 20


def _content(path: Path) -> bytes:
    """What of a file the source hash covers: its bytes (a larger file: its
    size), or where a symbolic link leads."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            return b"-> " + os.readlink(path).encode()
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device: never read
            return b"special"
        return path.read_bytes() if info.st_size <= MAX_HASHED_BYTES else b"%d" % info.st_size
    except OSError as e:  # unreadable here: the sandbox cannot read it either
        return f"unreadable: {e.strerror}".encode()


def run_facts(game: Game, rules: Any, league: League) -> dict[str, Any]:
    """What else decides how a seeded match plays out, kept in run.json: the
    interpreter, the platform, the versions of bohnarena and the bots'
    distributions, the complete rule set in force and its data files' hashes."""
    packages = {"bohnarena": __version__}
    for entry in league.bots.values():
        if entry.spec is not None:
            try:
                found = locate(entry.spec)
            except BohnarenaError:
                continue
            if found.dist:
                packages[found.dist] = found.version
    services = {n: e.service.url for n, e in league.bots.items() if e.service is not None}
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": packages,
        **({"services": services} if services else {}),
        "rules": json.loads(json.dumps(rules.options(), default=str)),
        "data": data_hashes(game, rules),
    }


def data_hashes(game: Game, rules: Any) -> dict[str, str]:
    """Hashes of the game's data files and of any file a rule option names."""
    data = Path(sys.modules[type(game).__module__].__file__ or "").parent / "data"
    files = sorted(data.glob("*")) if data.is_dir() else []
    files += [Path(v) for k, v in rules.options().items() if k.endswith("_file") and v]
    return {
        f.name if f.parent == data else str(f): hashlib.blake2b(
            f.read_bytes(), digest_size=16
        ).hexdigest()
        for f in files
        if f.is_file()
    }


def started_before(out: Path, hashes: Mapping[str, str]) -> set[str]:
    """The bots of ``hashes`` (name -> source hash) that the results in
    ``out`` already hold with that very code: they passed their preflight
    when they joined (an unreadable run.json: none)."""
    try:
        kept = json.loads((out / layout.RUN_JSON).read_text("utf-8")).get("bots", {})
    except (OSError, ValueError, AttributeError):
        return set()
    if not isinstance(kept, dict):
        return set()
    return {name for name, digest in hashes.items() if kept.get(name) == digest}


def preflight(
    game: Game,
    entry: BotEntry,
    rules: Any,
    limits: Limits | None = None,
    stderr_lines: list[str] | None = None,
) -> None:
    """Start an out-of-process bot and shake hands (the ``start`` message)
    before a league or a match begins: a missing program, a crash at start
    or an import error in the sandbox is a one-line BotLoadError. The last
    lines of the bot's stderr are appended to ``stderr_lines``."""
    with tempfile.TemporaryDirectory(prefix="bohnarena-preflight-") as tmp:
        log = Path(tmp) / "bot.log"
        seat = make_seat(game, entry, limits or Limits(), log=log)
        try:
            fault = seat.start(0, rules, 0)
        finally:
            seat.close()
        if fault is None:
            return
        tail = stderr_tail(log)
    if stderr_lines is not None:
        stderr_lines += tail
    if entry.spec is not None and entry.isolation != "inprocess":
        why = not_allowed(" ".join([fault, *tail]), entry.packages)
        if why is not None:
            raise BotLoadError(f"bot {entry.name!r} does not start: {fault[:300]}; {why}")
    raise BotLoadError(f"bot {entry.name!r} does not start: {fault}{telling(tail)}"[:500])


#: A line of a program's stderr that says what went wrong (Python, Node.js, the JVM, C).
ERROR_LINE = re.compile(r"error|exception|cannot|can't|not found|fatal|panic", re.IGNORECASE)


def telling(stderr: list[str]) -> str:
    """The line of a failing bot's stderr (:func:`stderr_tail`) that tells why:
    the first that reads as an error (a Node.js or JVM error comes first,
    then a stack and a version line), and the last when that is another."""
    if not stderr:
        return ""
    first = next((line for line in stderr if ERROR_LINE.search(line)), stderr[-1])
    if first == stderr[-1]:
        return f"; its stderr ends: {first}"
    return f"; its stderr says: {first} ... and ends: {stderr[-1]}"


def stderr_tail(log: Path, kept: int = 10, most: int = 1 << 16) -> list[str]:
    """What of a bot's stderr log tells why it failed: its last non-empty
    lines, after its first line that reads as an error when that came
    earlier (``...`` between). The bot's text: whoever prints it escapes it."""
    try:
        with open(log, "rb") as f:
            head = f.read(most)
            f.seek(max(f.tell(), f.seek(0, os.SEEK_END) - most))
            rest = f.read()
    except OSError:
        return []
    text = (head + rest).decode("utf-8", errors="replace")
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    first = next((i for i, line in enumerate(lines) if ERROR_LINE.search(line)), len(lines))
    if first >= len(lines) - kept:
        return lines[-kept:]
    return [lines[first], "...", *lines[-kept:]]


def check_workers(backend: Backend, league: League) -> None:
    """Every worker of a cluster must load every bot before a match is sent."""
    found = backend.on_every_worker(bots_problem, league.game, league.bots)
    for worker, problem in sorted(found.items()):
        if problem:
            raise UsageError(f"worker {worker} cannot load {problem}")


def bots_problem(game_name: str, bots: dict[str, BotEntry]) -> str | None:
    """Runs on a worker: the first bot that does not load there, and why."""
    game = get_game(game_name)
    for name, entry in bots.items():
        try:
            if entry.isolation == "inprocess":
                load_bot(entry.spec or "", game.bot_base)
            elif entry.spec:
                locate(entry.spec)
        except BohnarenaError as e:
            return f"bot {name!r}: {e}"
    return None
