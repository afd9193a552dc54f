"""Each bot's stderr, split by match (docs/logs.md, "bots: each bot's stderr").

A bot that runs outside the worker (a process, a sandbox) writes its stderr
to a log of its own in each worker, ``bots/<bot>/<worker>.log``: no two
workers, and no two matches at once, share one. Before each match the bot
plays there the worker appends a line ``--- match N ---`` to it and, to the
index beside it (``<worker>.idx``, which no bot's process can write: it is
never opened for one), a JSON line saying where that line begins. A match's
stderr is what lies between its line and the next one the index names; a
line a bot prints that looks like one is its own text, nothing more.

Read :func:`stderr_of` (a match's) or :func:`newest` (the end of a bot's
newest log; or its one flat ``bots/<bot>.log`` of results written before).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import layout

_WORKERS: dict[tuple[int, int], str] = {}


def worker() -> str:
    """This worker's name: its pid and a random tag (unique though a pid is
    reused, or the same on two machines that share the results' disk),
    one a thread, as a Dask worker's threads play batches at once."""
    key = (os.getpid(), threading.get_ident())
    name = _WORKERS.get(key)
    if name is None:  # (a forked child: a pid of its own, so a name of its own)
        name = _WORKERS[key] = f"{key[0]}-{secrets.token_hex(4)}"
    return name


def log_path(results: Path, bot: str) -> Path:
    """Where ``bot``'s processes write their stderr in this worker."""
    return results / layout.BOT_LOGS / bot / (worker() + layout.BOT_LOG)


def marker(match_id: int) -> bytes:
    return f"--- match {match_id} ---\n".encode()


def _append(fd: int, data: bytes) -> int:
    """``data`` appended in one write (O_APPEND: never inside another's
    line); the offset where it ends."""
    os.write(fd, data)
    return os.lseek(fd, 0, os.SEEK_CUR)  # this description's own offset: our write's end


def mark(log: Path, match_id: int) -> None:
    """Note in ``log`` and its index that match ``match_id`` begins here."""
    log.parent.mkdir(parents=True, exist_ok=True)
    line = marker(match_id)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        at = _append(fd, line) - len(line)
    finally:
        os.close(fd)
    entry = {"match_id": match_id, "at": at, "time_ns": time.time_ns()}
    fd = os.open(log.with_suffix(layout.BOT_INDEX), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _append(fd, (json.dumps(entry) + "\n").encode())
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Stderr:
    """What a bot wrote: ``text`` is its end, from ``shown_from`` of ``size`` bytes."""

    text: str
    size: int
    shown_from: int


def _entry(raw: bytes) -> tuple[int, int, int] | None:
    """(match id, offset, time) of a line of an index; None for a line cut
    short by a crash, or anything else odd."""
    try:
        e = json.loads(raw)
        return int(e["match_id"]), int(e["at"]), int(e["time_ns"])
    except (ValueError, TypeError, KeyError):
        return None


def _plays(path: Path, match_id: int) -> list[tuple[int, int, int | None]]:
    """Each play of ``match_id`` an index notes: (its time, where its line
    begins, where the next one does: None at the log's end). Only lines
    that spell the id as :func:`mark` writes it are read whole (an index
    has a line a match)."""
    rows = path.read_bytes().splitlines()
    spelled, found = json.dumps({"match_id": match_id})[1:-1].encode() + b",", []
    for i, raw in enumerate(rows):
        e = _entry(raw) if spelled in raw else None
        if e is None or e[0] != match_id:
            continue
        after = (_entry(r) for r in rows[i + 1 :])
        end = next((n[1] for n in after if n is not None), None)
        found.append((e[2], e[1], end))
    return found


def _tail(path: Path, start: int, end: int, limit: int) -> Stderr:
    begin = max(start, end - limit)
    with open(path, "rb") as f:
        f.seek(begin)
        data = f.read(end - begin)
    return Stderr(data.decode("utf-8", "replace"), end - start, begin - start)


def stderr_of(results: Path, bot: str, match_id: int, limit: int = 1 << 16) -> Stderr | None:
    """What ``bot``'s processes wrote to stderr in match ``match_id`` (its
    last ``limit`` bytes); None when no log of it notes that match (an
    in-process bot's, results written before logs were split). A match
    played again (a batch retried, a run resumed) is read as last played."""
    folder = results / layout.BOT_LOGS / bot
    best: tuple[int, Path, int, int | None] | None = None  # time, log, start, end
    for index in sorted(folder.glob("*" + layout.BOT_INDEX)) if folder.is_dir() else ():
        for when, at, end in _plays(index, match_id):
            if best is None or when > best[0]:
                best = (when, index.with_suffix(layout.BOT_LOG), at, end)
    if best is None:
        return None
    _, log, at, end = best
    line = marker(match_id)
    try:
        with open(log, "rb") as f:
            f.seek(at)
            if f.read(len(line)) != line:  # not the log its index was written for
                return None
            size = f.seek(0, os.SEEK_END)
    except FileNotFoundError:
        return None
    return _tail(log, at + len(line), size if end is None else min(end, size), limit)


def newest(results: Path, bot: str, limit: int = 1 << 16) -> Stderr | None:
    """The end of ``bot``'s newest log (its one flat log in results written
    before logs were split by worker); None when it has none."""
    logs = results / layout.BOT_LOGS
    folder = logs / bot
    found = list(folder.glob("*" + layout.BOT_LOG)) if folder.is_dir() else []
    flat = logs / (bot + layout.BOT_LOG)
    path = max(found, key=lambda p: p.stat().st_mtime_ns) if found else flat
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    return _tail(path, 0, size, limit)
