"""The card game with a wire that leaks (``check-game`` must say so): the
view it sends shows the next seat's hand as the discard pile. Everything
else is the card game's; this module is its own wire module."""

from __future__ import annotations

from typing import Any

from bohnarena.bohnanza import wire as _cards
from bohnarena.bohnanza.game import GAME as CARDS
from bohnarena.bohnanza.wire import *  # noqa: F403  (the card game's wire but view_json)


def view_json(view: Any) -> dict[str, Any]:
    shown = _cards.view_json(view)
    table = getattr(view, "_table", None)
    if table is not None:  # the engine's side (a view sent as JSON has no table)
        shown["discard"] = list(table.hands[(view.seat + 1) % view.players])
    return shown


class Leaky:
    wire = __name__

    # One rule set, so that its check is quick.
    def editions(self) -> list[str]:
        return ["classic"]

    def player_counts(self, edition: str) -> list[int]:
        return [3]

    def conformance_configs(self) -> list[tuple[str, int, dict[str, Any]]]:
        return [("classic", 3, {})]

    def __getattr__(self, name: str) -> Any:
        return getattr(CARDS, name)


GAME = Leaky()
