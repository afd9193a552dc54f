"""A quick bean counter that notes what it did (tests/bohnanza/test_snapshot.py,
tests/external/test_protocol_schema.py): its notes reach the move log from any
process, so a test sees whether a bot out of process searched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bohnarena.bohnanza import SeatView
from bohnarena_bots.searcher import BeanCounterBot


class QuickCounter(BeanCounterBot):
    """A small budget and no clock: a match takes a second, the same on any machine."""

    playouts = 6
    min_deals = 1
    horizon_rounds = 1
    max_seconds = 1e9

    def _search(self, view: SeatView, kind: str, fallback: Callable[[], Any]) -> Any:
        before = self.searches
        answer = super()._search(view, kind, fallback)
        if not self.searchable:
            self.note("fallback")
        elif self.searches > before:
            self.note("searched")
        return answer


class BlindCounter(QuickCounter):
    """The same bot not asking for the state: out of process it cannot search."""

    wants_state = False
