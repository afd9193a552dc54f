"""What one seat can see: an immutable, lazily built view of the table.

Every property returns a fresh immutable value (ints, tuples), so nothing a
bot does with it can change the game. A view is valid for the decision it
was given for; keep values, not views. It never exposes another seat's hand,
the order of the draw pile, or the game's random stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.botapi import ViewBase
from ..core.botapi import events_since as _events_since
from .records import public, public_history

if TYPE_CHECKING:
    import random

    from .state import State
    from .table import Table

Field = tuple[int, int]  # (variety or EMPTY, number of cards)


class SeatView(ViewBase):
    __slots__ = ()
    _table: Table

    @property
    def phase(self) -> int:
        return self._table.phase

    # -- my own cards -------------------------------------------------------
    @property
    def hand(self) -> tuple[int, ...]:
        """Own hand, front card first."""
        return tuple(self._table.hands[self._seat])

    @property
    def my_fields(self) -> tuple[Field, ...]:
        # (map: no generator, half the time; every field is a [variety, count] pair)
        return tuple(map(tuple, self._table.fields[self._seat]))  # type: ignore[arg-type]

    @property
    def my_trade_area(self) -> tuple[int, ...]:
        return tuple(self._table.trade[self._seat])

    @property
    def my_coins(self) -> int:
        return len(self._table.coins[self._seat])

    # -- the table ----------------------------------------------------------
    @property
    def fields(self) -> tuple[tuple[Field, ...], ...]:
        return tuple(tuple((v, n) for v, n in fs) for fs in self._table.fields)

    @property
    def trade_areas(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(t) for t in self._table.trade)

    @property
    def revealed(self) -> tuple[int, ...]:
        """The active player's revealed cards not yet traded away."""
        return tuple(self._table.revealed)

    @property
    def coins(self) -> tuple[int, ...]:
        return tuple(len(p) for p in self._table.coins)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._table.hands)

    @property
    def draw_pile(self) -> int:
        """Number of cards in the draw pile (never their order)."""
        return len(self._table.deck)

    @property
    def discard(self) -> tuple[int, ...]:
        """The discard pile, face up, bottom first."""
        return tuple(self._table.discard)

    @property
    def exhaustions(self) -> int:
        return self._table.exhaustions

    @property
    def unseen(self) -> tuple[int, ...]:
        """Cards of each variety (indexed by variety id) this seat cannot
        place: the deck's count less its own hand, every field, the discard
        pile, the trade areas, the revealed cards, a draft in progress and
        the coin piles. Coin piles lie face down, but every card reaching
        one was shown on its way (a harvest pays coins of the harvested
        variety; a draft's last card; a bought field's coins go to the
        discard pile, all in :attr:`history`), so a seat that remembers
        knows them. What is left is exactly the draw pile and the other
        players' hands: ``sum(unseen) == draw_pile + sum(other hand sizes)``."""
        t = self._table
        counts = list(t.rules.deck)
        for zone in (t.hands[self._seat], t.discard, t.revealed, *t.trade, *t.coins, *t.drafts):
            for card in zone:
                counts[card] -= 1
        for seat_fields in t.fields:
            for v, n in seat_fields:
                if n:
                    counts[v] -= n
        return tuple(counts)

    @property
    def beanometer(self) -> tuple[tuple[int, int, int, int], ...]:
        """By variety id: the least cards a field needs for 1, 2, 3 and 4
        coins (0: never); :meth:`coins_for` reads it."""
        return tuple(v.beanometer for v in self._table.rules.varieties)

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        """Public records of the match so far, as this seat saw them, each a
        named tuple (``rec.kind``, ``rec.seat``, then the names of
        ``records.LAYOUT``; positional access works as on a plain tuple)."""
        return public_history(self._table.records, self._seat)

    # -- rule helpers -------------------------------------------------------
    def fields_for(self, card: int) -> tuple[int, ...]:
        """Own fields that take ``card`` now (its variety, or empty)."""
        return tuple(self._table.fields_for(self._seat, card))

    def harvestable(self) -> tuple[int, ...]:
        """Own fields the bean protection rule lets this seat harvest now."""
        t = self._table  # (t.harvestable(), inlined: a call less a decision)
        return tuple(t._protect(t.fields[self._seat]))

    def coins_for(self, variety: int, count: int) -> int:
        """What a field of ``count`` cards of ``variety`` pays (its beanometer)."""
        return self._table.coins_for(variety, count)

    def can_buy_field(self) -> bool:
        return self._table.can_buy_field(self._seat)

    # -- searching ahead ------------------------------------------------------
    def determinize(self, rng: random.Random) -> State:
        """A full state of this match that this seat could believe in: the
        cards it cannot see dealt afresh with ``rng`` (see
        :meth:`State.determinize`). Play it on with ``apply``; nothing done
        to it reaches the real match. Out of process a bot gets it with
        ``wants_state``."""
        sample: State = super().determinize(rng)
        return sample


def events_since(view: SeatView, start: int) -> tuple[list[tuple[Any, ...]], int]:
    """Engine side (not for bots): the records ``view``'s seat saw from raw
    record ``start`` on, and where the next call starts. Lets a sandboxed
    seat send only what is new instead of the whole history each decision."""
    return _events_since(view, start, public)
