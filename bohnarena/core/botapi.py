"""What a bot is given, any game: the base of every game's bot and seat
view, the seat protocol the referee asks, what a seat sees of the records,
and the few constants of answers (notes, fault reasons, how an answer came
about). Games build on these; the referee (:mod:`bohnarena.referee.seats`)
drives them."""

from __future__ import annotations

import random
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from .faults import fault_type as fault_type  # (the games' record visibility: a seam helper)
from .game import MatchResult

#: The longest note (characters) a bot may attach to an answer; longer ones are cut.
NOTE_CHARS = 200
#: The longest public message (table talk) an answer may carry; longer ones are cut.
SAY_CHARS = 200
FAULT_CHARS = 600  # longer than any reason the engine writes: it cuts them itself

#: What a seat sees of a record: the record, a masked copy, or None (nothing).
Public = Callable[[tuple[Any, ...], int], "tuple[Any, ...] | None"]


class BotBase:
    """What every game's bot base class shares: the hooks, and the rule that a
    decision the bot's class does not override is never asked."""

    #: Shown in listings and transcripts; defaults to the class name.
    name: ClassVar[str] = ""
    game: ClassVar[str] = ""
    #: The game's decision methods (set by the game's Bot base class).
    DECISIONS: ClassVar[tuple[str, ...]] = ()
    #: Run out of process, does the bot get the searchable state with each
    #: view, so that ``view.determinize`` works there too (docs/search.md)?
    #: Only a bot that searches should: it costs a snapshot a decision.
    wants_state: ClassVar[bool] = False

    seat: int
    rng: random.Random

    def start(self, seat: int, rules: Any, rng: random.Random) -> None:
        """Called once before the match. ``rng`` is this seat's own seeded stream."""
        self.seat, self.rules, self.rng = seat, rules, rng

    def end(self, result: MatchResult) -> None:
        """Called once after the match."""

    def note(self, text: str) -> None:
        """Attach a short note to the answer this decision gives (call it
        inside the decision method; a second call replaces the first). It is
        stored in the move log and shown by ``replay``, never shown to other
        seats; at most :data:`NOTE_CHARS` characters are kept. Nothing is
        kept where the game or the seat keeps no notes."""
        sink: list[str] | None = getattr(self, "_bohnarena_notes", None)
        if sink is not None:
            sink[:] = [str(text)[:NOTE_CHARS]]

    def decisions(self, rules: Any) -> frozenset[str]:
        """The decisions this bot answers in a match under ``rules``; every
        other decision is played with the base class's answer, without a call.
        Default: the decision methods the bot's class overrides."""
        base = next(c for c in type(self).__mro__ if "DECISIONS" in vars(c))
        return frozenset(
            k for k in self.DECISIONS if getattr(type(self), k, None) is not getattr(base, k)
        )


class SeatClock(Protocol):
    """What a seat's view asks of the match's referee
    (:class:`bohnarena.referee.seats.Referee` is one)."""

    def time_left(self, seat: int) -> float | None: ...
    def match_id(self, seat: int) -> int | None: ...


class TableState(Protocol):
    """What every game's table tells every seat."""

    @property
    def rules(self) -> Any: ...
    @property
    def players(self) -> int: ...
    @property
    def active(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def records(self) -> Sequence[tuple[Any, ...]]: ...
    @property
    def state(self) -> Callable[[], Any]:
        """The searchable state the table is part of (None: none)."""
        ...

    @property
    def referee(self) -> SeatClock | None:
        """The match's referee (set by the match): what a seat's view tells
        of its own seat (time bank, match id). None: a bare table."""
        ...


class ViewBase:
    """What every game's seat view shares: who is looking, and when."""

    __slots__ = ("_seat", "_table")

    def __init__(self, table: TableState, seat: int) -> None:
        self._table = table
        self._seat = seat

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def rules(self) -> Any:
        return self._table.rules

    @property
    def players(self) -> int:
        return self._table.players

    @property
    def active(self) -> int:
        """The active player's seat (seat 0 starts)."""
        return self._table.active

    @property
    def turn(self) -> int:
        return self._table.turn

    @property
    def time_left(self) -> float | None:
        """Seconds left in this seat's time bank this match (``None``:
        unlimited, as an in-process bot without limits)."""
        referee = self._table.referee
        return None if referee is None else referee.time_left(self._seat)

    @property
    def match_id(self) -> int | None:
        """The id of this match in its league run (the ``match_id`` of the
        logs and of ``replay --match``); ``None`` outside a league run."""
        referee = self._table.referee
        return None if referee is None else referee.match_id(self._seat)

    def determinize(self, rng: random.Random) -> Any:
        """A full state of this match that this seat could believe in: the
        cards it cannot see dealt afresh with ``rng`` (the game's
        ``State.determinize``). Play it on with ``apply``; nothing done to it
        reaches the real match. Out of process a bot gets it with
        ``wants_state``."""
        state = self._table.state()
        if state is None:
            raise RuntimeError("this view has no state behind it")
        return state.determinize(self._seat, rng)


def seen_by(records: Sequence[tuple[Any, ...]], seat: int, public: Public) -> list[tuple[Any, ...]]:
    """The records ``seat`` saw, in order, as it saw them."""
    return [p for p in (public(r, seat) for r in records) if p is not None]


class RecordNames:
    """A game's records as named tuples, a class per kind of its ``layout``
    (``Planted(kind, seat, card, field, n)``): what a view's ``history``
    holds. They are tuples, so positional code (``rec[0]``,
    ``kind, seat, *rest = rec``) works on them unchanged."""

    def __init__(self, layout: Mapping[str, Sequence[str]]) -> None:
        self.types: dict[str, type[tuple[Any, ...]]] = {
            kind: namedtuple(
                "".join(p.capitalize() for p in kind.split("_")), ("kind", "seat", *names)
            )
            for kind, names in layout.items()
        }

    def __call__(self, rec: tuple[Any, ...]) -> tuple[Any, ...]:
        """``rec`` as its kind's named tuple (equal to the plain tuple)."""
        cls: Any = self.types.get(rec[0])
        if cls is None or len(rec) != len(cls._fields):
            return rec
        named_rec: tuple[Any, ...] = cls._make(rec)
        return named_rec


def events_since(view: ViewBase, start: int, public: Public) -> tuple[list[tuple[Any, ...]], int]:
    """Engine side (not for bots): the records ``view``'s seat saw from raw
    record ``start`` on, and where the next call starts. Lets a seat in
    another process get only what is new instead of the whole history."""
    records = view._table.records
    return seen_by(records[start:], view.seat, public), len(records)


class Budget(Protocol):
    """A seat's limits as the referee reads them (``referee.limits.Limits``)."""

    @property
    def match_seconds(self) -> float: ...


#: A pair's answers: the first decision's ``(answer, fault)``, and the
#: second's, or None when the seat was not asked it.
PairAnswers = tuple[tuple[Any, str | None], tuple[Any, str | None] | None]


#: A seat's clock: each answer's think time as three values in a row (a
#: flat list: no tuple kept an answer): the seq of its record in the match,
#: the decision, and the seconds charged to the seat's time bank (the
#: timing table rounds them to microseconds). A window answered with the
#: decision after it in one request has the request's time; the second, none.
Clock = list[int | str | float]


class Seat(Protocol):
    """Who answers a seat's decisions: a live bot (in this process or in a
    sandbox process), or a log being replayed. What a seat supports is
    declared here (``pairs``, ``limits``, ...), never probed."""

    asks: frozenset[str]

    @property
    def limits(self) -> Budget | None:
        """Its limits (None: untimed, no time bank)."""
        ...

    @property
    def spent(self) -> float:
        """Seconds its bot's decisions took this match (the time bank's)."""
        ...

    @property
    def match_id(self) -> int | None:
        """The league's id of the match, as the runner gave it (None: none)."""
        ...

    @property
    def notes(self) -> list[Any] | None:
        """The notes of the answers just given, oldest first (None: the
        seat keeps none)."""
        ...

    @property
    def times(self) -> list[float] | None:
        """Seconds per decision, when the seat is timed for a report (None: not)."""
        ...

    @property
    def clock(self) -> Clock | None:
        """Where the referee notes what each answer of this seat's bot cost
        its time bank (None: not noted; a runner that logs times gives a list)."""
        ...

    @property
    def pairs(self) -> bool:
        """Does :meth:`decide_pair` save anything (a round trip to a bot
        process)? The referee pairs a window with the next decision only then."""
        ...

    def decide_pair(self, first: str, then: str, view: Any, args: tuple[Any, ...]) -> PairAnswers:
        """``first`` (no arguments) and, if its answer is None, ``then`` on
        the same view; a seat may answer ``first`` alone (the second None)."""
        ...

    def close(self) -> None:
        """End its bot's processes now, if it has any (idempotent)."""
        ...

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        """Prepare for a match; ``seed`` seeds the bot's own random stream.
        Returns a fault reason or None."""
        ...

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        """Returns ``(answer, fault)``; a fault (a reason) voids the answer."""
        ...

    def forfeits(self, faults: int) -> bool:
        """After a fault: does the seat's bot forfeit the match now?"""
        ...

    def end(self, result: MatchResult) -> str | None: ...


#: How an answer came about, when a game records it (``GameState.RECORDS_HOW``):
#: the seat's bot chose it; the base bot's answer was played (the bot does
#: not answer this decision, or its answer was a fault); the rules left only
#: this answer (recorded by the game, the seat is not asked).
BY_BOT, BY_DEFAULT, FORCED = "bot", "default", "forced"


class Resumable(Protocol):
    """A match stopped at a decision (a game's searchable state): the
    referee answers what is pending, and the state plays on."""

    #: (seat, kind, args) of the decision waiting for an answer; None: none.
    pending: tuple[int, str, tuple[Any, ...]] | None
    #: When the pending decision is a window that may pass (its answer
    #: None), the decision that follows if it does, as (kind, args).
    then: tuple[str, tuple[Any, ...]] | None

    def resume(self, answer: Any, how: str = ..., note: str | None = None) -> None:
        """Play a checked answer to the pending decision, recorded with
        ``how`` and ``note``, and play on to the next decision."""
        ...
