"""Playout policies of the card game: how :meth:`.State.playout` answers
the decisions it reaches when the caller gives no policy."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .bot import DraftPick

if TYPE_CHECKING:
    from .state import State


#: The decisions :func:`random_policy` answers other than by default: it
#: opens no harvest window, makes no offer and declines every one.
RANDOM_DECIDES = frozenset({"plant", "make_room", "plant_second", "plant_next", "draft"})


def random_policy(
    state: State, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random
) -> Any:
    """A quick random legal answer: plant and harvest where the rules let
    it at random, plant a second card at even odds; no harvest windows, no
    trade offers, every offer declined."""
    # (rng.random() rather than rng.randrange(): a C call, not three Python
    # ones; the commonest decisions first: a playout's are mostly make_room)
    if kind == "make_room":
        # the fields the rules listed on the way here, else listed again
        room = state.options if state.options_for is args else None
        if room is None:
            t = state.table
            room = t._protect(t.fields[seat])  # t.harvestable(), inlined
        return room[int(rng.random() * len(room))]
    if kind == "plant_second":
        return rng.random() < 0.5
    if kind == "plant_next":
        return int(rng.random() * len(state.table.trade[seat]))
    if kind == "plant":
        fits = state.options if state.options_for is args else None
        if fits is None:
            fits = state.table.fields_for(seat, args[0])
        return fits[int(rng.random() * len(fits))]
    if kind == "draft":
        cards = args[0]
        i = int(rng.random() * len(cards))
        fits = state.table.fields_for(seat, cards[i])
        return DraftPick(i, fits[0] if fits else None)
    return None  # anytime, propose, offer, respond


def random_answer(state: State, rng: random.Random) -> Any:
    """:func:`random_policy`'s answer to the pending decision."""
    assert state.pending is not None
    return random_policy(state, *state.pending, rng)


#: ``(state, seat, kind, args, rng) -> answer``: how a playout answers.
Policy = Callable[["State", int, str, tuple[Any, ...], random.Random], Any]


__all__ = ["RANDOM_DECIDES", "Policy", "random_answer", "random_policy"]
