"""The dice game's engine: rolling, setting dice aside, fulfilling and
redeeming orders, the empty draw pile, and the end at the target.

The active player may stop rolling after setting dice aside ("...or no
longer wants to place another die there"; rule option ``early_stop``).
Choices where the text is silent (docs/wuerfel.md): players
fulfil and redeem only in their fulfilment windows (other players after
each roll, clockwise from the active player's left; the active player at
the end of the turn), asked one step at a time; coins a player cannot
draw count all the same, and a player left without a covering card waits
for one; a match that reaches MAX_TURNS turns ends and ranks by coins.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..errors import IllegalAnswer
from ..game import Decision, MatchResult
from ..seats import BotSeat, Referee, Seat
from ..seeding import derive_seed
from .bot import FULFIL, REDEEM, Bot, DiceView, Keep, default_harvest, default_keep
from .orders import met_in_a_row
from .rules import PAYOUT, RuleSet

MAX_TURNS = 2000  # an arena bound: bots that never fulfil would play forever
OVERVIEW_COINS = 5


class Table:
    def __init__(self, rules: RuleSet, seed: int) -> None:
        self.rules = rules
        self.players = n = rules.players
        self.rng = random.Random(derive_seed(seed, "dice"))
        self.deck = list(range(len(rules.deck)))
        self.rng.shuffle(self.deck)  # the top of the draw pile is the end
        self.active_card = [-1] * n
        self.cover_card = [-1] * n  # -1: no card to cover with (the pile ran dry)
        self.covered = [0] * n
        self.coins = [0] * n
        self.coin_cards: list[list[int]] = [[] for _ in range(n)]
        self.overview_turned = [False] * n
        self.field: list[int] = []
        self.hand: list[int] = []  # the dice (0-3 white, 4-6 beige) still to roll
        self.active = 0
        self.turn = 0
        self.records: list[tuple[Any, ...]] = []

    def fulfillable(self, seat: int, dice: Sequence[int]) -> int:
        if self.cover_card[seat] < 0:
            return 0
        return met_in_a_row(self.rules.deck[self.active_card[seat]][self.covered[seat] :], dice)

    def draw(self, seat: int) -> int | None:
        """The top harvest card; an empty pile first turns the seat's overview
        card (5 coins) and returns five coin cards to the draw pile."""
        if not self.deck and not self.overview_turned[seat] and len(self.coin_cards[seat]) >= 5:
            self.overview_turned[seat] = True
            back = self.coin_cards[seat][-OVERVIEW_COINS:]
            del self.coin_cards[seat][-OVERVIEW_COINS:]
            self.deck.extend(back)
            self.rng.shuffle(self.deck)
            self.records.append(("overview", seat))
        return self.deck.pop() if self.deck else None

    def redeem(self, seat: int) -> None:
        value = PAYOUT[self.covered[seat]]
        card = self.active_card[seat]
        self.coins[seat] += value
        self.coin_cards[seat].append(card)
        for _ in range(value - 1):
            extra = self.draw(seat)
            if extra is not None:
                self.coin_cards[seat].append(extra)
        self.records.append(("redeemed", seat, card, value))
        self.active_card[seat], self.covered[seat] = self.cover_card[seat], 0
        self.draw_cover(seat, self.draw(seat))
        # Cards returned with an overview card also serve, clockwise, the
        # players still waiting for a covering card (docs/wuerfel.md).
        for i in range(1, self.players):
            other = (seat + i) % self.players
            if self.cover_card[other] < 0 and self.deck:
                self.draw_cover(other, self.deck.pop())

    def draw_cover(self, seat: int, card: int | None) -> None:
        """``card`` goes under the seat's active card; None: the pile ran dry,
        and the seat waits (it cannot cover, so fulfils and redeems nothing)."""
        self.cover_card[seat] = -1 if card is None else card
        if card is not None:
            self.records.append(("drew", seat, card))


# -- decisions --------------------------------------------------------------
def _keep(t: Table, seat: int, x: Any, roll: tuple[int, ...]) -> Keep:
    # Exact types only, and never a call into the bot's objects (see
    # bohnanza/decisions.py): the canonical answer records safely.
    if type(x) is not Keep:
        raise IllegalAnswer(f"answer must be a Keep, got {type(x).__name__}")
    dice = x.dice
    if type(dice) not in (tuple, list) or any(type(i) is not int for i in dice):
        raise IllegalAnswer("dice must be a tuple of ints")
    dice = tuple(dice)
    if not dice or any(not 0 <= i < len(roll) for i in dice) or len(set(dice)) != len(dice):
        raise IllegalAnswer(f"keep at least one of dice 0-{len(roll) - 1}, each once")
    if type(x.stop) is not bool:
        raise IllegalAnswer(f"stop must be a bool, got {type(x.stop).__name__}")
    if x.stop and not t.rules.early_stop:
        raise IllegalAnswer("stopping early is not allowed by these rules")
    return Keep(dice, x.stop)


def _harvest(t: Table, seat: int, x: Any, dice: tuple[int, ...]) -> str | None:
    if x is None:
        return None
    if type(x) is not str or x not in (FULFIL, REDEEM):
        shown = repr(x[:20]) if type(x) is str else type(x).__name__
        raise IllegalAnswer(f"answer must be 'fulfil', 'redeem' or None, not {shown}")
    if x == FULFIL:
        if t.fulfillable(seat, dice) < 1:
            raise IllegalAnswer("these dice do not meet the lowest open order")
        return FULFIL
    if t.covered[seat] < 3:
        raise IllegalAnswer("a card is redeemed after its 3rd order at the earliest")
    if t.cover_card[seat] < 0:  # never met: a seat without one covers nothing
        raise IllegalAnswer("no covering card to become the active card")
    return REDEEM


STEP_CODE = {None: 0, FULFIL: 1, REDEEM: 2}
STEPS = {v: k for k, v in STEP_CODE.items()}

DECISIONS: dict[str, Decision] = {
    d.name: d
    for d in (
        Decision(
            "keep",
            _keep,
            lambda a, args: (a.dice, int(a.stop)),
            lambda v: Keep(tuple(v[0]), bool(v[1])),
            default_keep,
        ),
        Decision(
            "harvest",
            _harvest,
            lambda a, args: (STEP_CODE[a],),
            lambda v: STEPS[v[0]],
            default_harvest,
        ),
    )
}


class Match:
    def __init__(self, rules: RuleSet, seed: int, players: Sequence[Bot | Seat]) -> None:
        seats = [BotSeat(p, DECISIONS) if isinstance(p, Bot) else p for p in players]
        if len(seats) != rules.players:
            raise ValueError(f"{len(seats)} seats for a {rules.players}-player rule set")
        self.rules, self.seed = rules, seed
        self.table = Table(rules, seed)
        self.referee = Referee(seats, DECISIONS, self.table, DiceView)

    @property
    def records(self) -> list[tuple[Any, ...]]:
        return self.table.records

    def play(self) -> MatchResult:
        t = self.table
        self.referee.seat_all(self.rules, self.seed)
        for s in range(t.players):  # two cards each, one below the other
            t.active_card[s], t.cover_card[s] = t.deck.pop(), t.deck.pop()
            t.records.append(("dealt", s, (t.active_card[s], t.cover_card[s])))
        winners: list[int] = []
        while not winners and t.turn < MAX_TURNS:
            t.active = t.turn % t.players
            t.turn += 1
            t.records.append(("turn", t.active, t.turn))
            winners = self.play_turn()
        result = self.finish(winners)
        self.referee.end_all(result)
        return result

    def play_turn(self) -> list[int]:
        t, a = self.table, self.table.active
        t.field, t.hand = [], list(range(len(t.rules.faces)))
        while t.hand:
            # "Dice on the bean field may not be rolled again": each die in
            # hand rolls its own faces; roll position i is die t.hand[i].
            roll = tuple(t.rng.choice(t.rules.faces[die]) for die in t.hand)
            t.records.append(("rolled", a, roll))
            for i in range(1, t.players):  # the others may use the fresh roll
                self.fulfil_window((a + i) % t.players, roll)
            winners = self.reached_target()
            if winners:
                return winners  # the active player may not roll any further
            keep = self.referee.ask(a, "keep", (roll,))
            kept = tuple(roll[i] for i in sorted(keep.dice))
            t.field.extend(kept)
            t.hand = [die for i, die in enumerate(t.hand) if i not in keep.dice]
            t.records.append(("set_aside", a, kept))
            if keep.stop:
                break
        self.fulfil_window(a, tuple(t.field))
        return self.reached_target()

    def fulfil_window(self, seat: int, dice: tuple[int, ...]) -> None:
        t = self.table
        for _ in range(20):  # at most 6 orders on each of a few cards: a safe bound
            step = self.referee.ask(seat, "harvest", (dice,))
            if step is None:
                return
            if step == REDEEM:
                t.redeem(seat)
            else:
                t.covered[seat] += 1
                t.records.append(("fulfilled", seat, t.active_card[seat], t.covered[seat]))

    def reached_target(self) -> list[int]:
        """Players at the target share the win, unless one has more: then the most coins win."""
        t = self.table
        at = [s for s in range(t.players) if t.coins[s] >= t.rules.target]
        top = max((t.coins[s] for s in at), default=0)
        return [s for s in at if t.coins[s] == top]

    def finish(self, winners: list[int]) -> MatchResult:
        t = self.table
        coins = tuple(t.coins)
        t.records.append(("ended", -1, coins))
        out = self.referee.forfeited
        keys = [(s not in out, s in winners, coins[s]) for s in range(t.players)]
        ranks = tuple(1 + sum(k > keys[s] for k in keys) for s in range(t.players))
        return MatchResult(
            coins,
            ranks,
            tuple(s for s in range(t.players) if ranks[s] == 1),
            t.turn,
            tuple(self.referee.faults),
        )
