"""Seats and the referee: who answers a game's decisions, and how answers
are checked, recorded and replaced by defaults (any game).

A game supplies its decisions (:class:`Decision`: how an answer is checked,
recorded, and what the default answer is).
"""

from __future__ import annotations

import logging
import random
import time
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from math import inf
from pathlib import Path
from types import WrapperDescriptorType
from typing import Any

from ..core.botapi import (
    BY_BOT,
    BY_DEFAULT,
    FAULT_CHARS,
    NOTE_CHARS,
    Clock,
    PairAnswers,
    Resumable,
    Seat,
)
from ..core.errors import IllegalAnswer
from ..core.faults import ILLEGAL, MALFORMED, RAISED, TIMEOUT
from ..core.game import Decision, MatchResult
from ..core.seeding import derive_seed
from ..core.untrusted import one_line
from .limits import DecisionTimeout, Limits, Watchdog, genuine_interrupt

log = logging.getLogger("bohnarena.referee.seats")


class BotSeat:
    """A bot in this process. Anything it raises (BaseException included,
    bar a real Ctrl-C) becomes a fault, never a crash; with ``limits`` every
    call is timed against the decision limit and the time bank, and with an
    active ``watchdog`` a slow call is interrupted.

    ``make`` (the bot's class) defers building the bot to :meth:`start`,
    under the same limits: a constructor that raises or hangs is the bot's
    fault, and the seat forfeits the match."""

    def __init__(
        self,
        bot: Any,
        decisions: Collection[str],
        limits: Limits | None = None,
        watchdog: Watchdog | None = None,
        timed: bool = False,
        make: Callable[[], Any] | None = None,
    ) -> None:
        self.bot = bot
        self.make = make
        self.known = frozenset(decisions)
        self.limits = limits
        self.watchdog = watchdog
        self.timed = timed or limits is not None
        self.times: list[float] | None = [] if timed else None  # seconds per decision
        self.asks: frozenset[str] = frozenset()
        self.spent = 0.0  # seconds of calls this match (the time bank)
        self.lost = False  # given up on for this match: forfeit, ask nothing more
        self.notes: list[Any] = []  # the note of the answer just given (BotBase.note)
        self.match_id: int | None = None  # the league's id of the match (set by the runner)
        self.clock: Clock | None = None  # each answer's think time (the runner's, if it asks)

    #: In this process a pair saves nothing: each decision is a call.
    pairs = False

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        self.spent, self.lost, self.asks = 0.0, False, frozenset()
        if self.make is not None:
            self.bot, fault = self._call(self.make)
            if fault:
                self.lost = True
                return f"{fault} (in the constructor)"
        self.notes = []
        try:  # where BotBase.note puts a note (not through the bot's own __setattr__)
            object.__setattr__(self.bot, "_bohnarena_notes", self.notes)
        except Exception:  # e.g. a bot with __slots__: it cannot note
            pass
        asks, fault = self._hook("decisions", rules)
        if fault is None and not (
            type(asks) is frozenset and all(type(k) is str for k in asks) and asks <= self.known
        ):
            fault = f"{MALFORMED}: decisions() must return a frozenset of decision names"
        self.asks = frozenset() if fault else asks
        return fault or self._hook("start", seat, rules, random.Random(seed))[1]

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        try:  # (not through _hook: one call less on the hot path)
            fn = getattr(self.bot, kind)
        except BaseException as e:
            return None, self.fault_of(e)
        if not self.timed:  # _call's fast path, inlined: the hottest call of a match
            try:
                return fn(view, *args), None
            except BaseException as e:
                if isinstance(e, KeyboardInterrupt) and genuine_interrupt(self.watchdog):
                    raise
                return None, _raised(e)
        return self._call(fn, view, *args)

    def decide_pair(self, first: str, then: str, view: Any, args: tuple[Any, ...]) -> PairAnswers:
        return self.decide(first, view, ()), None

    def close(self) -> None:
        pass  # no process of its own

    def forfeits(self, faults: int) -> bool:
        lim = self.limits
        return self.lost or (
            lim is not None and (faults >= lim.max_faults or self.spent >= lim.match_seconds)
        )

    def end(self, result: MatchResult) -> str | None:
        if self.lost:  # not built, out of time, or hung: nothing more is asked of it
            return None
        return self._hook("end", result)[1]

    def _hook(self, name: str, *args: Any) -> tuple[Any, str | None]:
        try:
            fn = getattr(self.bot, name)
        except BaseException as e:
            return None, self.fault_of(e)
        return self._call(fn, *args)

    def fault_of(self, e: BaseException) -> str:
        """The fault reason for what the bot raised, or raised on looking up
        its method (a property or ``__getattr__`` of its own); a real Ctrl-C
        is raised on."""
        if isinstance(e, KeyboardInterrupt) and genuine_interrupt(self.watchdog):
            raise e
        return _raised(e)

    def _call(self, fn: Any, *args: Any) -> tuple[Any, str | None]:
        if not self.timed:  # the fast path: trusted bots, no limits
            try:
                return fn(*args), None
            except BaseException as e:  # a bot's bug is a fault, never the run's end
                if isinstance(e, KeyboardInterrupt) and genuine_interrupt(self.watchdog):
                    raise
                return None, _raised(e)
        lim, dog = self.limits, self.watchdog
        allowed = inf if lim is None else min(lim.decision_seconds, lim.match_seconds - self.spent)
        start = time.perf_counter()
        answer, fault = None, None
        try:
            if lim is not None and dog is not None and dog.active:
                answer = dog.run(fn, args, allowed, 2 * lim.decision_seconds)
            else:
                answer = fn(*args)
        except DecisionTimeout:
            fault = TIMEOUT
        except BaseException as e:  # SystemExit, GeneratorExit, ...: the bot's fault
            if isinstance(e, KeyboardInterrupt) and genuine_interrupt(dog):
                raise
            fault = _raised(e)
        took = time.perf_counter() - start
        self.spent += took
        if self.times is not None:
            self.times.append(took)
        if dog is not None and dog.interrupted:
            raise KeyboardInterrupt  # a real Ctrl-C that the bot swallowed
        if took > allowed or fault == TIMEOUT:  # a late answer is void too
            return None, self._timeout(allowed)
        return answer, fault

    def _timeout(self, allowed: float) -> str:
        lim, dog = self.limits, self.watchdog
        if lim is None:
            return TIMEOUT
        if dog is not None and dog.abandoned:
            self.lost = True
            return (
                f"{TIMEOUT}: ignored the timeout for {2 * lim.decision_seconds:g} s more;"
                " given up for this match"
            )
        if self.spent >= lim.match_seconds or allowed < lim.decision_seconds:
            self.lost = True
            return f"{TIMEOUT}: time bank of {lim.match_seconds:g} s spent"
        return f"{TIMEOUT}: no answer within {lim.decision_seconds:g} s"


_PLAIN = (str, int, float, bool, type(None))


def _raised(e: BaseException) -> str:
    """A fault reason for what a bot raised, without running its code: a
    message is shown only when Python itself renders it from plain values."""
    cls = type(e)
    args: tuple[Any, ...] = vars(BaseException)["args"].__get__(e)
    text = ""
    if isinstance(cls.__str__, WrapperDescriptorType) and all(type(a) in _PLAIN for a in args):
        text = str(e)[:300]
    reason = f"{RAISED} {cls.__name__}: {text}"[:300]
    _log_traceback(reason, e)
    return reason


_LOGGED: set[tuple[str, str, int]] = set()
_ENGINE = str(Path(__file__).parent.parent)


def _log_traceback(reason: str, e: BaseException) -> None:
    """Each distinct bot error's traceback once per process into the run
    log (the records keep only the reason). Frames and source lines only:
    formatting them runs none of the bot's code."""
    frames = traceback.extract_tb(e.__traceback__)
    while frames and frames[0].filename.startswith(_ENGINE):  # the seat's own calls
        del frames[0]
    where = (frames[-1].filename, frames[-1].lineno or 0) if frames else ("", 0)
    key = (type(e).__name__, *where)
    if key in _LOGGED or len(_LOGGED) >= 100:
        return
    _LOGGED.add(key)
    text = "".join(traceback.format_list(frames)).rstrip()
    log.info("a bot %s (later ones from here are only counted)\n%s", reason, text)


def _illegal(e: IllegalAnswer) -> str:
    return f"{ILLEGAL}: {e}"[:300]


class Referee:
    """Asks seats, checks every answer, records faults, and replaces a
    faulty answer by the default (the decision's ``default``)."""

    def __init__(
        self,
        seats: Sequence[Seat],
        decisions: Mapping[str, Decision],
        state: Any,
        view: Callable[[Any, int], Any],
        notes: bool = False,
        live_views: bool = False,
        asks: list[frozenset[str]] | None = None,
    ) -> None:
        """``state`` is the table the decisions' checks and the views read.
        ``notes``:
        pass on a note a seat's bot attaches to an answer (a seat that keeps
        notes has a list ``notes``); the game's state records it as
        ``("note", seat, text)`` right after the answer's record. ``live_views``:
        ``view(state, seat)`` reads the state live (as a :class:`ViewBase`
        does, holding no values of its own), so one view a seat serves every
        decision of the match (building one a decision was a twentieth of a
        match's time). ``asks``: the list that holds what each seat is asked
        (shared with a game state that needs it; a forfeit empties an entry)."""
        self.seats = list(seats)
        self.decisions, self.state, self.view = decisions, state, view
        n = len(self.seats)
        self.faults = [0] * n
        self.forfeited: set[int] = set()
        self.asks: list[frozenset[str]] = asks if asks is not None else [frozenset()] * n
        self.keep_notes = notes
        #: Each seat's pending notes, oldest first (None: no note for that answer).
        self.notes: list[list[Any] | None] = [None] * n
        self._views = [view(state, s) for s in range(n)] if live_views else None
        #: Each seat whose bot is untimed in this process (its bot is called
        #: directly: two calls less a decision), else None.
        self._direct: list[BotSeat | None] = [None] * n
        #: Where each seat's think times go (Seat.clock), else None.
        self._clocks: list[Clock | None] = [None] * n

    def time_left(self, seat: int) -> float | None:
        """Seconds left in ``seat``'s time bank this match (None: no limits)."""
        agent = self.seats[seat]
        limits = agent.limits
        if limits is None:
            return None
        return max(0.0, limits.match_seconds - agent.spent)

    def match_id(self, seat: int) -> int | None:
        """The league's id of this match, as the runner gave it to the seat."""
        return self.seats[seat].match_id

    def _put(self, rec: tuple[Any, ...]) -> None:
        """Record ``rec`` (through the table's ``record``, which every record goes through)."""
        self.state.record(rec)

    def seat_all(self, rules: Any, seed: int) -> None:
        """Start every seat's agent; each gets its own seeded random stream."""
        for s, agent in enumerate(self.seats):
            fault = agent.start(s, rules, derive_seed(seed, "bot", s))
            self._put(("seat", s, ",".join(sorted(agent.asks))))
            self.asks[s] = agent.asks
            self._clocks[s] = agent.clock
            if type(agent) is BotSeat and not agent.timed and not agent.lost:
                self._direct[s] = agent
            if self.keep_notes:
                notes = agent.notes
                if notes:
                    notes.clear()  # (one its start hook wrote)
                self.notes[s] = notes
            if fault:
                self.fault(s, "start", fault)

    def _view(self, seat: int) -> Any:
        return self._views[seat] if self._views else self.view(self.state, seat)

    def answer(self, seat: int, kind: str, args: tuple[Any, ...] = ()) -> tuple[Any, str, Any]:
        """The seat's checked answer, how it came about (``BY_BOT`` or
        ``BY_DEFAULT``) and its note (None: none). A fault is recorded."""
        view = self._views[seat] if self._views else self.view(self.state, seat)
        if kind not in self.asks[seat]:
            return self.decisions[kind].default(view, *args), BY_DEFAULT, None
        direct, clock = self._direct[seat], self._clocks[seat]
        if clock is not None:
            agent = self.seats[seat]
            before = agent.spent
            answer, fault = agent.decide(kind, view, args)
            took = agent.spent - before
            if fault is None:  # _settle's common case, inlined
                try:
                    checked = self.decisions[kind].check(self.state, seat, answer, *args)
                except IllegalAnswer as e:
                    fault = _illegal(e)
                else:  # (its record is the next: the state records it on return)
                    clock += (len(self.state.records), kind, took)
                    return checked, BY_BOT, (self._note(seat) if self.notes[seat] else None)
            settled = self._settle(seat, kind, args, view, answer, fault)  # (a fault recorded)
            clock += (len(self.state.records), kind, took)
            return settled
        if direct is None:
            answer, fault = self.seats[seat].decide(kind, view, args)
        else:  # BotSeat.decide, inlined: the hottest call of a match
            try:
                answer, fault = getattr(direct.bot, kind)(view, *args), None
            except BaseException as e:
                answer, fault = None, direct.fault_of(e)
        if fault is None:  # _settle's common case, inlined (one call less a decision)
            try:
                checked = self.decisions[kind].check(self.state, seat, answer, *args)
            except IllegalAnswer as e:  # anything else is an engine bug: the match errors
                fault = _illegal(e)
            else:
                return checked, BY_BOT, (self._note(seat) if self.notes[seat] else None)
        return self._settle(seat, kind, args, view, answer, fault)

    def run(self, state: Resumable) -> None:
        """Answer every decision ``state`` stops at, until it stops at none.
        A seat that can (``decide_pair``) gets a window and the decision
        that follows it in one request."""
        resume, asks, seats, decisions = state.resume, self.asks, self.seats, self.decisions
        table, views, notes, clocks = self.state, self._views, self.notes, self._clocks
        while (pending := state.pending) is not None:
            seat, kind, args = pending
            if kind not in asks[seat]:
                resume(*self.answer(seat, kind, args))
                continue
            then = state.then
            if then is not None and then[0] in asks[seat] and seats[seat].pairs:
                self._paired(state, seats[seat].decide_pair, seat, kind, then)
                continue
            # self.answer(), inlined: the hottest loop of a match
            view = views[seat] if views else self.view(table, seat)
            agent, clock = seats[seat], clocks[seat]
            before = 0.0 if clock is None else agent.spent
            answer, fault = agent.decide(kind, view, args)
            if fault is None:
                try:
                    checked = decisions[kind].check(table, seat, answer, *args)
                except IllegalAnswer as e:  # anything else is an engine bug: the match errors
                    fault = _illegal(e)
                else:
                    if clock is not None:  # (its record is the next: resume records it)
                        clock += (len(table.records), kind, agent.spent - before)
                    resume(checked, BY_BOT, self._note(seat) if notes[seat] else None)
                    continue
            took = 0.0 if clock is None else agent.spent - before
            settled = self._settle(seat, kind, args, view, answer, fault)  # (a fault recorded)
            if clock is not None:
                clock += (len(table.records), kind, took)
            resume(*settled)

    def _paired(
        self,
        state: Resumable,
        pair: Callable[..., Any],
        seat: int,
        first: str,
        then: tuple[str, tuple[Any, ...]],
    ) -> None:
        """``first`` (asked without arguments; None means nothing changes),
        then, if it was None, ``then``: the same answers and records as two
        requests, in one."""
        kind, args = then
        view = self._view(seat)
        agent, clock = self.seats[seat], self._clocks[seat]
        before = agent.spent
        (answer, fault), second = pair(first, kind, view, args)
        settled = self._settle(seat, first, (), view, answer, fault)
        if clock is not None:  # the request's time, on the first answer
            clock += (len(self.state.records), first, agent.spent - before)
        state.resume(*settled)
        pending = state.pending
        if (
            settled[0] is not None
            or fault is not None
            or second is None
            or pending is None
            or pending[0] != seat
            or pending[1] != kind
            or pending[2] is not args  # e.g. the seat forfeited: its answer is void
        ):
            self._drop_notes(seat)  # a note for a second answer that is void
            return
        if not self._views:
            view = self.view(self.state, seat)
        state.resume(*self._settle(seat, kind, args, view, *second))

    def _settle(
        self,
        seat: int,
        kind: str,
        args: tuple[Any, ...],
        view: Any,
        answer: Any,
        fault: str | None,
    ) -> tuple[Any, str, Any]:
        """Check a seat's answer (the default after a fault): the answer,
        how it came about, and its note."""
        spec = self.decisions[kind]
        if fault is None:
            try:
                answer = spec.check(self.state, seat, answer, *args)
            except IllegalAnswer as e:  # anything else is an engine bug: the match errors
                fault = _illegal(e)
        if fault is not None:
            self.fault(seat, kind, fault)
            self._drop_notes(seat)  # it explained an answer that is void (as out of process)
            return spec.default(view, *args), BY_DEFAULT, None
        return answer, BY_BOT, (self._note(seat) if self.notes[seat] else None)

    def _note(self, seat: int) -> str | None:
        """The note of the answer just given, if it is a usable one."""
        notes = self.notes[seat]
        assert notes
        note = notes.pop(0)
        if type(note) is str and note:
            return one_line(note, NOTE_CHARS)
        return None

    def _drop_notes(self, seat: int) -> None:
        notes = self.notes[seat]
        if notes:
            notes.clear()

    def fault(self, seat: int, kind: str, reason: str) -> None:
        self.faults[seat] += 1
        # A bot's text, printed in transcripts and stored as UTF-8 (a lone
        # surrogate would void the whole batch).
        reason = one_line(reason, FAULT_CHARS)
        self._put(("fault", seat, kind, reason))
        if seat not in self.forfeited and self.seats[seat].forfeits(self.faults[seat]):
            # The seat plays on with default answers and is ranked last.
            self.forfeited.add(seat)
            self._put(("forfeit", seat))
            self.asks[seat] = frozenset()

    def end_all(self, result: MatchResult) -> None:
        for s, agent in enumerate(self.seats):
            fault = agent.end(result)
            if fault:
                self.fault(s, "end", fault)
        # The match is over: let go of its table and views, the cycle (the
        # table's referee) that kept a match's records alive until the
        # collector ran (in a worker, which turns it off for a batch, every
        # match's until the batch ended); now they go with their last
        # reference. A bot's view keeps reading the table.
        self.state = None
        self._views = None
