"""A dice bot that searches through ``view.determinize`` (tests/wuerfel/test_snapshot.py):
in process, as a process and in the sandbox it must play the same match."""

from __future__ import annotations

from bohnarena.wuerfel.bot import Bot, DiceView, Keep


class SamplingDiceBot(Bot):
    """Keeps the dice whose random playouts on a sample score best (a few of
    the legal choices); the base answer where it cannot sample. (It imports
    only bohnarena: the sandbox runs it from its file.)"""

    wants_state = True

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        try:
            sample = view.determinize(self.rng)
        except NotImplementedError:
            return super().keep(view, roll)
        best, answer = float("-inf"), super().keep(view, roll)
        for candidate in sample.legal_answers()[::5]:
            trial = sample.clone()
            trial.apply(candidate)
            coins = trial.playout(self.rng)
            if coins[self.seat] - max(coins) > best:
                best, answer = coins[self.seat] - max(coins), candidate
        return answer


class BlindDiceBot(SamplingDiceBot):
    """The same bot not asking for the state."""

    wants_state = False
