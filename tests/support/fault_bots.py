"""Bots that fault in ways a summary must tell apart (tests/run/test_fault_reasons.py)."""

from bohnarena.bohnanza import Bot
from bohnarena_bots.planner import PlannerBot


class RaisesOnPlant(PlannerBot):
    """Raises when it plants, with markup and a terminal escape in the message;
    answers a second-card plant illegally."""

    def plant(self, view, card):
        raise ValueError("bad plant \x1b[31m<b>red</b>\nsecond line")

    def plant_second(self, view):
        return "yes please"


class Honest(Bot):
    """The base bot: never faults."""
