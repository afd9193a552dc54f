"""The bot protocol of the card game: answer types and the :class:`Bot` base.

A bot overrides only the decisions it cares about. Every method of the base
class returns a legal answer, and a decision a bot does not override is
never asked of it: the engine plays the base answer directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..core.botapi import BotBase

if TYPE_CHECKING:
    from .rules import RuleSet
    from .view import SeatView


@dataclass(frozen=True, slots=True)
class Offer:
    """A trade proposal in phase 2.

    ``give`` names the proposer's cards by reference: hand positions (0 is the
    front card) and, for the active player only, revealed cards as ``-1``
    (the first) and ``-2`` (the second). ``want`` lists the varieties asked
    for in return; an empty ``want`` is a gift, an empty ``give`` asks for a
    gift. ``to`` is the seat addressed by the active player (``None``: every
    other player); offers from other players always go to the active player.
    ``say`` is table talk: a short public message every seat is shown with
    the offer (optional; at most ``SAY_CHARS`` = 200 characters are kept,
    control characters removed).
    """

    give: tuple[int, ...] = ()
    want: tuple[int, ...] = ()
    to: int | None = None
    say: str = ""


@dataclass(frozen=True, slots=True)
class Proposal:
    """An offer as the players asked to answer it see it: seat ``by`` gives
    cards of the varieties ``cards`` and wants ``want`` in return. ``to`` is
    the seat addressed, ``None`` for everyone; ``say`` the message it came
    with ("" for none: untrusted text, shown to every seat)."""

    by: int
    to: int | None
    cards: tuple[int, ...]
    want: tuple[int, ...]
    say: str = ""


@dataclass(frozen=True, slots=True)
class Accept:
    """Agreement to an offer; ``give`` references the cards handed over,
    one per wanted variety (empty when accepting a gift)."""

    give: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Anytime:
    """What a seat does at a harvest window: harvest these fields in this
    order, and (Rio Grande) buy the third field first."""

    harvest: tuple[int, ...] = ()
    buy_field: bool = False


@dataclass(frozen=True, slots=True)
class DraftPick:
    """A Jumping Bean draft choice: card ``index`` of the offered cards,
    planted in ``field`` or discarded when ``field`` is ``None``."""

    index: int = 0
    field: int | None = None


# The base answers, also played by the engine for a seat that does not answer.
def default_plant(view: SeatView, card: int) -> int:
    return view.fields_for(card)[0]


def default_make_room(view: SeatView, card: int) -> int:
    return view.harvestable()[0]


def default_draft(view: SeatView, cards: tuple[int, ...]) -> DraftPick:
    fits = view.fields_for(cards[0])
    return DraftPick(0, fits[0] if fits else None)


def default_none(view: SeatView, *args: object) -> None:
    return None


def default_false(view: SeatView) -> bool:
    return False


def default_first(view: SeatView) -> int:
    return 0


DECISION_METHODS = (
    "plant",
    "make_room",
    "plant_second",
    "plant_next",
    "anytime",
    "propose",
    "offer",
    "respond",
    "draft",
)


class Bot(BotBase):
    """Base class of card-game bots. Override any decision method."""

    game: ClassVar[str] = "bohnanza"
    DECISIONS = DECISION_METHODS
    rules: RuleSet

    # -- planting -----------------------------------------------------------
    def plant(self, view: SeatView, card: int) -> int:
        """The field to plant ``card`` in; one of ``view.fields_for(card)``."""
        return default_plant(view, card)

    def make_room(self, view: SeatView, card: int) -> int:
        """``card`` fits no field: the field to harvest first; one of
        ``view.harvestable()``."""
        return default_make_room(view, card)

    def plant_second(self, view: SeatView) -> bool:
        """Phase 1: plant the (new) front card of the hand as well?"""
        return False

    def plant_next(self, view: SeatView) -> int:
        """Phase 3: index into ``view.my_trade_area`` of the card to plant next."""
        return 0

    # -- at any time --------------------------------------------------------
    def anytime(self, view: SeatView) -> Anytime | None:
        """A harvest window: fields to harvest now (and whether to buy a third field)."""
        return None

    # -- trading ------------------------------------------------------------
    def propose(self, view: SeatView) -> Offer | None:
        """Active player, phase 2: the next offer, or ``None`` to stop offering this round."""
        return None

    def offer(self, view: SeatView) -> Offer | None:
        """Another player, phase 2: an offer to the active player, or ``None``."""
        return None

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        """Answer an offer: accept (naming the cards given) or ``None``."""
        return None

    # -- Jumping Bean draft -------------------------------------------------
    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        """Pick one of ``cards``; plant it where it fits, else discard it."""
        return default_draft(view, cards)
