"""A worker's pulse: a few counters in memory it shares with its parent.

In-process bots share the worker's interpreter: one that calls ``os._exit``
kills it, one that silences the watchdog (``setitimer(ITIMER_REAL, 0)``,
``SIG_IGN`` for SIGALRM) and loops hangs it. The parent cannot ask a hung
worker anything, so the worker writes where the parent can read:

* ``BEAT``: the watchdog's tick adds one every 50 ms (no system call: the
  tick runs anyway). The parent reads it on its own clock: a worker that
  plays a batch and has not beaten for ``QUIET`` is hung, and is stopped
  (sooner in a bot's call: ``DUE`` below).
* ``MATCH``: the id (+1) of the match being played; 0 between batches,
  when nobody beats.
* ``SEAT``, ``CALL``: in a diagnostic play only (:mod:`.supervise`), the
  seat (+1) whose call is in progress and which of its calls that is,
  noted before the call: if the worker dies or hangs, the parent knows
  whose call it was.
* ``DUE``, ``HEARD`` (in :attr:`Pulse.times`, seconds as floats): the
  deadline of the in-process bot call in progress (0: none), and when the
  watchdog last ticked in it, by ``time.monotonic()`` (one clock for
  every process of the machine). The watchdog ticks every 50 ms, past the
  deadline too (each tick interrupts the bot): a call that has not ticked
  for ``PAST_DUE`` seconds past its deadline silenced the watchdog, or
  sits in C code that no tick can interrupt; either way the call is a
  timeout already, and its worker is stopped then, not after ``QUIET``.
  (A worker stopped wrongly, its ticks held off by a loaded machine,
  costs time: its batch is played again, and only a call past its
  deadline, a timeout anyway, can be charged.)
"""

from __future__ import annotations

import mmap
import os
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .limits import Limits

BEAT, MATCH, SEAT, CALL, QUIET, PID, DUE, HEARD = range(8)
CELLS = 8  # int64 cells per worker (DUE and HEARD: float64)
SIZE = 8 * CELLS

#: What the machine may add to the longest silence the limits allow (a
#: loaded machine, an import); too short only costs a replay (see supervise.py).
QUIET_SLACK = 5.0
#: How long a bot's call past its deadline may go without a tick (the
#: machine's slack for the watchdog's signal, which the call gets anyway).
PAST_DUE = 1.0


def quiet_seconds(limits: Limits) -> float:
    """How long a playing worker may go without a beat: a tick is held off
    only while Python runs no bytecode (a long C call) or the watchdog is
    silenced, and any call is given up on by the watchdog ``3 x
    decision_seconds`` after it starts (its limit and its grace)."""
    return 3 * limits.decision_seconds + QUIET_SLACK


class Pulse:
    """One worker's cells (a slice of shared memory)."""

    def __init__(self, memory: Any) -> None:
        self.cells = memoryview(memory).cast("B").cast("q")
        #: The same cells as floats, for DUE and HEARD (a float is stored as
        #: it is: a call's note of its deadline costs no conversion).
        self.times = memoryview(memory).cast("B").cast("d")

    @classmethod
    def in_file(cls, fd: int) -> Pulse:
        """The pulse in the file ``fd`` (a child started by exec maps it too)."""
        os.ftruncate(fd, SIZE)
        return cls(mmap.mmap(fd, SIZE))

    def begin(self, limits: Limits) -> None:
        """A batch starts: say how long a silence is allowed, and beat."""
        self.cells[QUIET] = int(quiet_seconds(limits) * 1000)
        self.cells[BEAT] += 1

    def playing(self, match_id: int) -> None:
        self.cells[MATCH] = match_id + 1

    def end(self) -> None:
        """Between batches nobody beats, and nobody is expected to."""
        self.cells[MATCH] = 0

    def enter(self, seat: int, call: int) -> None:
        cells = self.cells
        cells[CALL] = call
        cells[SEAT] = seat + 1

    def leave(self) -> None:
        self.cells[SEAT] = 0

    def in_call(self) -> tuple[int, int] | None:
        """(seat, call) of the call in progress (after a death: when it came)."""
        seat = self.cells[SEAT]
        return None if seat == 0 else (seat - 1, self.cells[CALL])

    @property
    def match(self) -> int | None:
        """The id of the match being played, if any."""
        m = self.cells[MATCH]
        return None if m == 0 else m - 1


class Listener:
    """The parent's side of a pulse, judged on the parent's clock."""

    def __init__(self, pulse: Pulse) -> None:
        self.pulse = pulse
        self.last: int | None = None
        self.since = 0.0
        self.silence = ""  # how the worker was silent, once stalled() said so

    def stalled(self, now: float | None = None) -> bool:
        """Is the worker playing, yet silent for longer than it may be:
        ``QUIET`` seconds, or ``PAST_DUE`` seconds in a call past its deadline?"""
        now = time.monotonic() if now is None else now
        cells, times = self.pulse.cells, self.pulse.times
        if cells[MATCH] == 0:
            self.last = None
            return False
        due = times[DUE]
        if due and now - max(due, times[HEARD]) > PAST_DUE:
            self.silence = f"for {PAST_DUE:g} s past the deadline"
            return True
        beat = cells[BEAT]
        if beat != self.last:
            self.last, self.since = beat, now
            return False
        self.silence = f"for {cells[QUIET] / 1000:g} s"
        return now - self.since > cells[QUIET] / 1000


#: This process's pulse, where its parent listens (None: nobody does).
MINE: Pulse | None = None


def adopt(pulse: Pulse, pid: int | None = None) -> None:
    """Make ``pulse`` this process's (in a worker, before any batch)."""
    global MINE
    MINE = pulse
    pulse.cells[PID] = os.getpid() if pid is None else pid
