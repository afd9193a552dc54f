"""The unit of work: play a batch of scheduled matches.

:func:`play_batch` is a pure function of its :class:`BatchTask` (bot specs
as strings, loaded here): the same task gives the same tables in any
process, on any machine.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from .game import get_game
from .league import BotEntry
from .limits import Limits, Watchdog
from .logbook import matches_table, moves_table
from .schedule import MatchSpec
from .seating import make_seat
from .store import RunDir

log = logging.getLogger("bohnarena.worker")


@dataclass(frozen=True)
class BatchTask:
    game: str
    edition: str
    players: int
    rules: dict[str, Any]
    bots: dict[str, BotEntry]
    matches: tuple[MatchSpec, ...]
    moves: bool = True
    #: A results directory the worker can write to: it spools its parts
    #: there instead of sending the tables back.
    spool: str | None = None
    limits: Limits = field(default_factory=Limits)
    tries: int = field(default=0, compare=False)

    @property
    def first(self) -> int:
        return self.matches[0].id

    @property
    def last(self) -> int:
        return self.matches[-1].id


@dataclass
class BatchResult:
    played: int
    matches: pa.Table | Path  # the table, or the file it was spooled to
    moves: pa.Table | Path | None
    errors: list[tuple[int, str]]  # (match id, reason): matches that could not be played


def play_batch(task: BatchTask) -> BatchResult:
    if threading.current_thread() is not threading.main_thread() and any(
        b.isolation == "inprocess" for b in task.bots.values()
    ):
        # A Dask worker runs tasks in threads, where no signal arrives: the
        # watchdog could not stop a hung bot. A process of its own can.
        return _in_own_process(task)
    # Records are many small tuples kept until the batch is logged: the
    # cyclic collector would rescan them over and over for nothing.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _play(task)
    finally:
        if enabled:
            gc.enable()


def _in_own_process(task: BatchTask) -> BatchResult:
    """``task`` played by a fresh interpreter (not multiprocessing:
    a Dask worker's process may be a daemon, which may not have children)."""
    # (-c, not -m: the result's classes must pickle as bohnarena.worker's, not __main__'s)
    done = subprocess.run(
        [sys.executable, "-c", "from bohnarena.worker import serve_one; serve_one()"],
        input=pickle.dumps(task),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"the batch process exited with code {done.returncode}: {tail[0]}")
    result: BatchResult = pickle.loads(done.stdout)
    return result


def serve_one() -> None:
    """In that interpreter: one pickled task on stdin, its result on
    stdout (which in-process bots' prints must not reach: they go to stderr)."""
    task = pickle.loads(sys.stdin.buffer.read())
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out.write(pickle.dumps(play_batch(task)))
    out.close()


def _play(task: BatchTask) -> BatchResult:
    batch = _Batch(task)
    with Watchdog() as watchdog:
        for m in task.matches:
            batch.play(m, watchdog)
    game = batch.game
    moves = moves_table(batch.records, game.layout, game.columns) if task.moves else None
    matches = matches_table(batch.rows)
    if task.spool is None:
        return BatchResult(len(batch.rows), matches, moves, batch.errors)
    tag = f"{task.first:09d}-{task.last:09d}-{os.getpid()}"
    matches_file, moves_file = RunDir(task.spool).spool(tag, matches, moves)
    return BatchResult(len(batch.rows), matches_file, moves_file, batch.errors)


class _Batch:
    """The matches of one task, played one by one, with what they produced."""

    def __init__(self, task: BatchTask) -> None:
        self.task = task
        self.game = get_game(task.game)
        self.rules = self.game.rules(task.edition, task.players, task.rules)
        self.logs_dir = Path(task.spool) / "bots" if task.spool else None
        self.rows: list[dict[str, Any]] = []
        self.records: list[tuple[int, list[tuple[Any, ...]]]] = []
        self.errors: list[tuple[int, str]] = []

    def play(self, m: MatchSpec, watchdog: Watchdog) -> None:
        task, start = self.task, time.perf_counter()
        try:
            seats = [
                make_seat(
                    self.game,
                    task.bots[name],
                    task.limits,
                    watchdog,
                    self.logs_dir / f"{name}.log" if self.logs_dir else None,
                    match_id=m.id,
                )
                for name in m.seats
            ]
            result, records = self.game.play(self.rules, m.seed, seats)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # an engine bug (bots' own errors are faults): this match only
            self.errors.append((m.id, f"{type(e).__name__}: {e}"[:500]))
            log.error("match %d failed: %s: %s", m.id, type(e).__name__, e, exc_info=True)
            return
        self.rows.append(
            {
                "match_id": m.id,
                "table": m.table,
                "deal": m.deal,
                "rotation": m.rotation,
                "seed": m.seed,
                "seats": list(m.seats),
                "coins": list(result.coins),
                "ranks": list(result.ranks),
                "winners": list(result.winners),
                "turns": result.turns,
                "faults": list(result.faults),
                "duration_s": time.perf_counter() - start,
            }
        )
        if any(result.faults):
            log.info("match %d: faults per seat %s", m.id, list(result.faults))
        if task.moves:
            self.records.append((m.id, records))
