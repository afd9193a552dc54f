"""Dice bots that note their answers and record what their views tell
(tests/wuerfel/test_notes_and_view.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from bohnarena.wuerfel.bot import DiceView, Keep
from bohnarena_bots.wuerfel_bots import GreedyDiceBot


class NotingDiceBot(GreedyDiceBot):
    """The greedy bot, noting each keep and what its view tells of itself."""

    seen: ClassVar[list[Any]] = []

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        answer = super().keep(view, roll)
        bank = view.time_left is not None and 0 < view.time_left <= 120
        self.note(f"keeping {answer.dice} of {roll} in match {view.match_id}, bank {bank}")
        history = view.history
        NotingDiceBot.seen.append(
            (view.time_left, view.match_id, all(h.kind == h[0] for h in history))
        )
        return answer


class DiceSpy(GreedyDiceBot):
    """Looks at everything it sees for another seat's notes."""

    seen: ClassVar[list[Any]] = []

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        DiceSpy.seen.extend(r for r in view.history if r[0] == "note")
        return super().keep(view, roll)
