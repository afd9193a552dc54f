"""The dice game as a searchable state: the table plus where the turn is
(the same interface as the card game's :mod:`bohnarena.bohnanza.state`).

A :class:`State` runs the rules until a seat must decide something, and
stops there: :attr:`State.pending` says who decides what, :meth:`State.apply`
gives the answer and runs on to the next decision. The referee drives a
league's matches through it, and replay applies the logged answers to it.
Where the turn is lives in a stack of frames, ``(step, *plain values)``.

The rules: the active player may stop rolling after setting dice aside
("...or no longer wants to place another die there"; rule option
``early_stop``). Choices where the text is silent (docs/wuerfel.md):
players fulfil and redeem only in their fulfilment windows (other players
after each roll, clockwise from the active player's left; the active
player at the end of the turn), asked one step at a time; coins a player
cannot draw count all the same, and a player left without a covering card
waits for one; a match that reaches MAX_TURNS turns ends and ranks by coins.

A decision a seat does not answer (not in its ``asks``) is played with the
default answer and not recorded (the dice game's records have no ``how``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from ..core.game import MatchResult
from ..referee.gamestate import STOPPED, Frame, GameState
from .bot import DECISION_METHODS, FULFIL, REDEEM, DiceView, Keep
from .rules import RuleSet
from .table import DECISIONS, Table

MAX_TURNS = 2000  # an arena bound: bots that never fulfil would play forever
WINDOW_STEPS = 20  # at most 6 orders on each of a few cards: a safe bound

#: Every decision: what a seat that answers everything is asked.
EVERYTHING = frozenset(DECISION_METHODS)


class State(GameState):
    """One match of the dice game, stopped at a decision (or over).

    ``asks[seat]`` are the decisions that seat is asked (the others are
    played with their default answer); a forfeit empties it."""

    DECISIONS = DECISIONS
    RECORDS_HOW = False
    table: Table

    def __init__(self, rules: RuleSet, seed: int, asks: Sequence[frozenset[str]] | None = None):
        n = rules.players
        self._begin(rules, Table(rules, seed), asks, n)
        #: The seats that reached the target (the match ends after the turn step).
        self.winners: list[int] = []
        self._views: list[DiceView] = [DiceView(self.table, s) for s in range(n)]

    # -- the public interface ------------------------------------------------
    def start(self, declared: Sequence[frozenset[str]] | None = None) -> None:
        """Deal, and play on to the first decision. ``declared``: what each
        seat said it answers (kept for a search's information only)."""
        if declared is not None:
            self.declared = list(declared)
        self.deal()
        self._stack.append((State._turn,))
        self._run()

    def deal(self) -> None:
        t = self.table
        for s in range(t.players):  # two cards each, one below the other
            t.active_card[s], t.cover_card[s] = t.deck.pop(), t.deck.pop()
            t.record(("dealt", s, (t.active_card[s], t.cover_card[s])))

    def push_turn(self) -> None:
        """The active player's turn (``table.active``), to run next."""
        self._stack.append((State._turn_body,))

    def push_window(self, seat: int, dice: tuple[int, ...]) -> None:
        """A fulfilment window of ``seat`` over ``dice``, to run next."""
        self._stack.append((State._window, seat, dice, 0))

    def returns(self) -> tuple[int, ...]:
        """Coins of each seat (final once the match is over)."""
        return tuple(self.table.coins)

    def legal_answers(self) -> list[Any]:
        """Every legal answer to the pending decision."""
        if self.pending is None:
            return []
        seat, kind, args = self.pending
        if kind == "keep":
            n = len(args[0])
            stops = (False, True) if self.table.rules.early_stop else (False,)
            return [
                Keep(dice, stop)
                for k in range(1, n + 1)
                for dice in combinations(range(n), k)
                for stop in stops
            ]
        return _steps(self.table, seat, args[0])

    def clone(self) -> State:
        """An independent copy: playing on one never changes the other."""
        new: State = self._copy()
        new._own(self.table.copy())
        new.winners = list(self.winners)
        new._views = [DiceView(new.table, s) for s in range(len(self._views))]
        return new

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with what ``seat`` has seen: the draw
        pile and the coin cards drawn face down are dealt afresh, with
        ``rng``, from the cards nobody has seen placed, in the same sizes;
        the dice's future rolls (and later reshuffles) follow ``rng`` too.
        The sample is drawn from the unseen cards in order of number, so it
        does not depend on where they really are; it keeps no records (its
        history starts now). (A shown coin card that an overview card sent
        back counts as unseen: the seat could know it is in the pile.)"""
        new = self.clone()
        t = new.table
        t.records = []
        t.record = t.records.append
        placed = {c for c in (*t.active_card, *t.cover_card) if c >= 0} | t.shown_coins
        pool = [c for c in range(len(t.rules.deck)) if c not in placed]
        rng.shuffle(pool)
        for s in range(t.players):
            coins = t.coin_cards[s]
            for i, c in enumerate(coins):
                if c not in t.shown_coins:
                    coins[i] = pool.pop()
        t.deck = pool
        t.rng = random.Random(rng.getrandbits(64))
        return new

    def view(self, seat: int) -> DiceView:
        """What ``seat`` sees (a live view of this state)."""
        return self._views[seat]

    def _end(self) -> None:
        self.finish(self.winners)

    # -- the turn -----------------------------------------------------------
    def _turn(self, f: Frame) -> None:
        t = self.table
        if self.winners or t.turn >= MAX_TURNS:
            self.finish(self.winners)
            return
        t.active = t.turn % t.players
        t.turn += 1
        t.record(("turn", t.active, t.turn))
        self._stack.append(f)
        self._turn_body(f)

    def _turn_body(self, f: Frame) -> None:
        t = self.table
        t.field, t.hand = [], list(range(len(t.rules.faces)))
        self.winners = []
        self._roll(f)

    def _roll(self, f: Frame) -> None:
        t = self.table
        if not t.hand:
            self._last_window()
            return
        a = t.active
        faces = t.rules.faces
        choice = t.rng.choice
        # "Dice on the bean field may not be rolled again": each die in
        # hand rolls its own faces; roll position i is die t.hand[i].
        roll = tuple(choice(faces[die]) for die in t.hand)
        t.record(("rolled", a, roll))
        push = self._stack.append
        push((State._rolled, roll))
        n = t.players
        for i in range(n - 1, 0, -1):  # the others may use the fresh roll, clockwise
            push((State._window, (a + i) % n, roll, 0))

    def _rolled(self, f: Frame) -> None:
        winners = self.reached_target()
        if winners:  # the active player may not roll any further
            self.winners = winners
            return
        roll = f[1]
        then = (State._kept, roll)
        keep = self._decide(self.table.active, "keep", (roll,), then)
        if keep is not STOPPED:
            self._answer = keep
            self._kept(then)

    def _kept(self, f: Frame) -> None:
        keep: Keep = self._answer
        t = self.table
        roll = f[1]
        kept = tuple(roll[i] for i in sorted(keep.dice))
        t.field.extend(kept)
        t.hand = [die for i, die in enumerate(t.hand) if i not in keep.dice]
        t.record(("set_aside", t.active, kept))
        if keep.stop:
            self._last_window()
        else:
            self._roll(f)

    def _last_window(self) -> None:
        """The active player's window over the bean field, then the turn's end."""
        t = self.table
        self._stack.append((State._turn_over,))
        self._window((State._window, t.active, tuple(t.field), 0))

    def _turn_over(self, f: Frame) -> None:
        self.winners = self.reached_target()

    def _window(self, f: Frame) -> None:
        """Ask ``seat`` for the next step over ``dice`` until it is done."""
        _, seat, dice, k = f
        args = (dice,)
        while k < WINDOW_STEPS:
            step = self._decide(seat, "harvest", args, (State._stepped, seat, dice, k))
            if step is STOPPED or step is None:
                return
            self._step(seat, step)
            k += 1

    def _stepped(self, f: Frame) -> None:
        step = self._answer
        if step is not None:
            _, seat, dice, k = f
            self._step(seat, step)
            self._window((State._window, seat, dice, k + 1))

    def _step(self, seat: int, step: str) -> None:
        t = self.table
        if step == REDEEM:
            t.redeem(seat)
        else:
            t.covered[seat] += 1
            t.record(("fulfilled", seat, t.active_card[seat], t.covered[seat]))

    def reached_target(self) -> list[int]:
        """Players at the target share the win, unless one has more: then the most coins win."""
        t = self.table
        target = t.rules.target
        at = [s for s in range(t.players) if t.coins[s] >= target]
        top = max((t.coins[s] for s in at), default=0)
        return [s for s in at if t.coins[s] == top]

    def finish(self, winners: Sequence[int]) -> MatchResult:
        """End the match: the record of the final coins, and ranks."""
        self._stack.clear()
        self.pending = None
        t = self.table
        coins = tuple(t.coins)
        t.record(("ended", -1, coins))
        out = self.forfeited
        keys = [(s not in out, s in winners, coins[s]) for s in range(t.players)]
        ranks = tuple(1 + sum(k > keys[s] for k in keys) for s in range(t.players))
        self.result = MatchResult(
            coins, ranks, tuple(s for s in range(t.players) if ranks[s] == 1), t.turn, ()
        )
        return self.result


def _steps(t: Table, seat: int, dice: tuple[int, ...]) -> list[Any]:
    """The legal steps of a fulfilment window: done, and fulfil or redeem where allowed."""
    out: list[Any] = [None]
    if t.fulfillable(seat, dice) >= 1:
        out.append(FULFIL)
    if t.covered[seat] >= 3 and t.cover_card[seat] >= 0:
        out.append(REDEEM)
    return out


def random_policy(
    state: State, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random
) -> Any:
    """A quick random legal answer: a random non-empty set of dice (and
    stop at one chance in four, where allowed); fulfil while it can, and
    redeem at random once it may (always a full card)."""
    t = state.table
    if kind == "keep":
        n = len(args[0])
        mask = rng.randrange(1, 1 << n)
        dice = tuple(i for i in range(n) if mask >> i & 1)
        return Keep(dice, t.rules.early_stop and rng.random() < 0.25)
    if t.fulfillable(seat, args[0]) >= 1:
        return FULFIL
    if t.covered[seat] >= 3 and t.cover_card[seat] >= 0:
        return REDEEM if t.covered[seat] == 6 or rng.random() < 0.3 else None
    return None


def random_answer(state: State, rng: random.Random) -> Any:
    """:func:`random_policy`'s answer to the pending decision."""
    assert state.pending is not None
    return random_policy(state, *state.pending, rng)


#: ``(state, seat, kind, args, rng) -> answer``: how a playout answers.
Policy = Callable[[State, int, str, tuple[Any, ...], random.Random], Any]
State.random_policy = staticmethod(random_policy)  # type: ignore[method-assign]

__all__ = ["EVERYTHING", "MAX_TURNS", "Policy", "State", "random_answer", "random_policy"]
