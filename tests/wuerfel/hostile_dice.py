"""Dice bots that misbehave in every decision they answer."""

import time

from bohnarena.wuerfel.bot import Bot, Keep


class Raises(Bot):
    def harvest(self, view, dice):
        raise RuntimeError("always")


class Sleeps(Bot):
    """Sleeps past the decision limit (the league test's 0.5 s)."""

    def keep(self, view, roll):
        time.sleep(3)
        return Keep((0,))


class Junk(Bot):
    """A die that is not rolled, and an answer that is not an answer."""

    def keep(self, view, roll):
        return Keep((99,))

    def harvest(self, view, dice):
        return object()
