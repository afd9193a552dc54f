"""Three cards, not reproducible (``check-game`` must say so): each match
is dealt from its seed and the number of matches played before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bohnarena.core.plugins import load_module

toy3: Any = load_module(str(Path(__file__).with_name("toy3.py")))


class Unseeded(toy3.ThreeCards):  # type: ignore[misc,name-defined]
    def __init__(self) -> None:
        self.played = 0

    def play(self, rules: Any, seed: int, players: Any) -> Any:
        self.played += 1
        return super().play(rules, seed + self.played, players)


GAME = Unseeded()
