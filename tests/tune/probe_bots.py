"""Bots with declared parameters for the tuning tests."""

from collections.abc import Mapping
from typing import ClassVar

from bohnarena.core.params import Param
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot


class Probe(PlannerBot):
    """Faults at start unless its parameter ``x`` is 0.7 and ``n`` is 3:
    a league's faults show whether a setting reached it."""

    x = 0.5
    n = 1
    tunable: ClassVar[Mapping[str, Param]] = {"x": Param(0.0, 1.0), "n": Param(0, 5)}

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        if (self.x, self.n) != (0.7, 3):
            raise RuntimeError(f"x={self.x} n={self.n}")


#: The decisions Peak may answer at random (trading left to the planner).
PLANTING = ("plant", "make_room", "plant_second", "plant_next")


def _peaked(name):
    def decide(self, view, *args):
        if self.rng.random() < 2 * abs(self.x - 0.7):  # a random answer: the further, the more
            return getattr(self._random, name)(view, *args)
        return getattr(PlannerBot, name)(self, view, *args)

    return decide


class Peak(PlannerBot):
    """Plants like the planner with probability 1 - 2|x - 0.7| (at least 0),
    else at random: strongest at x = 0.7."""

    x = 0.2
    tunable: ClassVar[Mapping[str, Param]] = {"x": Param(0.0, 1.0)}

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        self._random = RandomBot()
        self._random.start(seat, rules, rng)

    locals().update({name: _peaked(name) for name in PLANTING})
