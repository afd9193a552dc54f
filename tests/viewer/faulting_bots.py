"""A bot that faults in some matches only, for `matches --faults`."""

from bohnarena.bohnanza import Bot


class RaiseInSeatOne(Bot):
    """Raises at its first choice of every turn whenever it sits in seat 1
    (the default answer is played), and plays as ``Bot`` elsewhere."""

    def plant_second(self, view):
        if view.seat == 1:
            raise RuntimeError("seat 1")
        return False
