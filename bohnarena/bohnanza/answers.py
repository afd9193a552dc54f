"""Every legal answer to a decision of the card game, where they can be
listed (:meth:`.State.legal_answers`), and a finite set of sensible trade
offers (:meth:`.State.offers`): what a search enumerates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations, islice, permutations, product
from typing import TYPE_CHECKING, Any

from ..core.errors import IllegalAnswer
from .bot import DECISION_METHODS, Accept, Anytime, DraftPick, Offer, Proposal
from .decisions import DECISIONS

if TYPE_CHECKING:
    from .state import State


def _fields(state: State, seat: int, card: int) -> list[Any]:
    return list(state.table.fields_for(seat, card))


def _room(state: State, seat: int, card: int) -> list[Any]:
    return list(state.table.harvestable(seat))


def _yes_no(state: State, seat: int) -> list[Any]:
    return [False, True]


def _area(state: State, seat: int) -> list[Any]:
    return list(range(len(state.table.trade[seat])))


def _windows(state: State, seat: int) -> list[Any]:
    """None, and every order of harvests protection allows (a third field
    bought first, or not)."""
    t = state.table
    out: list[Any] = [None]
    buys = (False, True) if t.can_buy_field(seat) else (False,)
    check = DECISIONS["anytime"].check
    for buy in buys:
        fields = range(len(t.fields[seat]) + (1 if buy else 0))
        for k in range(len(fields) + 1):
            for order in permutations(fields, k):
                if not order and not buy:
                    continue
                try:
                    out.append(check(t, seat, Anytime(order, buy)))
                except IllegalAnswer:
                    pass
    return out


def _trade_offers(state: State, seat: int) -> list[Any]:
    return [None, *sensible_offers(state, seat)]


def _responses(state: State, seat: int, proposal: Proposal) -> list[Any]:
    """None, and every way (at most 64) to give the wanted varieties: which
    cards of a variety go matters, as hand order decides what is planted."""
    t = state.table
    where: dict[int, list[int]] = {}
    for r, v in enumerate(t.hands[seat]):
        where.setdefault(v, []).append(r)
    if seat == t.active:
        for i, v in enumerate(t.revealed):
            where.setdefault(v, []).append(-1 - i)
    choices = [combinations(where.get(v, []), k) for v, k in Counter(proposal.want).items()]
    out: list[Any] = [None]
    for picked in islice(product(*choices), 64):
        out.append(Accept(tuple(r for refs in picked for r in refs)))
    return out


def _draft_picks(state: State, seat: int, cards: tuple[int, ...]) -> list[Any]:
    t = state.table
    return [
        DraftPick(i, f) for i, card in enumerate(cards) for f in (*t.fields_for(seat, card), None)
    ]


LEGAL: dict[str, Callable[..., list[Any]]] = {
    "plant": _fields,
    "make_room": _room,
    "plant_second": _yes_no,
    "plant_next": _area,
    "anytime": _windows,
    "propose": _trade_offers,
    "offer": _trade_offers,
    "respond": _responses,
    "draft": _draft_picks,
}
assert tuple(LEGAL) == DECISION_METHODS


def sensible_offers(state: State, seat: int) -> list[Offer]:
    """See :meth:`State.offers`."""
    t = state.table
    own: dict[int, list[int]] = {}
    for r, v in enumerate(t.hands[seat]):
        own.setdefault(v, []).append(r)
    if seat == t.active:
        for i, v in enumerate(t.revealed):
            own.setdefault(v, []).append(-1 - i)
    in_play = t.rules.in_play
    out: list[Offer] = []
    for v, refs in own.items():
        for give in ((refs[-1],), tuple(refs[-2:]) if len(refs) > 1 else None):
            if give is None:
                continue
            out.append(Offer(give, ()))
            out.extend(Offer(give, (w,)) for w in in_play if w != v)
    out.extend(Offer((), (w,)) for w in in_play)
    return out


__all__ = ["LEGAL", "sensible_offers"]
