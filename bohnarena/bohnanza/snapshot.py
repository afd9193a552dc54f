"""The searchable state for a bot out of process: what the engine sends of a
:class:`~.state.State`, and the State rebuilt from it in the bot's process.

A seat that asks for it (a bot's ``wants_state``; on the wire, ``"state":
true`` in the reply to ``start``) gets :func:`snapshot` as its view's
``state`` with every decision. The view already carries most of the table
(own hand, fields, trade areas, revealed cards, discard pile, hand sizes,
draw pile size, turn, phase, active player, exhaustions); the snapshot adds
what the view leaves out and a seat sees at the table or knows from the
rules: the coin piles (every card reaching one was shown on its way, as
:attr:`.SeatView.unseen` counts them), the drafts in progress, the ended
flags, and where the turn is (the stack of frames with steps by name,
``pending``, ``then``, ``asks``, ``declared``, ``forfeited``, the trading
and window flags). It never holds another seat's hand, the draw pile's
order, a seed or the random stream, nor the hand positions of the cards
another seat offers (a responder sees varieties: :class:`.Proposal`).

In the bot's process :func:`restore` builds a State from the view and the
snapshot with placeholders for the hidden cards, and
:meth:`.State.determinize` deals them afresh from the unseen counts, as it
does in the engine's process: the same rng gives the same sample.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ..core.game import STATE
from ..referee.frames import Frames
from .bot import Accept, Anytime, DraftPick, Offer, Proposal
from .rules import RuleSet
from .sampling import masked_stack
from .state import State
from .wire import answer_from_json, answer_json, args_from_json, proposal_json

#: A hidden card in a rebuilt state (another hand, the draw pile): never
#: played, as :meth:`.State.determinize` deals every one afresh.
HIDDEN = -2


def _proposal(data: Any) -> Proposal:
    proposal: Proposal = args_from_json("respond", {"offer": data})[0]
    return proposal


#: The frames' values: answer objects as wire.answer_json writes them (read
#: back as the answer of their decision), a Proposal as a respond's argument.
FRAMES = Frames(
    State,
    {
        Offer: (answer_json, partial(answer_from_json, "offer")),
        Accept: (answer_json, partial(answer_from_json, "respond")),
        Anytime: (answer_json, partial(answer_from_json, "anytime")),
        DraftPick: (answer_json, partial(answer_from_json, "draft")),
        Proposal: (proposal_json, _proposal),
    },
)
encode, decode = FRAMES.encode, FRAMES.decode


def snapshot(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state`` beyond its view, as JSON data."""
    t = state.table
    return {
        "coin_piles": [list(p) for p in t.coins],
        "drafts": [list(d) for d in t.drafts],
        "ended": t.ended,
        "playing_out": t.playing_out,
        **FRAMES.where(state, masked_stack(state, seat)),
        "busy": state._busy,
        "windows": state._windows,
        "trades": state._trades,
    }


def _lists(rows: Sequence[Sequence[int]]) -> list[list[int]]:
    return [list(r) for r in rows]


def restore(view: Mapping[str, Any], rules: RuleSet, asked: str | None = None) -> State:
    """A State from a decide message's ``view`` (its ``state`` the
    :func:`snapshot`), with :data:`HIDDEN` cards in the other hands and the
    draw pile and no random stream of the match's: for
    :meth:`.State.determinize` only. ``asked``: the decision the bot
    answers; the second of a pair (a window, then the decision that follows
    it when the window passes) is reached by passing the window."""
    data = view[STATE]
    seat = view["seat"]
    state = State(rules, 0)
    t = state.table
    t.rng = random.Random(0)  # the match's stream is not sent: determinize draws a new one
    t.deck = [HIDDEN] * view["draw_pile"]
    t.hands = [
        list(view["hand"]) if s == seat else [HIDDEN] * n for s, n in enumerate(view["hand_sizes"])
    ]
    t.fields = [_lists(fs) for fs in view["fields"]]
    t.trade = _lists(view["trade_areas"])
    t.revealed = list(view["revealed"])
    t.discard = list(view["discard"])
    t.coins = _lists(data["coin_piles"])
    t.drafts = _lists(data["drafts"])
    t.exhaustions, t.ended, t.playing_out = view["exhaustions"], data["ended"], data["playing_out"]
    t.active, t.turn, t.phase = view["active"], view["turn"], view["phase"]
    FRAMES.put(state, data)
    state._busy, state._windows, state._trades = data["busy"], data["windows"], data["trades"]
    FRAMES.reach(state, asked)
    return state


__all__ = ["HIDDEN", "decode", "encode", "masked_stack", "restore", "snapshot"]
