"""Replaying a logged match (any game): the logged answers are applied to
the game's searchable state, and every record the rules make is compared
with the logged one as it is made.

A changed card, a dropped or added move, an edited count or an illegal
logged decision makes the two streams differ; :class:`Divergence` names the
first move where they do. A game's :class:`Replayer` verifies its logs,
narrates them and shows the table at any move; the game supplies only its
state, decisions, table as data and narrator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..core.botapi import BY_BOT, BY_DEFAULT, Public, Resumable
from ..core.errors import BohnarenaError, IllegalAnswer
from ..core.game import Decision, MatchResult


class Divergence(BohnarenaError):
    """The first move where the log and the rules differ: the log's record
    there and the rules' (either may instead be a note in parentheses, such
    as ``"(seat 1 answers plant)"``, or None where the log ends).
    :meth:`Replayer.explain` says it in the game's words."""

    def __init__(self, index: int, logged: Any, replayed: Any) -> None:
        super().__init__(index, logged, replayed)
        self.index, self.logged, self.replayed = index, logged, replayed

    def __str__(self) -> str:
        return f"move {self.index}: the log has {self.logged!r}, the rules give {self.replayed!r}"


class Stop(Exception):
    """Ends a replay at ``stop_at`` (a signal, not an error)."""


class NoSuchTurn(BohnarenaError, ValueError):
    """``replay_lines(from_turn=N)`` of a match without a turn N."""


class ReplayState(Resumable, Protocol):
    """A game's searchable state as replay drives it (see :func:`apply_log`)."""

    asks: list[frozenset[str]]
    forfeited: set[int]
    result: MatchResult | None

    @property
    def table(self) -> Any: ...
    def start(self, declared: Sequence[frozenset[str]] | None = None) -> None: ...
    def check(self, answer: Any) -> Any: ...
    def view(self, seat: int) -> Any: ...


def apply_log(
    state: ReplayState,
    log: Sequence[tuple[Any, ...]],
    decisions: Mapping[str, Decision],
    stop_at: int | None = None,
    on_record: Callable[[int, tuple[Any, ...], Any], None] | None = None,
) -> tuple[Any, MatchResult | None]:
    """Replay ``log`` by applying its answers to a fresh ``state``: the
    referee's records (seats, faults, forfeits, notes) are taken from the
    log, every other record is made by the rules and compared with the
    log's as it is made. Returns the table (as it stood after move
    ``stop_at``, or at the end) and the result (None when stopped early);
    raises :class:`Divergence` where log and rules differ. ``on_record``
    sees every record with the table as it stands right after it."""
    table = state.table
    made: list[tuple[Any, ...]] = []

    def record(rec: tuple[Any, ...]) -> None:
        i = len(made)
        logged = log[i] if i < len(log) else None  # (the log ends)
        if rec != logged:
            raise Divergence(i, logged, rec)
        made.append(rec)
        if on_record is not None:
            on_record(i, rec, table)
        if stop_at is not None and i >= stop_at:
            raise Stop

    def peek() -> tuple[Any, ...] | None:
        return log[len(made)] if len(made) < len(log) else None

    faults = [0] * len(state.asks)

    def faulted(seat: int, kind: str) -> bool:
        """Take the seat's logged fault at ``kind`` (and forfeit), if any."""
        rec = peek()
        if rec is None or rec[:3] != ("fault", seat, kind) or len(rec) != 4:
            return False
        record(rec)
        faults[seat] += 1
        if peek() == ("forfeit", seat):
            record(("forfeit", seat))
            state.forfeited.add(seat)
            state.asks[seat] = frozenset()
        return True

    table.records, table.record = made, record
    try:
        declared = []
        for s in range(len(state.asks)):
            rec = peek()
            if rec is None or rec[:2] != ("seat", s) or len(rec) != 3 or type(rec[2]) is not str:
                raise Divergence(len(made), rec, ("seat", s, "..."))
            asks = frozenset(filter(None, rec[2].split(",")))
            if not asks <= decisions.keys():
                raise Divergence(len(made), rec, f"(seat {s} answers only {sorted(decisions)})")
            record(rec)
            state.asks[s] = asks
            declared.append(asks)
            faulted(s, "start")
        state.start(declared)
        while (pending := state.pending) is not None:
            seat, kind, args = pending
            fault = faulted(seat, kind)
            at = len(made)
            rec = peek()
            if rec is None or rec[:2] != (kind, seat):
                raise Divergence(at, rec, f"(seat {seat} answers {kind})")
            note = log[at + 1] if at + 1 < len(log) else None
            text = note[2] if note is not None and note[:2] == ("note", seat) else None
            decision = decisions[kind]
            if fault:  # the default is played, whatever the log says
                state.resume(decision.default(state.view(seat), *args), BY_DEFAULT, text)
                continue
            try:
                answer = decision.decode(rec[2:])
                said = at + 1 + (text is not None)  # table talk follows the answer and its note
                if decision.saying is not None and said < len(log):
                    talk = log[said]
                    if talk[:2] == ("said", seat) and len(talk) == 3 and type(talk[2]) is str:
                        answer = decision.saying(answer, talk[2])
                answer = state.check(answer)
            except IllegalAnswer as e:
                raise Divergence(at, rec, f"(illegal: {e})") from None
            state.resume(answer, BY_BOT, text)
        counted = tuple(faults)  # the result's: a match's result is made before its end hooks
        for s in range(len(state.asks)):
            faulted(s, "end")
    except Stop:
        return table, None
    if len(made) != len(log):
        raise Divergence(len(made), log[len(made)], "(nothing, the match is over)")
    result = state.result
    assert result is not None
    return table, replace(result, faults=counted)


class Narrator(Protocol):
    """A game's words for its records and its table."""

    def describe(self, rec: Sequence[Any]) -> str | None:
        """One line for a record (None: nothing to say)."""
        ...

    def table(self, state: dict[str, Any]) -> list[str]:
        """The table as it stands (a :attr:`Replayer.state`), a line per row."""
        ...


def _everything(rec: tuple[Any, ...], seat: int) -> tuple[Any, ...] | None:
    return rec


@dataclass(frozen=True)
class Replayer:
    """Replaying one game's logs: verify, narrate, show the table at a move.
    The fields are what is the game's own; the methods are the same for every
    game (a game binds them as its :class:`~bohnarena.core.game.Game` members)."""

    #: (rules, seed) -> the game's searchable state before the deal, which
    #: replay drives with the logged answers (:func:`apply_log`).
    new_state: Callable[[Any, int], ReplayState]
    decisions: Mapping[str, Decision]
    #: (table, seat) -> the table as plain data (all of it, or what ``seat``
    #: sees); it has at least "turn" and "active".
    state: Callable[[Any, int | None], dict[str, Any]]
    #: A record as ``{"kind", "seat", <named values>}``.
    as_dict: Callable[[Sequence[Any]], dict[str, Any]]
    #: names -> the game's :class:`Narrator`.
    narrator: Callable[[Sequence[str]], Narrator]
    #: What a seat saw of a record (default: every record is public).
    public: Public = _everything
    #: (rules, log) -> the first problem a check of the log apart from the
    #: engine finds (e.g. the end of the game), or None.
    audit: Callable[[Any, Sequence[tuple[Any, ...]]], str | None] | None = None

    def replay(
        self,
        rules: Any,
        seed: int,
        log: Sequence[tuple[Any, ...]],
        stop_at: int | None = None,
        on_record: Callable[[int, tuple[Any, ...], Any], None] | None = None,
    ) -> tuple[Any, MatchResult | None]:
        """Replay ``log`` (see :func:`apply_log`)."""
        return apply_log(self.new_state(rules, seed), log, self.decisions, stop_at, on_record)

    def verify(
        self, rules: Any, seed: int, log: Sequence[tuple[Any, ...]]
    ) -> tuple[MatchResult | None, str | None]:
        """The replayed result, or the first difference from the log (in words)."""
        problem = None if self.audit is None else self.audit(rules, log)
        if problem is not None:
            return None, problem
        try:
            return self.replay(rules, seed, log)[1], None
        except Divergence as d:
            return None, self.explain(d)

    def words(self, rec: Any, names: Sequence[str] = ()) -> str:
        """A record (or a divergence's note in its place) in words: the
        narrator's line, else its kind, seat and values by name. A logged
        record may be anything an editor wrote: what the narrator cannot
        read is shown as it is."""
        if rec is None:
            return "nothing (the log ends)"
        if isinstance(rec, str):
            return rec.strip("()")
        try:
            line = self.narrator(names).describe(rec)
            if line is not None:
                return f'"{line.strip().strip("=").strip()}"'
            values = ", ".join(f"{k} {v!r}" for k, v in self.as_dict(rec).items() if k != "kind")
            return f"{rec[0]} ({values})"
        except Exception:  # an edited record of the wrong shape or values
            return repr(rec)

    def explain(self, d: Divergence, names: Sequence[str] = ()) -> str:
        """``d`` in words, with the move number and, where both sides are
        records of one kind, the values that differ."""
        text = (
            f"move {d.index}: the log has {self.words(d.logged, names)}, "
            f"the rules give {self.words(d.replayed, names)}"
        )
        a, b = d.logged, d.replayed
        if isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] and len(a) == len(b):
            try:
                logged, replayed = self.as_dict(a), self.as_dict(b)
            except Exception:  # an unknown kind
                return text
            differ = [
                f"{k} {logged[k]!r} in the log, {replayed[k]!r} by the rules"
                for k in logged
                if logged[k] != replayed.get(k)
            ]
            if differ:
                text += f" ({'; '.join(differ)})"
        return text

    def transcript(self, records: Iterable[Sequence[Any]], names: Sequence[str]) -> Iterator[str]:
        """A line per record that has one (no replay: the records as played)."""
        narrator = self.narrator(names)
        return (line for rec in records if (line := narrator.describe(rec)) is not None)

    def _shown(self, rec: tuple[Any, ...], seat: int | None) -> tuple[Any, ...] | None:
        return rec if seat is None else self.public(rec, seat)

    def replay_lines(
        self,
        rules: Any,
        seed: int,
        log: Sequence[tuple[Any, ...]],
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
        numbered: bool = False,
        from_turn: int | None = None,
        to_turn: int | None = None,
    ) -> Iterator[str]:
        """The replayed match, move by move, with the table at each turn's
        start. ``numbered``: each record's line starts with its move number
        (what ``--at`` takes); ``from_turn``: only from the start of that
        turn on (the records before it are replayed, not shown);
        ``to_turn``: up to the end of that turn (the replay stops there).
        Raises :class:`Divergence` where the log leaves the rules."""
        narrator = self.narrator(names)
        out: list[str] = []
        showing = from_turn is None

        def emit(i: int, rec: tuple[Any, ...], table: Any) -> None:
            nonlocal showing
            if to_turn is not None and rec[0] == "turn" and rec[2] > to_turn:
                raise Stop
            if not showing:
                if rec[0] != "turn" or rec[2] < (from_turn or 0):
                    return
                showing = True
            shown = self._shown(rec, seat)
            if shown is None:
                return
            if as_json:
                out.append(json.dumps({"move": i, **self.as_dict(shown)}))
            elif (line := narrator.describe(shown)) is not None:
                if numbered:  # (a line that opens a section keeps its blank line)
                    gap = "\n" if line.startswith("\n") else ""
                    line = f"{gap}{i:>5} {line.lstrip()}" if gap else f"{i:>5} {line}"
                out.append(line)
            if rec[0] == "turn":
                state = self.state(table, seat)
                out.extend(
                    [json.dumps({"move": i, "kind": "table", "state": state})]
                    if as_json
                    else narrator.table(state)
                )

        self.replay(rules, seed, log, on_record=emit)
        if not showing:
            turns = sum(rec[0] == "turn" for rec in log)
            raise NoSuchTurn(f"the match has turns 1-{turns}, not turn {from_turn}")
        return iter(out)

    def table_at(
        self,
        rules: Any,
        seed: int,
        log: Sequence[tuple[Any, ...]],
        move: int,
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
    ) -> list[str]:
        """The whole table after ``move`` (or what ``seat`` saw of it)."""
        table, _ = self.replay(rules, seed, log, stop_at=move)
        state = self.state(table, seat)
        rec = log[move]
        shown = self._shown(rec, seat)
        if as_json:
            record = None if shown is None else {"move": move, **self.as_dict(shown)}
            return [json.dumps({"move": move, "record": record, "state": state})]
        narrator = self.narrator(names)
        what = narrator.describe(shown) if shown is not None else None
        head = f"After move {move} ({rec[0] if shown is not None else 'hidden'})"
        phase = f", phase {state['phase']}" if "phase" in state else ""
        return [
            head + (f": {what.strip()}" if what else ""),
            f"  turn {state['turn']}, active seat {state['active']}{phase}",
            *narrator.table(state),
        ]
