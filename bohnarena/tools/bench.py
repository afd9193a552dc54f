"""Throughput of the bare engine on one core: games per second, and
playouts per second of a game's searchable state."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core.game import Game

#: How a playout starts from a root state: a copy, or a seat's sample.
STARTS = ("clone", "determinize")


def games_per_second(
    game: Game, rules: Any, classes: Sequence[type], games: int, rounds: int, seed: int = 0
) -> list[float]:
    """One rate per round; every round plays the same ``games`` seeds."""
    rates = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        for i in range(games):
            game.play(rules, seed + i, [cls() for cls in classes])
        rates.append(games / (time.perf_counter() - start))
    return rates


def playout_roots(
    new_state: Callable[[Any, int], Any], rules: Any, count: int, seed: int = 0, turns: int = 0
) -> list[Any]:
    """``count`` states to play out from: matches at their first decision,
    or (``turns``) at the first decision of turn ``turns``, played there
    with random answers through ``apply`` (checked and recorded, as a live
    match is)."""
    roots = []
    for i in range(seed, seed + count):
        state = new_state(rules, i)
        state.start()
        rng = random.Random(i)
        while state.pending is not None and state.table.turn < turns:
            state.apply(state.random_policy(state, *state.pending, rng))
        if state.pending is not None:
            roots.append(state)
    return roots


def playout_rate(roots: Sequence[Any], start: str = "clone") -> float:
    """Playouts per CPU second: each root copied (``clone()``) or sampled by
    the seat it waits for (``determinize(seat, rng)``), then played to the
    end with the game's random policy (``playout(rng)``), what a search does
    a decision, many times over. CPU time (``time.process_time``): other
    processes on a shared machine disturb it less."""
    gc.collect()
    began = time.process_time()
    if start == "clone":
        for i, root in enumerate(roots):
            root.clone().playout(random.Random(i))
    else:
        for i, root in enumerate(roots):
            rng = random.Random(i)
            root.determinize(root.pending[0], rng).playout(rng)
    return len(roots) / (time.process_time() - began)


def playouts_per_second(
    new_state: Callable[[Any, int], Any],
    rules: Any,
    playouts: int,
    rounds: int,
    seed: int = 0,
    turns: int = 0,
    start: str = "clone",
) -> list[float]:
    """One rate (:func:`playout_rate`) per round over the same roots
    (:func:`playout_roots`)."""
    roots = playout_roots(new_state, rules, playouts, seed, turns)
    return [playout_rate(roots, start) for _ in range(rounds)]
