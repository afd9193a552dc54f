"""A seat's sample of a match (:meth:`.State.determinize`): the cards it
cannot see dealt afresh from their counts, and the frames of the turn as it
may know them (also what :mod:`.snapshot` sends a bot out of process)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .bot import Offer, Proposal
from .table import shuffle

if TYPE_CHECKING:
    from .state import State


def sample(state: State, seat: int, rng: random.Random) -> State:
    """:meth:`.State.determinize`."""
    new = state.clone()
    new._stack = masked_stack(state, seat)
    t = new.table
    t.records = []
    t.record = t.records.append
    t.referee = None
    pool: list[int] = []
    for v, k in enumerate(state.view(seat).unseen):
        pool += [v] * k  # (a list a variety, not a loop a card)
    shuffle(pool, rng)
    t.rng = random.Random(rng.getrandbits(64))
    for s in range(t.players):
        if s != seat:
            size = len(t.hands[s])
            t.hands[s] = pool[len(pool) - size :]
            del pool[len(pool) - size :]
    t.deck = pool
    return new


def _masked(frame: tuple[Any, ...], state: State, seat: int) -> tuple[Any, ...]:
    """``frame`` with the hand positions of another seat's offer replaced by
    the hindmost ones of that hand: the seat saw the varieties offered (the
    frame's Proposal), not where in the hand they were. A sample deals that
    hand afresh, so no position in it is truer than another."""
    for v in frame:  # (a loop, not a generator: every frame of every sample comes here)
        if type(v) is Proposal:
            by = v.by
            break
    else:
        return frame
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
