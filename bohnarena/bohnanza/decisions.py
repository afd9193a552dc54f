"""Every kind of decision: how an answer is checked against the rules, and
how it is written to (and read back from) a decision record.

``check`` returns the answer in canonical form or raises
:class:`~bohnarena.core.errors.IllegalAnswer` saying why it is not allowed.
Checks look at exact types only (an int, not a bool, float or int
subclass; a tuple or list; the answer class itself) and never call a bot's
object (its ``__eq__``, ``__iter__``, ``__bool__``...): what they return is
built of plain values, so recording it cannot fail.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from ..core.botapi import SAY_CHARS
from ..core.errors import IllegalAnswer
from ..core.game import Decision
from ..core.untrusted import talk
from .bot import (
    DECISION_METHODS,
    Accept,
    Anytime,
    DraftPick,
    Offer,
    Proposal,
    default_draft,
    default_false,
    default_first,
    default_make_room,
    default_none,
    default_plant,
)
from .table import EMPTY, PROTECTION, Table


def _shown(x: int) -> str:
    return str(x) if -(10**9) < x < 10**9 else "(out of range)"


def _index(x: Any, options: range | list[int] | tuple[int, ...], what: str) -> int:
    if type(x) is not int:
        raise IllegalAnswer(f"{what} must be an int, got {type(x).__name__}")
    if x not in options:
        raise IllegalAnswer(f"{what} {_shown(x)} is not one of {list(options)}")
    return x


def _ints(x: Any, what: str) -> tuple[int, ...]:
    if type(x) not in (tuple, list) or any(type(i) is not int for i in x):
        raise IllegalAnswer(f"{what} must be a tuple of ints")
    return tuple(x)


def _of(x: Any, cls: type, what: str) -> Any:
    if type(x) is not cls:
        raise IllegalAnswer(f"{what} must be a {cls.__name__} or None, got {type(x).__name__}")
    return x


def card_refs(t: Table, seat: int, refs: Any, revealed_ok: bool) -> tuple[int, ...]:
    """Checks references to a seat's tradeable cards (hand positions, and
    revealed cards as -1, -2 for the active player)."""
    checked = _ints(refs, "card references")
    if len(set(checked)) != len(checked):
        raise IllegalAnswer("card references repeat")
    hand = len(t.hands[seat])
    shown = len(t.revealed) if revealed_ok else 0
    for r in checked:
        if not (0 <= r < hand or -shown <= r < 0):
            where = f"hand of {hand}" + (f" and {shown} revealed" if shown else "")
            raise IllegalAnswer(f"card reference {_shown(r)} is not in the {where}")
    return checked


def ref_cards(t: Table, seat: int, refs: tuple[int, ...]) -> tuple[int, ...]:
    """The varieties behind card references."""
    hand = t.hands[seat]
    return tuple(hand[r] if r >= 0 else t.revealed[-1 - r] for r in refs)


def _varieties(t: Table, want: Any) -> tuple[int, ...]:
    checked = _ints(want, "want")
    in_play = t.rules.in_play
    for v in checked:
        if v not in in_play:
            raise IllegalAnswer(f"variety {_shown(v)} is not in this match's deck")
    return checked


# -- checks -----------------------------------------------------------------
def _plant(t: Table, seat: int, x: Any, card: int) -> int:
    fields = t.fields[seat]
    # the legal case without building the options (checked every planting)
    if type(x) is int and 0 <= x < len(fields):
        v = fields[x][0]
        if v == card or v == EMPTY:  # noqa: SIM109 (a tuple test costs more)
            return x
    return _index(x, t.fields_for(seat, card), "field")


def _make_room(t: Table, seat: int, x: Any, card: int) -> int:
    if type(x) is int and x in t.harvestable(seat):
        return x  # (the common case without _index's call)
    return _index(x, t.harvestable(seat), "field to harvest")


def _yes(t: Table, seat: int, x: Any) -> bool:
    if type(x) is not bool:
        raise IllegalAnswer(f"answer must be a bool, got {type(x).__name__}")
    return x


def _plant_next(t: Table, seat: int, x: Any) -> int:
    return _index(x, range(len(t.trade[seat])), "trade area index")


def _anytime(t: Table, seat: int, x: Any) -> Anytime | None:
    if x is None:
        return None
    x = _of(x, Anytime, "anytime answer")
    if type(x.buy_field) is not bool:
        raise IllegalAnswer(f"buy_field must be a bool, got {type(x.buy_field).__name__}")
    harvest = _ints(x.harvest, "harvest")
    fields = [list(f) for f in t.fields[seat]]
    if x.buy_field:
        if not t.can_buy_field(seat):
            raise IllegalAnswer("cannot buy a third field now")
        fields.append([-1, 0])
    protect = PROTECTION[t.rules.protection]
    for f in harvest:  # in order: each harvest changes what protection allows next
        _index(f, protect(fields), "field to harvest")
        fields[f] = [-1, 0]
    return Anytime(harvest, x.buy_field) if harvest or x.buy_field else None


def _offer_from(t: Table, seat: int, x: Any, active: bool) -> Offer | None:
    if x is None:
        return None
    x = _of(x, Offer, "offer")
    give = card_refs(t, seat, x.give, revealed_ok=active)
    want = _varieties(t, x.want)
    if not give and not want:
        raise IllegalAnswer("an offer must give or want something")
    to = x.to
    if active:
        if to is not None:
            _index(to, [s for s in range(t.players) if s != seat], "addressee")
    else:
        to = t.active  # whatever it said: offers from other players go to the active player
    say = x.say
    if type(say) is not str:
        raise IllegalAnswer(f"say must be a str, got {type(say).__name__}")
    return Offer(give, want, to, talk(say, SAY_CHARS) if say else "")


def _propose(t: Table, seat: int, x: Any) -> Offer | None:
    return _offer_from(t, seat, x, active=True)


def _offer(t: Table, seat: int, x: Any) -> Offer | None:
    return _offer_from(t, seat, x, active=False)


def _respond(t: Table, seat: int, x: Any, offer: Proposal) -> Accept | None:
    if x is None:
        return None
    x = _of(x, Accept, "response")
    give = card_refs(t, seat, x.give, revealed_ok=seat == t.active)
    got = Counter(ref_cards(t, seat, give))
    if got != Counter(offer.want):
        raise IllegalAnswer(f"accepting must give exactly the wanted varieties {offer.want}")
    return Accept(give)


def _draft(t: Table, seat: int, x: Any, cards: tuple[int, ...]) -> DraftPick:
    x = _of(x, DraftPick, "draft pick")
    i = _index(x.index, range(len(cards)), "draft card index")
    if x.field is not None:
        _index(x.field, t.fields_for(seat, cards[i]), "field")
    return DraftPick(i, x.field)


# -- records ----------------------------------------------------------------
def _without_to(values: tuple[Any, ...]) -> tuple[Any, ...]:
    made, _, give, want = values  # offers to the active player name no addressee
    return made, give, want


def _says(o: Offer | None) -> str:
    return "" if o is None else o.say


def _saying(o: Offer | None, text: str) -> Offer | None:
    return None if o is None else replace(o, say=text)


def _opt_offer(o: Offer | None) -> tuple[Any, ...]:
    return (0, -1, (), ()) if o is None else (1, -1 if o.to is None else o.to, o.give, o.want)


DECISIONS: dict[str, Decision] = {
    d.name: d
    for d in (
        Decision("plant", _plant, lambda a, args: (args[0], a), lambda v: v[1], default_plant),
        Decision(
            "make_room", _make_room, lambda a, args: (args[0], a), lambda v: v[1], default_make_room
        ),
        Decision(
            "plant_second", _yes, lambda a, args: (int(a),), lambda v: bool(v[0]), default_false
        ),
        Decision("plant_next", _plant_next, lambda a, args: (a,), lambda v: v[0], default_first),
        Decision(
            "anytime",
            _anytime,
            lambda a, args: ((), 0) if a is None else (a.harvest, int(a.buy_field)),
            lambda v: Anytime(tuple(v[0]), bool(v[1])),
            default_none,
        ),
        Decision(
            "propose",
            _propose,
            lambda a, args: _opt_offer(a),
            lambda v: Offer(tuple(v[2]), tuple(v[3]), None if v[1] < 0 else v[1]) if v[0] else None,
            default_none,
            _says,
            _saying,
        ),
        Decision(
            "offer",
            _offer,
            lambda a, args: _without_to(_opt_offer(a)),
            lambda v: Offer(tuple(v[1]), tuple(v[2])) if v[0] else None,
            default_none,
            _says,
            _saying,
        ),
        Decision(
            "respond",
            _respond,
            lambda a, args: (0, ()) if a is None else (1, a.give),
            lambda v: Accept(tuple(v[1])) if v[0] else None,
            default_none,
        ),
        Decision(
            "draft",
            _draft,
            lambda a, args: (a.index, -1 if a.field is None else a.field),
            lambda v: DraftPick(v[0], None if v[1] < 0 else v[1]),
            default_draft,
        ),
    )
}
assert tuple(DECISIONS) == DECISION_METHODS
