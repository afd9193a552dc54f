"""Replaying a logged match (any game): seats that answer from the log, and
a record list that compares every new record with the logged one.

A changed card, a dropped or added move, an edited count or an illegal
logged decision makes the two streams differ; :class:`Divergence` names the
first move where they do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .game import MatchResult
from .seats import Decision


class Divergence(Exception):
    def __init__(self, index: int, logged: Any, replayed: Any) -> None:
        super().__init__(index, logged, replayed)
        self.index, self.logged, self.replayed = index, logged, replayed

    def __str__(self) -> str:
        return f"move {self.index}: the log has {self.logged!r}, the rules give {self.replayed!r}"


class Stop(Exception):
    pass


class Checked(list):
    """The replay's record list: each record is compared with the log's as it is made."""

    def __init__(
        self,
        log: Sequence[tuple],
        stop_at: int | None,
        on_record: Callable[[int, tuple, Any], None] | None,
    ) -> None:
        super().__init__()
        self.log, self.stop_at, self.on_record = log, stop_at, on_record
        self.table: Any = None

    def append(self, rec: tuple) -> None:
        i = len(self)
        logged = self.log[i] if i < len(self.log) else "(nothing: the log ends)"
        if rec != logged:
            raise Divergence(i, logged, rec)
        super().append(rec)
        if self.on_record is not None and self.table is not None:
            self.on_record(i, rec, self.table)
        if self.stop_at is not None and i >= self.stop_at:
            raise Stop


class LogSeat:
    """Answers a seat's decisions from the log."""

    def __init__(
        self,
        seat: int,
        log: Sequence[tuple],
        made: list[tuple],
        decisions: Mapping[str, Decision],
        unrecorded: frozenset[str] = frozenset(),
    ) -> None:
        """``unrecorded``: decisions whose empty answer the game does not record."""
        self.seat, self.log, self.made, self.decisions = seat, log, made, decisions
        self.unrecorded = unrecorded
        self.asks: frozenset[str] = frozenset()

    def _at(self, offset: int = 0) -> tuple | None:
        i = len(self.made) + offset
        return self.log[i] if i < len(self.log) else None

    def _fault(self, kind: str, offset: int = 0) -> str | None:
        rec = self._at(offset)
        if rec is not None and rec[0] == "fault" and rec[1] == self.seat and rec[2] == kind:
            return rec[3]
        return None

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        rec = self._at()  # the engine records ("seat", seat, asks) next
        if rec is None or rec[0] != "seat" or rec[1] != seat:
            raise Divergence(len(self.made), rec, ("seat", seat, "..."))
        self.asks = frozenset(filter(None, rec[2].split(",")))
        return self._fault("start", offset=1)

    def decide(self, kind: str, view: Any, args: tuple) -> tuple[Any, str | None]:
        fault = self._fault(kind)
        if fault is not None:
            return None, fault
        rec = self._at()
        if rec is not None and rec[0] == kind and rec[1] == self.seat:
            return self.decisions[kind].decode(rec[2:]), None
        if kind in self.unrecorded:
            return None, None  # an empty answer left no record
        raise Divergence(len(self.made), rec, f"(seat {self.seat} answers {kind})")

    def forfeits(self, faults: int) -> bool:
        rec = self._at()  # right after the fault the engine just recorded
        return rec is not None and rec[0] == "forfeit" and rec[1] == self.seat

    def end(self, result: MatchResult) -> str | None:
        return self._fault("end")


def replay(
    build: Callable[[list[LogSeat]], Any],
    players: int,
    log: Sequence[tuple],
    decisions: Mapping[str, Decision],
    unrecorded: frozenset[str] = frozenset(),
    stop_at: int | None = None,
    on_record: Callable[[int, tuple, Any], None] | None = None,
) -> tuple[Any, MatchResult | None]:
    """Replay ``log`` through the match ``build(seats)`` makes (it must have a
    ``table`` with ``records``, and ``play()``). Returns the table (as it
    stood after move ``stop_at``, or at the end) and the result (None when
    stopped early); raises :class:`Divergence` where log and rules differ.
    ``on_record`` sees every record with the table as it stands right after it."""
    made = Checked(log, stop_at, on_record)
    match = build([LogSeat(s, log, made, decisions, unrecorded) for s in range(players)])
    match.table.records = made
    made.table = match.table
    try:
        result = match.play()
    except Stop:
        return match.table, None
    if len(made) != len(log):
        raise Divergence(len(made), log[len(made)], "(nothing: the match is over)")
    return match.table, result
