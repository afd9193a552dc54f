"""The bot protocol of the dice game: what a seat sees and what it answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.botapi import BotBase, ViewBase, fault_type, seen_by
from .orders import Order

if TYPE_CHECKING:
    import random

    from .rules import RuleSet
    from .state import State
    from .table import Table

FULFIL, REDEEM = "fulfil", "redeem"
DECISION_METHODS = ("keep", "harvest")


@dataclass(frozen=True, slots=True)
class Keep:
    """Set aside the rolled dice at positions ``dice`` (at least one); with
    ``stop`` (if the rule set allows it) roll no more this turn."""

    dice: tuple[int, ...] = (0,)
    stop: bool = False


class DiceView(ViewBase):
    """What one seat sees: everything on the table is public in this game."""

    __slots__ = ()
    _table: Table

    @property
    def coins(self) -> tuple[int, ...]:
        return tuple(self._table.coins)

    @property
    def bean_field(self) -> tuple[int, ...]:
        """Varieties of the dice the active player has set aside."""
        return tuple(self._table.field)

    @property
    def dice_left(self) -> int:
        """Dice the active player still rolls."""
        return len(self._table.hand)

    @property
    def hand(self) -> tuple[int, ...]:
        """The dice the active player still rolls, as indices into
        ``rules.faces`` (0-3 white, 4-6 beige); die ``hand[i]`` shows
        ``roll[i]``. Dice on the bean field are never rolled again."""
        return tuple(self._table.hand)

    @property
    def cards(self) -> tuple[int, ...]:
        """Every seat's active harvest card (an index into ``rules.deck``)."""
        return tuple(self._table.active_card)

    @property
    def covered(self) -> tuple[int, ...]:
        """Orders fulfilled on every seat's active card."""
        return tuple(self._table.covered)

    @property
    def cover_cards(self) -> tuple[int, ...]:
        """Every seat's covering card (-1: the pile ran dry; it cannot fulfil)."""
        return tuple(self._table.cover_card)

    @property
    def draw_pile(self) -> int:
        return len(self._table.deck)

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        """The match's records so far, as this seat saw them (see
        :func:`public`), each a named tuple (``rec.kind``, ``rec.seat``, then
        the names of ``game.LAYOUT``; positional access works as on a tuple)."""
        from .game import named  # (it imports this module)

        return tuple(map(named, seen_by(self._table.records, self._seat, public)))

    def open_orders(self, seat: int | None = None) -> tuple[Order, ...]:
        """The orders still open on a seat's active card, lowest first."""
        t = self._table
        s = self._seat if seat is None else seat
        return t.rules.deck[t.active_card[s]][t.covered[s] :]

    def fulfillable(self, dice: Sequence[int]) -> int:
        """How many of this seat's open orders, in a row from the lowest, ``dice`` meet."""
        return self._table.fulfillable(self._seat, dice)

    def determinize(self, rng: random.Random) -> State:
        """A full state of this match that this seat could believe in (see
        :meth:`State.determinize`): play it on with ``apply``; nothing done
        to it reaches the real match. Out of process a bot gets it with
        ``wants_state``."""
        sample: State = super().determinize(rng)
        return sample


def public(rec: tuple[Any, ...], seat: int) -> tuple[Any, ...] | None:
    """``rec`` as ``seat`` saw it. The table is public, but of another seat's
    fault only its type is told (the details are the organiser's, and would
    be a channel between colluding bots), and which decisions a bot answers
    itself ("seat" records) is nobody's business at the table, nor are
    another seat's notes."""
    if rec[0] == "seat" or (rec[0] == "note" and rec[1] != seat):
        return None
    if rec[0] == "fault" and rec[1] != seat:
        return (*rec[:3], fault_type(rec[3]))
    return rec


# The base answers, also played by the engine for a seat that does not answer.
def default_keep(view: DiceView, roll: tuple[int, ...]) -> Keep:
    return Keep((0,))


def default_harvest(view: DiceView, dice: tuple[int, ...]) -> str | None:
    if view.fulfillable(dice):
        return FULFIL
    return REDEEM if view.covered[view.seat] == 6 else None


class Bot(BotBase):
    """Base class of dice-game bots; every method answers legally."""

    game: ClassVar[str] = "wuerfel"
    DECISIONS = DECISION_METHODS
    rules: RuleSet

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        """Active player, after each roll: dice to set aside (positions in ``roll``)."""
        return default_keep(view, roll)

    def harvest(self, view: DiceView, dice: tuple[int, ...]) -> str | None:
        """The next step of a fulfilment window: "fulfil" (the lowest open
        order, met by ``dice``), "redeem" (the active card, after its 3rd order
        at the earliest) or None (done). Asked again after each step. ``dice``
        are the bean field (active player, end of turn) or the dice just
        rolled (everyone else). Default: fulfil while it can, redeem a full card."""
        return default_harvest(view, dice)
