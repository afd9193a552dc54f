"""Replaying a logged match through the rules engine, without its bots.

The engine plays the match again from its seed; every decision is answered
from the log (:class:`LogSeat`), and every record the engine makes is
checked against the logged one as it is made. A changed card, a dropped or
added move, an edited coin count or an illegal logged decision makes the two
streams differ, and :class:`Divergence` names the first move where they do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..game import MatchResult
from .decisions import DECISIONS
from .match import Match
from .records import as_dict
from .rules import RuleSet
from .table import Table
from .view import SeatView


class Divergence(Exception):
    def __init__(self, index: int, logged: Any, replayed: Any) -> None:
        super().__init__(index, logged, replayed)
        self.index, self.logged, self.replayed = index, logged, replayed

    def __str__(self) -> str:
        return (f"move {self.index}: the log has {self.logged!r}, "
                f"the rules give {self.replayed!r}")


class _Stop(Exception):
    pass


class _Checked(list):
    """The replay's record list: each record is compared with the log's as it is made."""

    def __init__(self, log: Sequence[tuple], stop_at: int | None,
                 on_record: Callable[[int, tuple, Table], None] | None) -> None:
        super().__init__()
        self.log, self.stop_at, self.on_record = log, stop_at, on_record
        self.table: Table | None = None

    def append(self, rec: tuple) -> None:
        i = len(self)
        logged = self.log[i] if i < len(self.log) else "(nothing: the log ends)"
        if rec != logged:
            raise Divergence(i, logged, rec)
        super().append(rec)
        if self.on_record is not None and self.table is not None:
            self.on_record(i, rec, self.table)
        if self.stop_at is not None and i >= self.stop_at:
            raise _Stop


class LogSeat:
    """Answers a seat's decisions from the log."""

    def __init__(self, seat: int, log: Sequence[tuple], made: list[tuple]) -> None:
        self.seat, self.log, self.made = seat, log, made
        self.asks: frozenset[str] = frozenset()

    def _at(self, offset: int = 0) -> tuple | None:
        i = len(self.made) + offset
        return self.log[i] if i < len(self.log) else None

    def _fault(self, kind: str, offset: int = 0) -> str | None:
        rec = self._at(offset)
        if rec is not None and rec[0] == "fault" and rec[1] == self.seat and rec[2] == kind:
            return rec[3]
        return None

    def start(self, seat: int, rules: RuleSet, seed: int) -> str | None:
        rec = self._at()  # the engine records ("seat", seat, asks) next
        if rec is None or rec[0] != "seat" or rec[1] != seat:
            raise Divergence(len(self.made), rec, ("seat", seat, "..."))
        self.asks = frozenset(filter(None, rec[2].split(",")))
        return self._fault("start", offset=1)

    def decide(self, kind: str, view: SeatView, args: tuple) -> tuple[Any, str | None]:
        fault = self._fault(kind)
        if fault is not None:
            return None, fault
        rec = self._at()
        if rec is not None and rec[0] == kind and rec[1] == self.seat:
            return DECISIONS[kind].decode(rec[2:]), None
        if kind == "anytime":
            return None, None  # an empty harvest window leaves no record
        raise Divergence(len(self.made), rec, f"(seat {self.seat} answers {kind})")

    def forfeits(self, faults: int) -> bool:
        rec = self._at()  # right after the fault the engine just recorded
        return rec is not None and rec[0] == "forfeit" and rec[1] == self.seat

    def end(self, result: MatchResult) -> str | None:
        return self._fault("end")


def replay(rules: RuleSet, seed: int, log: Sequence[tuple], stop_at: int | None = None,
           on_record: Callable[[int, tuple, Table], None] | None = None,
           ) -> tuple[Table, MatchResult | None]:
    """Replay ``log``; returns the table (as it stood after move ``stop_at``,
    or at the end) and the result (None when stopped early). ``on_record``
    sees every record with the table as it stands right after it."""
    made = _Checked(log, stop_at, on_record)
    match = Match(rules, seed, [LogSeat(s, log, made) for s in range(rules.players)])
    match.table.records = made
    made.table = match.table
    try:
        result = match.play()
    except _Stop:
        return match.table, None
    if len(made) != len(log):
        raise Divergence(len(made), log[len(made)], "(nothing: the match is over)")
    return match.table, result


def verify(rules: RuleSet, seed: int, log: Sequence[tuple]) -> tuple[MatchResult | None, str | None]:
    """The replayed result, or the first difference from the log."""
    try:
        return replay(rules, seed, log)[1], None
    except Divergence as d:
        return None, str(d)


def state(table: Table, seat: int | None = None) -> dict[str, Any]:
    """The whole table (or what ``seat`` sees of it) as plain data."""
    t = table
    out: dict[str, Any] = {
        "turn": t.turn, "active": t.active, "phase": t.phase, "exhaustions": t.exhaustions,
        "draw_pile": len(t.deck), "discard": list(t.discard), "revealed": list(t.revealed),
    }
    if seat is None:
        out["draw_pile_top"] = t.deck[-1] if t.deck else None
    seats = []
    for s in range(t.players):
        own = seat is None or s == seat
        seats.append({"seat": s, "hand": list(t.hands[s]) if own else None,
                      "hand_size": len(t.hands[s]), "fields": [list(f) for f in t.fields[s]],
                      "trade_area": list(t.trade[s]), "coins": len(t.coins[s])})
    out["seats"] = seats
    if seat is not None:
        out["seen_by"] = seat
    return out


def record_dict(index: int, rec: Sequence[Any]) -> dict[str, Any]:
    return {"move": index, **as_dict(rec)}
