"""The dice game's table (cards, coins, dice) and its decisions: how an
answer is checked and recorded. The turn runs in :mod:`.state`."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import IllegalAnswer
from ..core.game import Decision
from ..core.seeding import derive_seed
from ..referee.gamestate import no_state
from .bot import FULFIL, REDEEM, Keep, default_harvest, default_keep
from .orders import met_in_a_row
from .rules import PAYOUT, RuleSet

if TYPE_CHECKING:
    from ..referee.seats import Referee
    from .state import State

OVERVIEW_COINS = 5


class Table:
    """Everything on the table; the draw pile's top is the end of ``deck``."""

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
        #: Coin cards whose variety was shown (redeemed); the extra coin
        #: cards are drawn face down (what a sample may deal afresh).
        self.shown_coins: set[int] = set()
        self.records: list[tuple[Any, ...]] = []
        #: Where every record goes (replay checks each against the log as it is made).
        self.record: Callable[[tuple[Any, ...]], None] = self.records.append
        #: The searchable state this table is part of, if any (weakly: a view's
        #: way to it for ``determinize``).
        self.state: Callable[[], State | None] = no_state
        #: The match's referee (set by the match): what a seat's view tells
        #: of its own seat (time bank, match id). None: a bare table.
        self.referee: Referee | None = None

    def copy(self) -> Table:
        """An independent copy (the records too; the random stream is the
        same stream's copy)."""
        new = Table.__new__(Table)
        new.__dict__.update(self.__dict__)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.deck = self.deck[:]
        new.active_card, new.cover_card = self.active_card[:], self.cover_card[:]
        new.covered, new.coins = self.covered[:], self.coins[:]
        new.coin_cards = [c[:] for c in self.coin_cards]
        new.overview_turned = self.overview_turned[:]
        new.field, new.hand = self.field[:], self.hand[:]
        new.shown_coins = set(self.shown_coins)
        new.records = self.records[:]
        new.record = new.records.append
        new.state = no_state
        return new

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
            self.shown_coins.difference_update(back)
            self.deck.extend(back)
            self.rng.shuffle(self.deck)
            self.record(("overview", seat))
        return self.deck.pop() if self.deck else None

    def redeem(self, seat: int) -> None:
        value = PAYOUT[self.covered[seat]]
        card = self.active_card[seat]
        self.coins[seat] += value
        self.coin_cards[seat].append(card)
        self.shown_coins.add(card)
        for _ in range(value - 1):
            extra = self.draw(seat)
            if extra is not None:
                self.coin_cards[seat].append(extra)
        self.record(("redeemed", seat, card, value))
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
            self.record(("drew", seat, card))


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
