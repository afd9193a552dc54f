"""Bots that attach notes to their answers (tests/bohnanza/test_notes.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from bohnarena.bohnanza import Accept, Proposal, SeatView
from bohnarena_bots.trader import TraderBot


class NotingBot(TraderBot):
    """The trader, noting why: in harvest windows (paired with the next
    decision by bohnarena's host), when planting, and a note too long."""

    def decisions(self, rules: Any) -> frozenset[str]:
        return super().decisions(rules) | {"anytime"}

    def anytime(self, view: SeatView) -> Any:
        if view.phase == 2:
            self.note(f"window in turn {view.turn}")
        return super().anytime(view)

    def plant(self, view: SeatView, card: int) -> int:
        self.note(f"planting {card}" + " and more" * 50 * (view.turn == 1))
        return super().plant(view, card)

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        self.note("first thought")
        self.note(f"offer by seat {offer.by}")  # the last note counts
        return super().respond(view, offer)


class Spy(TraderBot):
    """A trader that looks at everything it sees for other seats' notes."""

    seen: ClassVar[list[Any]] = []

    def plant(self, view: SeatView, card: int) -> int:
        Spy.seen.extend(r for r in view.history if r[0] == "note")
        return super().plant(view, card)


class LongNoter(TraderBot):
    """Notes past note()'s own cut, as a command bot's "note" arrives."""

    def plant(self, view: SeatView, card: int) -> int:
        self._bohnarena_notes[:] = ["y" * 5000]  # type: ignore[attr-defined]
        return super().plant(view, card)


class Forger(TraderBot):
    """Notes and raises text that would forge transcript lines and drive a
    terminal, and notes an answer it then voids by raising."""

    FAKE = "ok)\n   99   seat 1 (trader) harvests field 0\x1b[31mRED\u202e\ud800"

    def plant(self, view: SeatView, card: int) -> int:
        self.note(self.FAKE)
        return super().plant(view, card)

    def plant_second(self, view: SeatView) -> bool:
        self.note("void")
        raise ValueError(self.FAKE)
