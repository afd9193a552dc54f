"""Limits on bots, and the in-process watchdog that enforces decision time."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import UsageError

ISOLATIONS = ("inprocess", "process", "sandbox")
#: Older names: "subprocess" was the sandbox's name before it had namespaces.
ISOLATION_ALIASES = {"subprocess": "sandbox"}
LOG_CAP_FACTOR = 16


@dataclass(frozen=True)
class Limits:
    """What a bot may use. Defaults in docs/writing-a-bot.md; a league's
    ``[limits]`` table overrides them."""

    decision_seconds: float = 2.0   # one decision
    match_seconds: float = 120.0    # all decisions of one match (the time bank)
    memory_mb: int = 1024           # address space of each process of an out-of-process bot
    output_kb: int = 1024           # one message from an out-of-process bot (x16: its log)
    disk_mb: int = 64               # a sandboxed bot's private /tmp
    max_processes: int = 32         # processes of a sandboxed command bot (Python bots: 1)
    max_faults: int = 100           # faults in one match before the bot forfeits

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
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise UsageError(f"{where}: {key} must be a positive number")
            if known[key] == "int" and not isinstance(value, int):
                raise UsageError(f"{where}: {key} must be a whole number")
        return cls(**data)


class DecisionTimeout(BaseException):
    """Raised inside a bot's decision that ran past its time limit.

    A BaseException, so that a bot's ``except Exception`` does not swallow it.
    """


class Watchdog:
    """Interrupts an in-process decision that runs past its ``deadline``
    (set by the caller around each decision, a perf_counter time).

    One periodic SIGALRM timer per match (no system call per decision):
    each tick checks the deadline of the decision in progress. Signals reach
    only the main thread; elsewhere the watchdog is off and decisions run
    unlimited (``active`` is False).
    """

    TICK = 0.05

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.active = False
        self._previous: Any = None

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, self.TICK, self.TICK)
            self.active = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self.active = False

    def _alarm(self, signum: int, frame: Any) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.deadline = None
            raise DecisionTimeout
