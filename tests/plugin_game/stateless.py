"""The dice game with a wire whose searchable state leaves a part out
(``check-game`` must say so): a seat that asks for the state cannot deal a
sample from it. Everything else is the dice game's; this module is its own
wire module."""

from __future__ import annotations

from typing import Any

from bohnarena.wuerfel import wire as _dice
from bohnarena.wuerfel.game import GAME as DICE
from bohnarena.wuerfel.wire import *  # noqa: F403  (the dice game's wire but state_json)


def state_json(view: Any) -> dict[str, Any] | None:
    state = _dice.state_json(view)
    return None if state is None else {k: v for k, v in state.items() if k != "winners"}


class Stateless:
    wire = __name__

    # Two players, so that its check is quick.
    def player_counts(self, edition: str) -> list[int]:
        return [2]

    def conformance_configs(self) -> list[tuple[str, int, dict[str, Any]]]:
        return [("standard", 2, {})]

    def __getattr__(self, name: str) -> Any:
        return getattr(DICE, name)


GAME = Stateless()
