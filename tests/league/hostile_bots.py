"""Bots that misbehave on purpose, for the runner's tests."""

import os

from bohnarena.bohnanza import Bot


class ExitInSeatZero(Bot):
    """Kills its worker process whenever it plays the start seat."""

    def plant_second(self, view):
        if view.seat == 0:
            os._exit(3)
        return False


class RaiseAlways(Bot):
    def plant_second(self, view):
        raise RuntimeError("always")

    def plant(self, view, card):
        raise RuntimeError("always")


class Noter(Bot):
    """Notes every plant (and a note over the limit): its notes go to the log only."""

    def plant(self, view, card):
        self.note(f"planting {card} " + "x" * 300 * (view.turn == 1))
        return super().plant(view, card)


class MatchIdNoter(Bot):
    """Notes the match id its view tells it, at every plant it is asked."""

    def plant(self, view, card):
        self.note(f"match {view.match_id}")
        return super().plant(view, card)
