"""The abacus: the bean counter's search with five times the rollouts,
bought with the fast playout.

Everything is the bean counter's (:mod:`.searcher`: the candidates, the
deals, common random numbers, the score, the trader's heuristics where it
does not search) but the budget and the rollouts: :attr:`AbacusBot.playouts`
is 200 rollouts a decision at a 4-player table (the bean counter's 40), and
each rollout is a fast playout that says which decisions its policy answers
(``decides``: no seat makes an offer in a rollout, so its trading rounds are
never opened). The budget is a number of rollouts, not a time, and every
deal and rollout draws from the bot's own random stream: a seed plays the
same match on any machine. About 90 ms of CPU a decision at the median
(the bean counter: 20 ms), 115 ms at the 90th percentile, on the shared
2-core VM it was measured on (``benchmarks/abacus_time.py``).
"""

from __future__ import annotations

import random
from typing import Any

from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.bohnanza.state import State

from .searcher import BeanCounterBot, _Horizon, rollout_policy, score

#: What :func:`.searcher.rollout_policy` answers: everything but offers (it
#: makes none, the default answer), so a rollout's trading rounds are left out.
ROLLOUT_DECIDES = frozenset(DECISION_METHODS) - {"propose", "offer"}


class AbacusBot(BeanCounterBot):
    name = "abacus"

    playouts = 200
    min_deals = 4

    def _rollout(self, state: State, seed: int, horizon: int, seat: int) -> float:
        rng = random.Random(seed)
        t = state.table
        end = t.turn + horizon if horizon else float("inf")

        def policy(
            state: State, s: int, kind: str, args: tuple[Any, ...], rng: random.Random
        ) -> Any:
            if t.turn > end:
                raise _Horizon
            return rollout_policy(state, s, kind, args, rng)

        try:
            state.playout(rng, policy, ROLLOUT_DECIDES)
        except _Horizon:
            pass
        return score(t, seat)
