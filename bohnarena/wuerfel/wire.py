"""The dice game's side of the JSON-lines bot protocol (docs/wuerfel.md,
"Bots out of process"): rules, views, arguments and answers as JSON, both
ways. It implements :class:`bohnarena.external.host.Wire`;
:class:`bohnarena.external.remote.RemoteSeat` sends these messages and
:mod:`bohnarena.external.host` answers them for Python bots.

The rules travel as data (varieties, dice faces, the deck's orders as
text): a bot in another language needs them to read its orders, and a
sandboxed bot cannot read a ``deck_file`` or ``dice_file`` on the
engine's disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.botapi import events_since as _events_since
from ..referee.frames import WHERE, sent_state
from .bot import FULFIL, REDEEM, Bot, DiceView, Keep, public
from .game import as_dict, named
from .orders import Order, met_in_a_row, parse
from .rules import RuleSet

if TYPE_CHECKING:
    import random

    from ..core.protocol_schema import GameProtocol
    from .state import State

BASE = Bot
DECISIONS = Bot.DECISIONS
STEPS = (FULFIL, REDEEM, None)  # the answers of "harvest"
_SCALARS = (str, int, float, bool, type(None))


# -- engine -> bot ----------------------------------------------------------
def rules_json(rules: RuleSet) -> dict[str, Any]:
    # The files' paths mean nothing in the bot's process: their contents go instead.
    options = {k: v for k, v in rules.options().items() if k not in ("dice_file", "deck_file")}
    return {
        **options,
        "varieties": list(rules.varieties),
        "faces": [list(die) for die in rules.faces],
        "deck": [[order.text for order in card] for card in rules.deck],
    }


# -- the messages' shapes (bohnarena/wuerfel/schema.py builds the JSON Schema
# from these; a test holds them to real traffic) ------------------------------
#: The decide message's ``view``, key by key (types: protocol_schema.TYPES).
VIEW: dict[str, str] = {
    "seat": "int",
    "active": "int",
    "turn": "int",
    "players": "int",
    "coins": "ints",
    "bean_field": "ints",
    "dice_left": "int",
    "hand": "ints",
    "cards": "ints",
    "covered": "ints",
    "cover_cards": "ints",
    "draw_pile": "int",
    "time_left": "number?",
}

#: The state's keys (see :mod:`.snapshot`).
STATE: dict[str, str] = {
    "coin_cards": "ints_by_seat",
    "shown_coins": "ints",
    "overview_turned": "bools",
    "winners": "ints",
    **WHERE,
}

#: The decide message's ``args``, by decision.
ARGS: dict[str, dict[str, str]] = {"keep": {"roll": "ints"}, "harvest": {"dice": "ints"}}

#: A bot's answer, by decision: a type, or an object's keys (``dice``
#: required); ``nullable``: ``null`` passes.
ANSWERS: dict[str, tuple[str | dict[str, str], bool]] = {
    "keep": ({"dice": "ints", "stop": "bool"}, False),
    "harvest": ("harvest_step", True),
}


def view_json(view: DiceView) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "active": view.active,
        "turn": view.turn,
        "players": view.players,
        "coins": view.coins,
        "bean_field": view.bean_field,
        "dice_left": view.dice_left,
        "hand": view.hand,
        "cards": view.cards,
        "covered": view.covered,
        "cover_cards": view.cover_cards,
        "draw_pile": view.draw_pile,
        "time_left": view.time_left,
    }


def state_json(view: DiceView) -> dict[str, Any] | None:
    """The searchable state's part beyond the view, for a seat that asked
    for it (see :mod:`.snapshot`); None where the view has no state behind it."""
    from .snapshot import snapshot  # (it imports this module)

    state = view._table.state()
    return None if state is None else snapshot(state, view.seat)


def events_since(view: DiceView, start: int) -> tuple[list[tuple[Any, ...]], int]:
    return _events_since(view, start, public)


event_json = as_dict


def args_json(kind: str, view: DiceView, args: tuple[Any, ...]) -> dict[str, Any]:
    return {"roll": list(args[0])} if kind == "keep" else {"dice": list(args[0])}


def answer_json(answer: Any) -> Any:
    """An answer as JSON data (the inverse of :func:`answer_from_json`).
    Total: whatever a Python bot returns becomes something JSON can carry,
    so a junk answer is judged by the engine, not lost with the host."""
    if isinstance(answer, Keep):
        return {"dice": _plain(answer.dice), "stop": _plain(answer.stop)}
    return _plain(answer)


def _plain(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [v if isinstance(v, _SCALARS) else repr(v) for v in value]
    return repr(value)


# -- bot -> engine ------------------------------------------------------------
def answer_from_json(kind: str, data: Any) -> Keep | str | None:
    """A bot's JSON answer as a well-formed answer object, or ValueError;
    whether it is legal is the engine's check."""
    if kind == "keep":
        if not isinstance(data, dict):
            raise ValueError('expected {"dice": [...], "stop": false}')
        dice, stop = data.get("dice"), data.get("stop", False)
        if not isinstance(dice, list) or not all(type(d) is int for d in dice):
            raise ValueError("dice must be a list of ints")
        if type(stop) is not bool:
            raise ValueError("stop must be true or false")
        return Keep(tuple(dice), stop)
    if kind == "harvest":
        if data not in STEPS:
            raise ValueError('expected "fulfil", "redeem" or null')
        step: str | None = data
        return step
    raise ValueError(f"unknown decision {kind!r}")


# -- bot side ----------------------------------------------------------------
@dataclass(frozen=True)
class SentRules(RuleSet):
    """A RuleSet rebuilt from the start message: dice and deck come as data."""

    sent_varieties: tuple[str, ...] = ()
    sent_faces: tuple[tuple[int, ...], ...] = ()
    sent_deck: tuple[tuple[Order, ...], ...] = ()

    @property
    def varieties(self) -> tuple[str, ...]:
        return self.sent_varieties

    @property
    def faces(self) -> tuple[tuple[int, ...], ...]:
        return self.sent_faces

    @property
    def deck(self) -> tuple[tuple[Order, ...], ...]:
        return self.sent_deck


def rules_from_json(data: dict[str, Any]) -> SentRules:
    varieties = tuple(data["varieties"])
    ids = {name: i for i, name in enumerate(varieties)}
    return SentRules(
        data["edition"],
        data["players"],
        early_stop=data["early_stop"],
        target=data["target"],
        version=data["version"],
        sent_varieties=varieties,
        sent_faces=tuple(tuple(die) for die in data["faces"]),
        sent_deck=tuple(tuple(parse(text, ids) for text in card) for card in data["deck"]),
    )


def json_view(data: dict[str, Any], rules: RuleSet, history: list[tuple[Any, ...]]) -> JsonDiceView:
    return JsonDiceView(data, rules, history)


def args_from_json(kind: str, args: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple(args["roll" if kind == "keep" else "dice"]),)


class JsonDiceView:
    """The DiceView API over a view received as JSON (used by
    :mod:`bohnarena.external.host`). Every value is a tuple or an int, so nothing a
    bot does to them reaches the next decision."""

    __slots__ = (
        "_data",
        "_history",
        "_root",
        "active",
        "bean_field",
        "cards",
        "coins",
        "cover_cards",
        "covered",
        "dice_left",
        "draw_pile",
        "hand",
        "match_id",
        "players",
        "rules",
        "seat",
        "time_left",
        "turn",
    )
    seat: int
    active: int
    turn: int
    players: int
    dice_left: int
    draw_pile: int
    coins: tuple[int, ...]
    bean_field: tuple[int, ...]
    cards: tuple[int, ...]
    covered: tuple[int, ...]
    cover_cards: tuple[int, ...]
    hand: tuple[int, ...]
    time_left: float | None
    match_id: int | None
    _root: State | None  # rebuilt from the view, once a decision

    def __init__(
        self, data: dict[str, Any], rules: RuleSet, history: list[tuple[Any, ...]]
    ) -> None:
        self.rules, self._history = rules, history
        self._data, self._root = data, None
        for name in ("seat", "active", "turn", "players", "dice_left", "draw_pile"):
            setattr(self, name, data[name])
        # Lists (JSON) or tuples (marshal frames) alike become tuples.
        for name in ("coins", "bean_field", "cards", "covered", "cover_cards", "hand"):
            setattr(self, name, tuple(data[name]))
        self.time_left = data.get("time_left")
        self.match_id = data.get("match_id")  # (the start message's)

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        return tuple(map(named, self._history))

    def open_orders(self, seat: int | None = None) -> tuple[Order, ...]:
        """The orders still open on a seat's active card, lowest first."""
        s = self.seat if seat is None else seat
        return self.rules.deck[self.cards[s]][self.covered[s] :]

    def fulfillable(self, dice: Sequence[int]) -> int:
        """How many of this seat's open orders, in a row from the lowest, ``dice`` meet."""
        if self.cover_cards[self.seat] < 0:
            return 0
        return met_in_a_row(self.open_orders(), dice)

    def determinize(self, rng: random.Random) -> State:
        """As :meth:`.DiceView.determinize`, from the state the engine sent
        (a bot asks for it with ``wants_state``; without it this raises
        NotImplementedError)."""
        from .snapshot import restore  # (it imports this module)

        if self._root is None:
            self._root = sent_state(self._data, self.rules, restore)
        sample: State = self._root.determinize(self.seat, rng)
        return sample


def protocol() -> GameProtocol:
    """What the JSON Schema of this protocol is made of (``bohnarena schema``)."""
    from .schema import protocol as made  # (it imports this module)

    return made()
