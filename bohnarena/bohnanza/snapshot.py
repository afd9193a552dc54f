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

import inspect
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..game import STATE
from .bot import Accept, Anytime, DraftPick, Offer, Proposal
from .rules import RuleSet
from .state import State
from .wire import answer_from_json, answer_json, args_from_json, proposal_json

#: A hidden card in a rebuilt state (another hand, the draw pile): never
#: played, as :meth:`.State.determinize` deals every one afresh.
HIDDEN = -2

# Tagged objects: the decision whose answer it is (wire.answer_json reads and
# writes it), by class name. A Proposal is an argument, not an answer.
_ANSWERS: dict[str, str] = {
    "Offer": "offer",
    "Accept": "respond",
    "Anytime": "anytime",
    "DraftPick": "draft",
}
_ANSWER_TYPES = (Offer, Accept, Anytime, DraftPick)


def _step_name(fn: Any) -> str:
    """A step's name; a value that is not a function of State fails loudly."""
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or getattr(State, name, None) is not fn:
        raise TypeError(f"not a step of State: {fn!r}")
    return name


def _step(name: Any) -> Callable[..., Any]:
    """The step called ``name`` (a renamed step fails here, not later)."""
    fn = getattr(State, name, None) if isinstance(name, str) and name.startswith("_") else None
    if not inspect.isfunction(fn):
        raise ValueError(f"no step {name!r} in State (another bohnarena version than the engine?)")
    return fn


def encode(value: Any) -> Any:
    """A frame's value as JSON data: tuples as lists, steps as ``{"step":
    name}``, answer objects and proposals tagged with their class name."""
    if value is None or type(value) in (int, bool, str):
        return value
    if type(value) is tuple:
        return [encode(v) for v in value]
    if type(value) is Proposal:
        return {"Proposal": proposal_json(value)}
    if isinstance(value, _ANSWER_TYPES):
        return {type(value).__name__: answer_json(value)}
    return {"step": _step_name(value)}


def decode(data: Any) -> Any:
    """The inverse of :func:`encode` (lists come back as tuples; marshal's
    tuples, from bohnarena's own host, too)."""
    if data is None or type(data) in (int, bool, str):
        return data
    if type(data) in (list, tuple):
        return tuple(decode(v) for v in data)
    if type(data) is dict and len(data) == 1:
        ((tag, body),) = data.items()
        if tag == "step":
            return _step(body)
        if tag == "Proposal":
            return args_from_json("respond", {"offer": body})[0]
        if tag in _ANSWERS:
            return answer_from_json(_ANSWERS[tag], body)
    raise ValueError(f"not a frame value: {data!r}")


def _masked(frame: tuple[Any, ...], state: State, seat: int) -> tuple[Any, ...]:
    """``frame`` with the hand positions of another seat's offer replaced by
    the hindmost ones of that hand: the seat saw the varieties offered (the
    frame's Proposal), not where in the hand they were. A sample deals that
    hand afresh, so no position in it is truer than another."""
    by = next((v.by for v in frame if type(v) is Proposal), seat)
    if by == seat:
        return frame
    out = list(frame)
    for i, v in enumerate(frame):
        if type(v) is Offer:
            back = iter(range(len(state.table.hands[by]) - 1, -1, -1))
            # (negative references are revealed cards: public, kept)
            out[i] = Offer(tuple(r if r < 0 else next(back) for r in v.give), v.want, v.to)
    return tuple(out)


def masked_stack(state: State, seat: int) -> list[tuple[Any, ...]]:
    """``state``'s frames as ``seat`` may know them (see :func:`_masked`)."""
    return [_masked(f, state, seat) for f in state._stack]


def snapshot(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` knows of ``state`` beyond its view, as JSON data."""
    t = state.table
    return {
        "coin_piles": [list(p) for p in t.coins],
        "drafts": [list(d) for d in t.drafts],
        "ended": t.ended,
        "playing_out": t.playing_out,
        "stack": [encode(f) for f in masked_stack(state, seat)],
        "pending": encode(state.pending),
        "then": encode(state.then),
        "asks": [sorted(a) for a in state.asks],
        "declared": [sorted(a) for a in state.declared],
        "forfeited": sorted(state.forfeited),
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
    state = State(rules, 0, [frozenset(a) for a in data["asks"]])
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
    state.declared = [frozenset(a) for a in data["declared"]]
    state.forfeited = set(data["forfeited"])
    state._busy, state._windows, state._trades = data["busy"], data["windows"], data["trades"]
    state._stack = list(decode(data["stack"]))
    state.pending = decode(data["pending"])
    state.then = decode(data["then"])
    pending, then = state.pending, state.then
    if asked is not None and pending is not None and pending[1] != asked:
        if then is None or then[0] != asked:
            raise ValueError(f"the state is at {pending[1]!r}, not at {asked!r}")
        state.resume(None)  # the window passes, as the engine plays it before the pair's second
    return state


__all__ = ["HIDDEN", "decode", "encode", "masked_stack", "restore", "snapshot"]
