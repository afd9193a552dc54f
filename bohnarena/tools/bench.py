"""Throughput of the bare engine on one core: games per second, and
playouts per second of a game's searchable state."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core.game import Game


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


def playouts_per_second(
    new_state: Callable[[Any, int], Any], rules: Any, playouts: int, rounds: int, seed: int = 0
) -> list[float]:
    """One rate per round of ``clone()`` + a random ``playout`` from a match's
    first decision (what a search does a decision, many times over); every
    round plays the same seeds."""
    rates = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        for i in range(playouts):
            state = new_state(rules, seed + i)
            state.start()
            state.clone().playout(random.Random(i))
        rates.append(playouts / (time.perf_counter() - start))
    return rates
