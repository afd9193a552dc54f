"""The card game's side of the JSON-lines bot protocol (docs/writing-a-bot.md):
views, arguments and answers as JSON, both ways. It implements
:class:`bohnarena.external.host.Wire`; :class:`bohnarena.external.remote.RemoteSeat` sends
these messages and :mod:`bohnarena.external.host` answers them for Python bots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..referee.frames import WHERE, sent_state
from .bot import Accept, Anytime, Bot, DraftPick, Offer, Proposal
from .decisions import DECISIONS as _DECISIONS
from .records import as_dict, named
from .rules import RuleSet, edition_names, player_counts, ruleset
from .table import PROTECTION
from .view import SeatView
from .view import events_since as _records_since

if TYPE_CHECKING:
    import random

    from ..core.protocol_schema import GameProtocol
    from .state import State

BASE = Bot
DECISIONS = tuple(_DECISIONS)


def warm() -> None:
    """Load the game's data now (a zygote does, once, before it forks)."""
    for edition in edition_names():
        ruleset(edition, player_counts(edition)[0])


# -- the messages' shapes (bohnarena/bohnanza/schema.py builds the JSON Schema
# from these; a test holds them to real traffic) ------------------------------
#: The decide message's ``view``, key by key (types: see schema.TYPES).
VIEW: dict[str, str] = {
    "seat": "int",
    "active": "int",
    "turn": "int",
    "phase": "int",
    "hand": "ints",
    "fields": "fields_by_seat",
    "trade_areas": "ints_by_seat",
    "revealed": "ints",
    "coins": "ints",
    "hand_sizes": "ints",
    "draw_pile": "int",
    "discard": "ints",
    "exhaustions": "int",
    "players": "int",
    "harvestable": "ints",
    "can_buy_field": "bool",
    "unseen": "ints",
    "time_left": "number?",
}

#: The state's keys (types: see schema.TYPES).
STATE: dict[str, str] = {
    "coin_piles": "ints_by_seat",
    "drafts": "ints_by_seat",
    "ended": "bool",
    "playing_out": "bool",
    **WHERE,
    "busy": "bool",
    "windows": "bool",
    "trades": "bool",
}

#: The decide message's ``args``, by decision.
ARGS: dict[str, dict[str, str]] = {
    "plant": {"card": "int", "options": "ints"},
    "make_room": {"card": "int", "options": "ints"},
    "plant_second": {},
    "plant_next": {},
    "anytime": {},
    "propose": {},
    "offer": {},
    "respond": {"offer": "proposal"},
    "draft": {"cards": "ints"},
}

#: A bot's answer, by decision: a type, or an object's keys (every key
#: optional but ``draft``'s ``index``); ``nullable``: ``null`` passes.
ANSWERS: dict[str, tuple[str | dict[str, str], bool]] = {
    "plant": ("int", False),
    "make_room": ("int", False),
    "plant_second": ("bool", False),
    "plant_next": ("int", False),
    "anytime": ({"harvest": "ints", "buy_field": "bool"}, True),
    "propose": ({"give": "ints", "want": "ints", "to": "int?", "say": "say"}, True),
    "offer": ({"give": "ints", "want": "ints", "to": "int?", "say": "say"}, True),
    "respond": ({"give": "ints"}, True),
    "draft": ({"index": "int", "field": "int?"}, False),
}


# -- engine -> bot ----------------------------------------------------------
def view_json(view: SeatView) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "active": view.active,
        "turn": view.turn,
        "phase": view.phase,
        "hand": view.hand,
        "fields": view.fields,
        "trade_areas": view.trade_areas,
        "revealed": view.revealed,
        "coins": view.coins,
        "hand_sizes": view.hand_sizes,
        "draw_pile": view.draw_pile,
        "discard": view.discard,
        "exhaustions": view.exhaustions,
        "players": view.players,
        "harvestable": view.harvestable(),
        "can_buy_field": view.can_buy_field(),
        "unseen": view.unseen,
        "time_left": view.time_left,
    }


events_since = _records_since
event_json = as_dict


def args_json(kind: str, view: SeatView, args: tuple[Any, ...]) -> dict[str, Any]:
    if kind in ("plant", "make_room"):
        card = args[0]
        options = view.fields_for(card) if kind == "plant" else view.harvestable()
        return {"card": card, "options": options}
    if kind == "draft":
        return {"cards": args[0]}
    if kind == "respond":
        return {"offer": proposal_json(args[0])}
    return {}


def proposal_json(p: Proposal) -> dict[str, Any]:
    out: dict[str, Any] = {"by": p.by, "to": p.to, "cards": p.cards, "want": p.want}
    if p.say:  # (table talk: absent when nothing was said)
        out["say"] = p.say
    return out


def state_json(view: SeatView) -> dict[str, Any] | None:
    """The searchable state's public part for ``view``'s seat (see
    :mod:`.snapshot`); None where the view has no state behind it."""
    from .snapshot import snapshot  # (it imports this module)

    state = view._table.state()
    return None if state is None else snapshot(state, view.seat)


def answer_json(answer: Any) -> Any:
    """An answer object as JSON data (the inverse of :func:`answer_from_json`)."""
    if isinstance(answer, Anytime):
        return {"harvest": list(answer.harvest), "buy_field": answer.buy_field}
    if isinstance(answer, Offer):
        out: dict[str, Any] = {
            "give": list(answer.give),
            "want": list(answer.want),
            "to": answer.to,
        }
        if answer.say:
            out["say"] = answer.say
        return out
    if isinstance(answer, Accept):
        return {"give": list(answer.give)}
    if isinstance(answer, DraftPick):
        return {"index": answer.index, "field": answer.field}
    return answer


def _ints(x: Any) -> tuple[int, ...]:
    if not isinstance(x, list):
        raise ValueError("expected a list of ints")
    return tuple(x)


def answer_from_json(kind: str, data: Any) -> Any:
    """A bot's JSON answer as the answer object the engine checks."""
    if kind in ("anytime", "propose", "offer", "respond") and data is None:
        return None
    if kind == "anytime":
        return Anytime(_ints(data.get("harvest", [])), data.get("buy_field", False))
    if kind in ("propose", "offer"):
        say = data.get("say")  # (checked as the rest of the answer is)
        return Offer(
            _ints(data.get("give", [])),
            _ints(data.get("want", [])),
            data.get("to"),
            "" if say is None else say,
        )
    if kind == "respond":
        return Accept(_ints(data.get("give", [])))
    if kind == "draft":
        return DraftPick(data["index"], data.get("field"))
    return data


def rules_json(rules: RuleSet) -> dict[str, Any]:
    return {
        **rules.options(),
        "varieties": [
            {
                "id": v.id,
                "key": v.key,
                "name": v.name,
                "cards": v.cards,
                "beanometer": list(v.beanometer),
                "draft_at": v.draft_at,
            }
            for v in rules.varieties
        ],
    }


def rules_from_json(data: dict[str, Any]) -> RuleSet:
    overridable = {
        k: data[k]
        for k in (
            "fields",
            "third_field_cost",
            "reveal",
            "draw",
            "exhaustions",
            "protection",
            "tie_break",
            "max_trade_rounds",
            "max_offers",
        )
    }
    if data.get("extra_bean"):
        overridable["extra_bean"] = data["extra_bean"]
    return ruleset(data["edition"], data["players"], **overridable)


# -- bot side ----------------------------------------------------------------
def json_view(data: dict[str, Any], rules: RuleSet, history: list[tuple[Any, ...]]) -> JsonView:
    return JsonView(data, rules, history)


class JsonView:
    """The SeatView API over a view received as JSON (used by :mod:`bohnarena.external.host`).
    Values are frozen into tuples on first use, so nothing a bot does to them
    reaches the next decision."""

    def __init__(
        self, data: dict[str, Any], rules: RuleSet, history: list[tuple[Any, ...]]
    ) -> None:
        self._d, self.rules, self._history = data, rules, history
        self._frozen: dict[str, Any] = {}
        self._root: State | None = None  # rebuilt from the view, once a decision

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        return tuple(map(named, self._history))

    @property
    def beanometer(self) -> tuple[tuple[int, int, int, int], ...]:
        return tuple(v.beanometer for v in self.rules.varieties)

    def __getattr__(self, name: str) -> Any:
        frozen = self.__dict__.get("_frozen")
        if frozen is None:
            raise AttributeError(name)
        if name not in frozen:
            try:
                frozen[name] = _freeze(self._d[name])
            except KeyError:
                raise AttributeError(name) from None
        return frozen[name]

    def determinize(self, rng: random.Random) -> State:
        """As :meth:`.SeatView.determinize`, from the state the engine sent
        (a bot asks for it with ``wants_state``; without it this raises
        NotImplementedError)."""
        from .snapshot import restore  # (it imports this module)

        if self._root is None:
            self._root = sent_state(self._d, self.rules, restore)
        sample: State = self._root.determinize(self.seat, rng)
        return sample

    @property
    def my_fields(self) -> tuple[tuple[int, int], ...]:
        mine: tuple[tuple[int, int], ...] = self.fields[self.seat]
        return mine

    @property
    def my_trade_area(self) -> tuple[int, ...]:
        mine: tuple[int, ...] = self.trade_areas[self.seat]
        return mine

    @property
    def my_coins(self) -> int:
        mine: int = self.coins[self.seat]
        return mine

    def fields_for(self, card: int) -> tuple[int, ...]:
        return tuple(i for i, (v, _) in enumerate(self.my_fields) if v in (card, -1))

    def harvestable(self) -> tuple[int, ...]:
        return tuple(PROTECTION[self.rules.protection]([list(f) for f in self.my_fields]))

    def coins_for(self, variety: int, count: int) -> int:
        return self.rules.varieties[variety].coins(count)

    def can_buy_field(self) -> bool:
        cost = self.rules.third_field_cost
        return cost > 0 and len(self.my_fields) == self.rules.fields and self.my_coins >= cost


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def args_from_json(kind: str, args: dict[str, Any]) -> tuple[Any, ...]:
    if kind in ("plant", "make_room"):
        return (args["card"],)
    if kind == "draft":
        return (tuple(args["cards"]),)
    if kind == "respond":
        o = args["offer"]
        return (Proposal(o["by"], o["to"], tuple(o["cards"]), tuple(o["want"]), o.get("say", "")),)
    return ()


def protocol() -> GameProtocol:
    """What the JSON Schema of this protocol is made of (``bohnarena schema``)."""
    from .schema import protocol as made  # (it imports this module)

    return made()
