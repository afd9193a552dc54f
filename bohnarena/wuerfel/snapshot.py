"""The dice game's searchable state for a bot out of process (as the card
game's, bohnarena/bohnanza/snapshot.py): what the engine adds to the view of
a seat that asks for it, and the State rebuilt from it in the bot's process.

The table is public but for the coin cards drawn face down and the draw
pile's order: the snapshot sends the coin piles with those cards as
:data:`HIDDEN`, which :meth:`.State.determinize` deals afresh.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import partial
from typing import Any

from ..core.game import STATE
from ..referee.frames import Frames
from .bot import Keep
from .rules import RuleSet
from .state import State
from .wire import answer_from_json, answer_json

#: A card nobody has seen placed, in a rebuilt state (never played:
#: :meth:`.State.determinize` deals every one afresh).
HIDDEN = -2

#: The frames' values (a Keep only as an answer; the rest are plain).
FRAMES = Frames(State, {Keep: (answer_json, partial(answer_from_json, "keep"))})


def snapshot(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state`` beyond its view, as JSON data."""
    t = state.table
    shown = t.shown_coins
    return {
        "coin_cards": [[c if c in shown else HIDDEN for c in pile] for pile in t.coin_cards],
        "shown_coins": sorted(shown),
        "overview_turned": list(t.overview_turned),
        "winners": list(state.winners),
        **FRAMES.where(state, state._stack),
    }


def restore(view: Mapping[str, Any], rules: RuleSet, asked: str | None = None) -> State:
    """A State from a decide message's ``view`` (its ``state`` the
    :func:`snapshot`), for :meth:`.State.determinize` only."""
    data = view[STATE]
    state = State(rules, 0)
    t = state.table
    t.rng = random.Random(0)  # the match's stream is not sent: determinize draws a new one
    t.deck = [HIDDEN] * view["draw_pile"]
    t.active_card, t.cover_card = list(view["cards"]), list(view["cover_cards"])
    t.covered, t.coins = list(view["covered"]), list(view["coins"])
    t.field, t.hand = list(view["bean_field"]), list(view["hand"])
    t.active, t.turn = view["active"], view["turn"]
    t.coin_cards = [list(p) for p in data["coin_cards"]]
    t.shown_coins = set(data["shown_coins"])
    t.overview_turned = list(data["overview_turned"])
    state.winners = list(data["winners"])
    FRAMES.put(state, data)
    FRAMES.reach(state, asked)
    return state


__all__ = ["HIDDEN", "restore", "snapshot"]
