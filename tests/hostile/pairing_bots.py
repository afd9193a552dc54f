"""Bots for the paired-ask tests: they answer the window and the decision
after it in every way a pair can go."""

from bohnarena.bohnanza import Accept, Anytime
from bohnarena_bots.random_bot import RandomBot


class Unruly(RandomBot):
    """Passes most windows, answers others illegally, raises in some of the
    decisions that follow a window and answers others illegally. (Illegal,
    not malformed: a malformed answer's fault text differs in and out of
    process.)"""

    def anytime(self, view):
        roll = self.rng.random()
        if roll < 0.1:
            return Anytime(harvest=(99,))  # illegal: a fault, and the window passes
        if roll < 0.2:
            return Anytime(buy_field=True)  # no third field in the classic game: a fault
        return super().anytime(view)

    def offer(self, view):
        if self.rng.random() < 0.2:
            raise RuntimeError("offer went wrong")
        return super().offer(view)

    def respond(self, view, proposal):
        if self.rng.random() < 0.2:
            return Accept(give=(99,))  # no such card: a fault
        return super().respond(view, proposal)
