"""The dice game with a wire that loses an answer (``check-game`` must say
so): a bot's "redeem" comes back as "fulfil". Everything else is the dice
game's; this module is its own wire module."""

from __future__ import annotations

from typing import Any

from bohnarena.wuerfel import wire as _dice
from bohnarena.wuerfel.game import GAME as DICE
from bohnarena.wuerfel.wire import *  # noqa: F403  (the dice game's wire but answer_from_json)


def answer_from_json(kind: str, data: Any) -> Any:
    answer = _dice.answer_from_json(kind, data)
    return "fulfil" if answer == "redeem" else answer


class Lossy:
    wire = __name__

    # Two players, so that its check is quick.
    def player_counts(self, edition: str) -> list[int]:
        return [2]

    def conformance_configs(self) -> list[tuple[str, int, dict[str, Any]]]:
        return [("standard", 2, {})]

    def __getattr__(self, name: str) -> Any:
        return getattr(DICE, name)


GAME = Lossy()
