"""The unit of work: play a batch of scheduled matches.

:func:`play_batch` plays its :class:`BatchTask` (bot specs as strings,
loaded here). It is not a pure function: it may spool its tables and
write the bots' logs into the results directory, it keeps bot processes and
sandboxes for the worker's next batch, and a time limit makes an answer
depend on the machine's speed. The tables depend on the task alone only
where every bot keeps to its limits: then the same task gives the same
tables in any process, on any machine.
"""

from __future__ import annotations

import gc
import io
import logging
import os
import pickle
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

from ..analysis.thinking import Timed, batch_timed
from ..core.botapi import Clock
from ..core.entry import BotEntry
from ..core.game import get_game
from ..core.stopping import die_with_parent, private_memory
from ..league.schedule import MatchSpec
from ..referee import pulse
from ..referee.limits import Limits, Watchdog
from ..store import botlogs
from ..store.directory import RunDir
from ..store.logbook import (
    MatchRow,
    MovesLog,
    exchanges_table,
    matches_table,
    moves_table,
    timing_table,
)
from .seating import make_seat
from .supervise import Verdict, probed, supervised, watched

log = logging.getLogger("bohnarena.run.worker")


#: How a batch's logs reach the run: "files", its Parquet parts written into
#: the results directory by the worker (where it can write there: ``spool``);
#: "tables", its tables sent back for the run to write; "records", its
#: records and clocks sent back as they are, for the run to build the tables
#: from and write (a run with a core to spare: logging then costs a worker
#: under a third of what building and writing the tables does).
HandOver = Literal["files", "tables", "records"]


@dataclass(frozen=True)
class BatchTask:
    game: str
    edition: str
    players: int
    rules: dict[str, Any]
    bots: dict[str, BotEntry]
    matches: tuple[MatchSpec, ...]
    moves: bool = True
    #: The results directory, where the worker can write to it (its bots'
    #: logs go there, and with ``hand_over`` "files" its Parquet parts).
    spool: str | None = None
    limits: Limits = field(default_factory=Limits)
    #: Played again after its worker died or hung: in a watched process of
    #: its own, match by match (see :func:`play_carefully`).
    careful: bool = False
    #: A diagnostic play (in that process): every bot call is noted in its
    #: pulse, and each verdict's call is not made (see supervise.py).
    verdicts: tuple[Verdict, ...] | None = None
    #: How the batch's logs reach the run (see :data:`HandOver`).
    hand_over: HandOver = "files"

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
    timing: pa.Table | Path | None = None  # logged with the moves
    #: The timing table summed up, for the run's report (it reads no timing file).
    timed: Timed | None = None
    #: Handed over as "records": the moves and think times, for :func:`built`.
    unbuilt: Unbuilt | None = None
    #: The text seats' exchanges (None: no seat plays in words, or no logs).
    exchanges: pa.Table | Path | None = None

    # Pickled (to the run, to a Dask client) with each table as an Arrow IPC
    # stream: a table's own pickling, at the protocol a pool sends with (4),
    # costs more than building the table (a 50-match batch's moves: 6-8 ms,
    # against well under 1 ms as a stream).
    def __getstate__(self) -> dict[str, Any]:
        return {k: _ipc(v) if isinstance(v, pa.Table) else v for k, v in vars(self).items()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, _from_ipc(v) if isinstance(v, _Ipc) else v)


class Unbuilt:
    """A batch's moves and think times as its matches left them, for the
    run to build the tables from: each match's records, pickled as the match
    ends (so that they are freed at once, as a worker that builds the tables
    frees them), and its seats' clocks, with the game's log layout."""

    def __init__(self, layout: Mapping[str, Sequence[str]], columns: Mapping[str, str]) -> None:
        self.layout, self.columns = layout, columns
        self.clocks: list[tuple[int, list[Clock]]] = []
        self._records = io.BytesIO()
        # No memo (the pickler's "fast" mode): half the time, for values
        # that repeat no object worth sharing and hold no cycle.
        self._pickler = pickle.Pickler(self._records, pickle.HIGHEST_PROTOCOL)
        self._pickler.fast = True

    def add(self, match_id: int, records: Sequence[tuple[Any, ...]], clocks: list[Clock]) -> None:
        self._pickler.dump((match_id, records))
        self.clocks.append((match_id, clocks))

    def records(self) -> Iterator[tuple[int, Sequence[tuple[Any, ...]]]]:
        """Each match's id and records, in the order they were added."""
        data = self._records.getvalue()
        stream = io.BytesIO(data)
        while stream.tell() < len(data):
            yield pickle.load(stream)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "layout": self.layout,
            "columns": self.columns,
            "clocks": self.clocks,
            "records": self._records.getvalue(),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.layout, self.columns, self.clocks = state["layout"], state["columns"], state["clocks"]
        self._records = io.BytesIO(state["records"])
        self._records.seek(0, io.SEEK_END)


def built(result: BatchResult) -> BatchResult:
    """``result`` with its tables (the run's half of a batch handed over as
    records: the tables its worker would have built)."""
    unbuilt = result.unbuilt
    if unbuilt is None:
        return result
    assert isinstance(result.matches, pa.Table), "records are handed over with the matches table"
    timing = timing_table(unbuilt.clocks)
    return replace(
        result,
        moves=moves_table(unbuilt.records(), unbuilt.layout, unbuilt.columns),
        timing=timing,
        timed=batch_timed(result.matches, timing),
        unbuilt=None,
    )


class _Ipc(bytes):
    """A table as an Arrow IPC stream (see BatchResult.__getstate__)."""


def _ipc(table: pa.Table) -> _Ipc:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)
    return _Ipc(sink.getvalue())


def _from_ipc(data: bytes) -> pa.Table:
    with pa.ipc.open_stream(data) as source:
        return source.read_all()


def play_batch(task: BatchTask) -> BatchResult:
    if task.careful:
        return play_carefully(task)
    if threading.current_thread() is not threading.main_thread() and any(
        b.isolation in ("inprocess", "process") for b in task.bots.values()
    ):
        # A Dask worker runs tasks in threads, where no signal arrives: the
        # watchdog could not stop a hung bot. A process of its own can (and
        # a process bot may kill that one, not the Dask worker); a death or
        # a hang there raises BatchLost, pinned on this batch (the runner
        # plays it again carefully).
        result: BatchResult = supervised(task)
        return result
    # A batch keeps its matches' moves (their values) and clocks until it is
    # logged: the cyclic collector would rescan them over and over for
    # nothing. (A match's own objects go as it ends: it leaves no cycle.)
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _play(task)
    finally:
        if enabled:
            gc.enable()


def serve_one(pulse_fd: int | None = None) -> None:
    """In a fresh interpreter (:func:`~bohnarena.run.supervise.watched`): one
    pickled task on stdin, its result on stdout (which in-process bots'
    prints must not reach: they go to stderr); a diagnostic play sends each
    match's result as the match ends, so that a death loses none. It beats
    the pulse in the file ``pulse_fd``, which its parent watches."""
    die_with_parent()
    if pulse_fd is not None:
        pulse.adopt(pulse.Pulse.in_file(pulse_fd))
    task = pickle.loads(sys.stdin.buffer.read())
    if any(b.isolation == "process" for b in task.bots.values()):
        private_memory()  # as LocalPool's workers do
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for one in (
        [task] if task.verdicts is None else [replace(task, matches=(m,)) for m in task.matches]
    ):
        out.write(pickle.dumps(play_batch(one)))
        out.flush()
    out.close()


def play_carefully(task: BatchTask) -> BatchResult:
    """``task`` played again after its worker died or hung: in a watched
    process of its own, each bot call noted (a diagnostic play, see
    supervise.py). When that process dies or hangs in a match, the matches
    before it are kept, and the rest is played again in a fresh one, with a
    verdict for the seat whose call it was; a death no seat's call explains
    (or the same seat's again: not the same death) errors that match alone.
    No bot code runs in this process."""
    played: list[BatchResult] = []
    errors: list[tuple[int, str]] = []
    pending = task.matches
    verdicts: tuple[Verdict, ...] = ()
    while pending:
        results, lost = watched(replace(task, matches=pending, careful=False, verdicts=verdicts))
        played += results
        pending = pending[len(results) :]
        if lost is None or not pending:
            break
        m = pending[0]
        signallers = [s for s, name in enumerate(m.seats) if task.bots[name].isolation == "process"]
        verdict = lost.verdict(task.limits, signallers)
        if verdict is None or verdict[0] != m.id or any(v[:2] == verdict[:2] for v in verdicts):
            reason = f"{lost}, " + (
                "in no bot's call"
                if lost.in_call is None or lost.match != m.id
                else "maybe by a process bot at the table"
                if verdict is None
                else "again in a call of a seat already charged"
            )
            log.error("match %d: %s; it is errored", m.id, reason)
            errors.append((m.id, reason[:500]))
            pending = pending[1:]
        else:
            log.warning(
                "match %d: %s, in a call of seat %d; played again with that seat charged",
                m.id,
                lost,
                verdict[1],
            )
            verdicts += (verdict,)
    game = get_game(task.game)
    return _finish(
        task,
        pa.concat_tables([r.matches for r in played]) if played else matches_table([]),
        pa.concat_tables([r.moves for r in played] or [moves_table([], game.layout, game.columns)])
        if task.moves
        else None,
        [*(e for r in played for e in r.errors), *errors],
        pa.concat_tables([r.timing for r in played] or [timing_table([])]) if task.moves else None,
        _joined([r.exchanges for r in played]),
    )


def _joined(tables: Sequence[pa.Table | Path | None]) -> pa.Table | None:
    """The exchanges tables of a careful play's matches, as one (None: none)."""
    held = [t for t in tables if isinstance(t, pa.Table)]
    return pa.concat_tables(held) if held else None


def _play(task: BatchTask) -> BatchResult:
    batch = _Batch(task)
    beating = pulse.MINE
    with Watchdog(beating) as watchdog:
        if beating is not None:
            beating.begin(task.limits)
        try:
            for m in task.matches:
                if beating is not None:
                    beating.playing(m.id)
                batch.play(m, watchdog)
        finally:
            if beating is not None:
                beating.end()
    matches = matches_table(batch.rows)
    talk = exchanges_table(batch.talk) if batch.talk else None
    if batch.unbuilt is not None:  # handed over as they are: the run builds the tables
        return BatchResult(
            matches.num_rows,
            matches,
            None,
            batch.errors,
            unbuilt=batch.unbuilt,
            exchanges=talk,
        )
    moves = batch.moves.table() if task.moves else None
    timing = timing_table(batch.times) if task.moves else None
    return _finish(task, matches, moves, batch.errors, timing, talk)


def _finish(
    task: BatchTask,
    matches: pa.Table,
    moves: pa.Table | None,
    errors: list[tuple[int, str]],
    timing: pa.Table | None,
    talk: pa.Table | None = None,
) -> BatchResult:
    """The batch's result: its tables, or the files they were spooled to
    (a diagnostic play sends its one match's tables back to play_carefully)."""
    # (a diagnostic play's one match goes back to play_carefully, which sums up its batch)
    timed = None if timing is None or task.verdicts is not None else batch_timed(matches, timing)
    if task.spool is None or task.verdicts is not None or task.hand_over != "files":
        return BatchResult(matches.num_rows, matches, moves, errors, timing, timed, exchanges=talk)
    tag = f"{task.first:09d}-{task.last:09d}-{os.getpid()}"
    files = RunDir(task.spool).spool(tag, matches, moves, timing, talk)
    matches_file, moves_file, timing_file, talk_file = files
    return BatchResult(
        matches.num_rows, matches_file, moves_file, errors, timing_file, timed, exchanges=talk_file
    )


class _Batch:
    """The matches of one task, played one by one, with what they produced."""

    def __init__(self, task: BatchTask) -> None:
        self.task = task
        self.game = get_game(task.game)
        self.rules = self.game.rules(task.edition, task.players, task.rules)
        self.results = Path(task.spool) if task.spool else None  # where bots' stderr goes
        self.rows: list[MatchRow] = []
        #: The moves, column by column: each match's records go in as it ends.
        self.moves = MovesLog(self.game.layout, self.game.columns)
        #: Or each match's records and clocks as they are (handed over as
        #: "records"; not by a diagnostic play, whose tables play_carefully joins).
        self.unbuilt = (
            Unbuilt(self.game.layout, self.game.columns)
            if task.moves and task.hand_over == "records" and task.verdicts is None
            else None
        )
        #: Each match's think times: its seats' clocks.
        self.times: list[tuple[int, list[Clock]]] = []
        #: The exchanges of its seats that play in words, as rows (see exchanges_table).
        self.talk: list[dict[str, Any]] = []
        self.errors: list[tuple[int, str]] = []

    def _logs(self, m: MatchSpec) -> dict[str, Path]:
        """The stderr log of each bot of the match that runs in processes
        of its own, the match's beginning marked in it (store/botlogs.py)."""
        found: dict[str, Path] = {}
        results = self.results
        if results is None:
            return found
        for name in dict.fromkeys(m.seats):
            e = self.task.bots[name]
            if e.isolation in ("process", "sandbox") and e.service is None and e.chat is None:
                found[name] = botlogs.log_path(results, name)
                botlogs.mark(found[name], m.id)
        return found

    def play(self, m: MatchSpec, watchdog: Watchdog) -> None:
        task, start = self.task, time.perf_counter()
        try:
            logs = self._logs(m)
            seats = [
                make_seat(
                    self.game,
                    task.bots[name],
                    task.limits,
                    watchdog,
                    logs.get(name),
                    match_id=m.id,
                    clocked=task.moves,
                )
                for name in m.seats
            ]
            made = seats
            if task.verdicts is not None:  # a diagnostic play: every call noted
                assert pulse.MINE is not None, "a diagnostic play runs where its pulse is read"
                seats = probed(seats, pulse.MINE, m.id, task.verdicts)
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
            self.talk += (
                {**vars(x), "match_id": m.id, "seat": i}
                for i, seat in enumerate(made)
                for x in getattr(seat, "exchanges", ())
            )
            clocks = [seat.clock or [] for seat in seats]
            if self.unbuilt is not None:
                self.unbuilt.add(m.id, records, clocks)
            else:
                self.moves.add(m.id, records)
                self.times.append((m.id, clocks))
