"""Throughput of the bare engine: games per second on one core."""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from typing import Any

from .game import Game


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
