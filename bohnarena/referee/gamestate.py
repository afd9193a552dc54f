"""A match stopped at a decision (any game): what every game's searchable
state shares.

A game's state is its table plus a stack of frames, ``(step, *values)``
tuples of plain values run top first. A step runs the rules on until a
seat must decide; then it pushes the frame that takes the answer and sets
``pending``. :meth:`GameState.apply` (or the referee's
:meth:`GameState.resume`) plays the answer and runs on to the next
decision; with an ``answerer`` the state asks it instead of stopping (bots
in the engine's process, and playouts). A game subclasses
:class:`GameState`, supplies its table, steps and views, and ends the match
in :meth:`GameState._end`.
"""

from __future__ import annotations

import random
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..core.botapi import BY_BOT, BY_DEFAULT, Seat
from ..core.errors import IllegalAnswer
from ..core.game import Decision, MatchResult
from .seats import Referee

Frame = tuple[Any, ...]
Pending = tuple[int, str, tuple[Any, ...]]  # (seat, decision kind, its arguments)
#: ``(seat, kind, args) -> (checked answer, how, note)``: answers as the rules go.
Answerer = Callable[[int, str, tuple[Any, ...]], tuple[Any, str, Any]]
#: What :meth:`GameState._decide` returns when the state stops for the answer.
STOPPED: Any = object()
#: ``(state, seat, kind, args, rng) -> answer``: how a playout answers.
Policy = Callable[[Any, int, str, tuple[Any, ...], random.Random], Any]
#: Where a playout's records go: nowhere (a C call that keeps nothing).
_DROP: Callable[[tuple[Any, ...]], None] = deque[tuple[Any, ...]](maxlen=0).append


def no_state() -> Any:
    """A table's ``state`` while no state owns it (a copy, a bare table)."""
    return None


class MatchOver(Exception):
    """Raised by a step when the match ends at once (the final steps run)."""


class _Pause(Exception):
    """Stops the rules where :meth:`GameState.pause_after` asked."""


class GameState:
    """The part of a game's state that is the same in every game.

    ``asks[seat]`` are the decisions that seat is asked (the others are
    played with their default answer); a forfeit empties it. ``declared``
    are the decisions each seat said it answers at the start.
    """

    #: The game's decisions: check, record, default.
    DECISIONS: ClassVar[Mapping[str, Decision]]
    #: Does a decision record end with how it came about (and is a default
    #: answer recorded)?
    RECORDS_HOW: ClassVar[bool]

    table: Any
    asks: list[frozenset[str]]
    declared: list[frozenset[str]]
    _views: list[Any]

    def _begin(
        self, rules: Any, table: Any, asks: Sequence[frozenset[str]] | None, players: int
    ) -> None:
        """The fields every state starts with (called by the game's __init__):
        ``asks`` None asks every seat every decision."""
        self.rules = rules
        self._own(table)
        everything = frozenset(self.DECISIONS)
        self.asks = list(asks) if asks is not None else [everything] * players
        self.declared = list(self.asks)
        #: (seat, kind, args) of the decision waiting for an answer; None: none.
        self.pending: Pending | None = None
        #: The decision that follows the pending ``anytime``-like window when
        #: it passes, as (kind, args); None when there is none.
        self.then: tuple[str, tuple[Any, ...]] | None = None
        #: Seats that forfeited (ranked below every other, whatever their score).
        self.forfeited: set[int] = set()
        self.result: MatchResult | None = None
        #: Answers decisions as they come instead of stopping at them (a
        #: referee's bots in this process, a playout); None: stop at each.
        self.answerer: Answerer | None = None
        #: In a playout: the policy that answers what the seats are asked, and
        #: its random stream (None: not in a playout).
        self._policy: Policy | None = None
        self._policy_rng: Any = None
        self._stack: list[Frame] = []
        self._answer: Any = None
        #: While a decision is put to a policy (or an answerer): its legal
        #: answers where the rules listed them on the way to it (a list not to
        #: be changed), for the decision whose arguments are the very tuple
        #: ``options_for``; None otherwise. A policy reads them instead of
        #: listing them again when ``state.options_for is args``.
        self.options: list[Any] | None = None
        self.options_for: tuple[Any, ...] | None = None

    def _own(self, table: Any) -> None:
        """``table`` is this state's: its views reach the state through it
        (weakly: a match's table and state are freed without the gc)."""
        self.table = table
        table.state = weakref.ref(self)

    def referee_for(self, seats: Sequence[Seat], view: Callable[[Any, int], Any]) -> Referee:
        """The referee of this state's match: it asks ``seats`` (one a
        player), shows them ``view(table, seat)`` (read live), keeps their
        notes, and shares this state's asks and forfeits; the table's views
        reach it for the time bank and the match id."""
        if len(seats) != len(self.asks):
            raise ValueError(f"{len(seats)} seats for a {len(self.asks)}-player rule set")
        referee = Referee(
            seats, self.DECISIONS, self.table, view, notes=True, live_views=True, asks=self.asks
        )
        self.forfeited = referee.forfeited
        self.table.referee = referee
        return referee

    def _copy(self) -> Any:
        """A copy sharing nothing mutable the base knows of (the game's
        ``clone`` copies its table, views and its own attributes)."""
        # Attribute by attribute: copying the __dict__ whole would make it a
        # plain dict, in the copy and here (CPython 3.11), and every
        # attribute read of either slower (a third of a playout).
        new = type(self).__new__(type(self))
        new.rules = self.rules
        new.asks, new.declared = list(self.asks), list(self.declared)
        new.pending, new.then = self.pending, self.then
        new.forfeited = set(self.forfeited)
        new.result = self.result
        new.answerer = new._policy = new._policy_rng = None
        new._stack = list(self._stack)
        new._answer = self._answer
        new.options = new.options_for = None
        return new

    # -- the public interface ------------------------------------------------
    @property
    def records(self) -> list[tuple[Any, ...]]:
        return self.table.records  # type: ignore[no-any-return]

    def is_terminal(self) -> bool:
        return self.result is not None

    def view(self, seat: int) -> Any:
        """What ``seat`` sees (a live view of this state)."""
        return self._views[seat]

    def check(self, answer: Any) -> Any:
        """The pending decision's answer in canonical form; raises
        :class:`~bohnarena.core.errors.IllegalAnswer` saying why it is not legal."""
        if self.pending is None:
            raise IllegalAnswer("no decision is pending")
        seat, kind, args = self.pending
        return self.DECISIONS[kind].check(self.table, seat, answer, *args)

    def apply(self, answer: Any) -> None:
        """Answer the pending decision and play on to the next one."""
        self.resume(self.check(answer))

    def resume(self, answer: Any, how: str = BY_BOT, note: str | None = None) -> None:
        """Play a checked answer (from :meth:`check`) to the pending
        decision, recorded with ``how`` (where the game records it) and a
        ``note``, and play on."""
        pending = self.pending
        assert pending is not None, "no decision is pending"
        self._record(*pending, answer, how, note)
        self.pending = self.then = None
        self._answer = answer
        self._run()

    def playout(
        self,
        rng: random.Random,
        policy: Policy | None = None,
        decides: frozenset[str] | None = None,
        *,
        checked: bool = False,
    ) -> Any:
        """Play this state to its end and return :meth:`returns`. Every
        decision a seat is asked is answered by ``policy(state, seat, kind,
        args, rng)`` (default: the game's :meth:`random_policy`) as the rules
        reach it, without stopping: the fast way to play a sample out.

        ``decides``: the decisions the policy answers (None: every one; for
        the default policy, :attr:`RANDOM_DECIDES`); every other one is
        played with its default answer, without a call. The policy must
        answer those with their default answer and without drawing from
        ``rng``: then the match plays out the same, faster (a harvest
        window nobody takes is not opened at all).

        The answers are not checked and the playout keeps no records (the
        state's ``records`` stop where it began): an illegal answer is the
        policy's bug. ``checked=True`` plays the same match the referee's
        way instead (every answer checked and recorded, ``decides`` unused):
        the slow path the fast one is tested against."""
        if policy is None:
            policy = type(self).random_policy
            decides = type(self).RANDOM_DECIDES if decides is None else decides
        if checked:
            return self._checked_playout(rng, policy)
        self.table.record = _DROP
        self.table.recording = False  # (a table may skip building what it would drop)
        if decides is not None:
            self.asks = [a & decides for a in self.asks]
            self._narrowed()
        self._policy, self._policy_rng = policy, rng
        try:
            pending = self.pending
            if pending is not None:
                seat, kind, args = pending
                self.resume(policy(self, seat, kind, args, rng))
        finally:
            self._policy = self._policy_rng = None
        return self.returns()

    def _checked_playout(self, rng: random.Random, policy: Policy) -> Any:
        decisions = self.DECISIONS

        def answer(seat: int, kind: str, args: tuple[Any, ...]) -> tuple[Any, str, Any]:
            reply = policy(self, seat, kind, args, rng)
            return decisions[kind].check(self.table, seat, reply, *args), BY_BOT, None

        self.answerer = answer
        try:
            if self.pending is not None:
                self.resume(answer(*self.pending)[0])
        finally:
            self.answerer = None
        return self.returns()

    def pause_after(self, push: Callable[[], None]) -> None:
        """Run the steps ``push`` puts on the stack, and stop after them
        (not at the end of the match): for rule tests of one turn."""
        self._stack.append((GameState._pause,))
        push()
        self._run()

    # -- what a game supplies -------------------------------------------------
    def returns(self) -> Any:
        """The score of each seat (final once the match is over)."""
        raise NotImplementedError

    def _end(self) -> None:
        """The match's last steps (a final harvest, the ranks): sets ``result``."""
        raise NotImplementedError

    @staticmethod
    def random_policy(
        state: Any, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random
    ) -> Any:
        """A quick random legal answer (the default playout policy)."""
        raise NotImplementedError

    #: The decisions :meth:`random_policy` answers other than by default
    #: (None: every one).
    RANDOM_DECIDES: ClassVar[frozenset[str] | None] = None

    def _narrowed(self) -> None:
        """``asks`` were narrowed for a playout: whatever the game derives
        from them (e.g. whether anyone trades) may follow."""

    # -- running the rules -----------------------------------------------------
    def _run(self) -> None:
        stack = self._stack
        try:
            if self._policy is not None:  # a playout: no decision stops it
                pop = stack.pop
                while stack:
                    f = pop()
                    f[0](self, f)
            while self.pending is None and stack:
                f = stack.pop()
                f[0](self, f)
        except MatchOver:
            stack.clear()
        except _Pause:
            return
        if self.pending is None and not stack and self.result is None:
            self._end()

    def _pause(self, f: Frame) -> None:
        raise _Pause

    def _record(
        self, seat: int, kind: str, args: tuple[Any, ...], answer: Any, how: str, note: Any
    ) -> None:
        t = self.table
        decision = self.DECISIONS[kind]
        values = decision.encode(answer, args)
        t.record((kind, seat, *values, how) if self.RECORDS_HOW else (kind, seat, *values))
        if note:
            t.record(("note", seat, note))
        says = decision.says
        if says is not None and (said := says(answer)):
            t.record(("said", seat, said))

    def _decide(self, seat: int, kind: str, args: tuple[Any, ...], then: Frame) -> Any:
        """``seat``'s answer to ``kind`` (recorded), or :data:`STOPPED` when
        the state stops for it (``then`` will take the answer)."""
        if kind in self.asks[seat]:
            policy = self._policy
            if policy is not None:  # a playout: unchecked, unrecorded, never stopping
                return policy(self, seat, kind, args, self._policy_rng)
            self.pending = (seat, kind, args)
            self._stack.append(then)
            answerer = self.answerer
            if answerer is None:
                return STOPPED
            # Stopped while the answerer thinks: a bot may copy or sample
            # this state from its view (the rest of the match is on the stack)
            answer, how, note = answerer(seat, kind, args)
            self._stack.pop()
            self.pending = None
            # self._record(), inlined: the hottest path of a match in process
            t = self.table
            decision = self.DECISIONS[kind]
            values = decision.encode(answer, args)
            t.record((kind, seat, *values, how) if self.RECORDS_HOW else (kind, seat, *values))
            if note:
                t.record(("note", seat, note))
            says = decision.says  # (table talk)
            if says is not None and (said := says(answer)):
                t.record(("said", seat, said))
            return answer
        answer = self.DECISIONS[kind].default(self._views[seat], *args)
        if self.RECORDS_HOW and self._policy is None:
            self._record(seat, kind, args, answer, BY_DEFAULT, None)
        return answer
