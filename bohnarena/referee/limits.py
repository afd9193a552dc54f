"""Limits on bots, and the in-process watchdog that enforces decision time."""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..core.errors import UsageError
from .pulse import BEAT, DUE, HEARD, Pulse

LOG_CAP_FACTOR = 16
#: Below these no bot can work (a Python interpreter alone maps ~100 MB).
MINIMUM = {"memory_mb": 256, "output_kb": 4, "disk_mb": 1, "max_processes": 1}


@dataclass(frozen=True)
class Limits:
    """What a bot may use. Defaults in docs/writing-a-bot.md; a league's
    ``[limits]`` table overrides them."""

    decision_seconds: float = 2.0  # one decision
    match_seconds: float = 120.0  # all decisions of one match (the time bank)
    memory_mb: int = 1024  # address space of each process of an out-of-process bot
    output_kb: int = 1024  # one message from an out-of-process bot (x16: its log)
    disk_mb: int = 64  # a sandboxed bot's private /tmp
    max_processes: int = 32  # processes of a sandboxed command bot (Python bots: 1)
    max_faults: int = 100  # faults in one match before the bot forfeits

    @property
    def start_seconds(self) -> float:
        """How long an out-of-process bot may take to start a match (its
        import in the sandbox, its constructor, ``start``): not counted."""
        return max(self.decision_seconds, 10.0)

    @property
    def log_bytes(self) -> int:
        """Where a bot's stderr log stops growing (also the largest file it may write)."""
        return LOG_CAP_FACTOR * self.output_kb * 1024

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str = "[limits]") -> Limits:
        known = {f.name: f.type for f in fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise UsageError(f"{where}: unknown limit {key!r} (known: {', '.join(known)})")
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value <= 0
            ):
                raise UsageError(f"{where}: {key} must be a positive number")
            if value < MINIMUM.get(key, 0):
                raise UsageError(f"{where}: {key} must be at least {MINIMUM[key]}")
            if known[key] == "int" and not isinstance(value, int):
                raise UsageError(f"{where}: {key} must be a whole number")
        return cls(**data)


class DecisionTimeout(BaseException):
    """Raised inside a bot's decision that ran past its time limit.

    A BaseException, so that a bot's ``except Exception`` does not swallow it.
    """


class Watchdog:
    """Interrupts an in-process bot call that runs past its deadline.

    One periodic SIGALRM timer per batch (no system call per decision): each
    tick checks the deadline of the call in progress (:meth:`run`) and, past
    it, raises :class:`DecisionTimeout` on every tick until the call
    returns. A bot that swallows them all (a bare ``except:`` in a loop) is
    given up on after a grace period: see :meth:`_escape`. A call that
    finds the timer silent (no tick for three) arms it again first: a bot
    that silenced it and returned leaves the next bots their timeouts.

    Signals are handled only between bytecodes, so a C call that never
    returns (``sum(range(10**12))``) cannot be interrupted in process. They
    reach only the main thread; elsewhere the watchdog is off (``active`` is
    False) and bot calls are timed only after they return.

    It also tells a real Ctrl-C from a bot raising KeyboardInterrupt: see
    :func:`genuine_interrupt`. With a ``pulse``, every tick beats it, and
    a call notes its deadline there and each tick in it the time: the
    parent that listens sees a worker whose ticks stopped, sooner when they
    stopped in a call past its deadline (a bot that silenced the timer, or
    sits in C code: see pulse.py). Times are ``time.monotonic()``'s, the
    clock the parent reads too.
    """

    TICK = 0.05

    def __init__(self, pulse: Pulse | None = None) -> None:
        self.pulse = pulse
        self._cells = None if pulse is None else pulse.cells
        self._times = None if pulse is None else pulse.times
        self.deadline: float | None = None  # monotonic time; None: no call in progress
        self.give_up = 0.0  # past this the call is abandoned
        self.heard = 0.0  # when the timer last ticked
        self.abandoned = False  # the current (or last) call was given up on
        self.interrupted = False  # a real SIGINT arrived (seen only when guards_sigint)
        self.guards_sigint = False
        self.active = False
        self._previous: Any = None
        self._previous_int: Any = None
        self._trace_before: Any = None

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGALRM)
            self._arm()
            self.active = True
            # Only where Ctrl-C would raise KeyboardInterrupt anyway (not in
            # pool workers, which ignore SIGINT): note that it really came.
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                self._previous_int = signal.signal(signal.SIGINT, self._interrupt)
                self.guards_sigint = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self.active = False
        if self.guards_sigint:
            signal.signal(signal.SIGINT, self._previous_int)
            self.guards_sigint = False

    def run(
        self, fn: Callable[..., Any], args: tuple[Any, ...], seconds: float, grace: float
    ) -> Any:
        """``fn(*args)``, interrupted ``seconds`` from now; given up on
        ``grace`` seconds after that. The alarm never raises in this frame
        itself (see :meth:`_alarm`), so the deadline is always cleared."""
        now = time.monotonic()
        if now - self.heard > _SILENT:  # silenced (by a bot's call before): armed again
            self._arm()
        self.give_up = now + seconds + grace
        self.abandoned = False
        self.deadline = deadline = now + seconds
        times = self._times
        if times is not None:  # (a bot's call past it must tick: see pulse.py)
            times[DUE] = deadline
        try:
            return fn(*args)
        finally:
            self.deadline = None
            if times is not None:
                times[DUE] = 0.0
            if self.abandoned:
                sys.settrace(self._trace_before)

    def _arm(self) -> None:
        """The timer ticking into this watchdog, from now."""
        signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, self.TICK, self.TICK)
        self.heard = time.monotonic()
        if self._times is not None:
            self._times[HEARD] = self.heard

    def _alarm(self, signum: int, frame: Any) -> None:
        self.heard = now = time.monotonic()
        cells = self._cells
        if cells is not None:
            cells[BEAT] += 1
        if self.deadline is None:
            return  # no call in progress
        if self._times is not None:
            self._times[HEARD] = now
        if frame is None or frame.f_code in _OWN_CODE:
            return  # not in the bot's code (never in run() itself)
        if now <= self.deadline:
            return
        if now > self.give_up:
            self._escape(frame)
        raise DecisionTimeout

    def _escape(self, frame: Any) -> None:
        """Give up on a bot that swallows every DecisionTimeout: trace its
        frames so that the next opcode raises again, also inside its
        ``except`` blocks (a raise there leaves the ``try``).

        A trace function that raises is removed by Python, so it re-arms
        the alarm to fire within a millisecond, which traces afresh: every
        millisecond at least two raises, until the call gives up. (A bot
        can still hold out, by nesting handlers deeply or sitting in C code;
        in-process bots are trusted, the sandbox is for the others.)"""
        if not self.abandoned:
            self.abandoned = True
            self._trace_before = sys.gettrace()
        f = frame
        while f is not None and f.f_code is not _RUN_CODE:  # the bot's frames only
            f.f_trace, f.f_trace_opcodes = self._raise, True
            f = f.f_back
        sys.settrace(self._raise)  # and every frame the bot calls next

    def _raise(self, frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code in _OWN_CODE:
            return None  # the watchdog's own frames (the alarm handler, run) are never traced
        if event in ("exception", "return") or self.deadline is None:
            return self._raise
        signal.setitimer(
            signal.ITIMER_REAL, 0.001, self.TICK
        )  # this raise untraces: trace again soon
        raise DecisionTimeout

    def _interrupt(self, signum: int, frame: Any) -> None:
        self.interrupted = True
        raise KeyboardInterrupt


#: No tick for this long (three ticks): the timer was silenced.
_SILENT = 3 * Watchdog.TICK
_RUN_CODE = Watchdog.run.__code__
_OWN_CODE = frozenset(
    f.__code__
    for f in (
        Watchdog.run,
        Watchdog._arm,
        Watchdog._alarm,
        Watchdog._escape,
        Watchdog._raise,
        Watchdog._interrupt,
    )
)


def genuine_interrupt(dog: Watchdog | None) -> bool:
    """Is a KeyboardInterrupt caught around a bot call a real Ctrl-C (stop
    everything) or the bot's own raise (a fault)?

    A SIGINT handler that notes the signal is installed once per batch by
    the watchdog, never per call (the fast path stays free of system
    calls). Pool workers ignore SIGINT (the parent stops the run), so there
    any KeyboardInterrupt is a bot's; so it is outside the main thread,
    where signals never land. Otherwise, with nobody noting signals, a real
    Ctrl-C cannot be ruled out: stop."""
    if dog is not None and dog.guards_sigint:
        return dog.interrupted
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
