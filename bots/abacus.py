"""The abacus: the bean counter's search, bought with the fast playout, with
a score that counts the fields still growing and a budget spent by
successive halving.

What it keeps of the bean counter (:mod:`.searcher`): the candidates, the
deals, common random numbers, the rollout policy and horizon, the trader's
heuristics where it does not search. What it changes:

* **Rollouts**: fast playouts whose policy says which decisions it answers
  (``decides``: no seat makes an offer in a rollout, so its trading rounds
  are never opened).
* **Score** (:func:`worth`): a field counts what it pays now plus, for the
  next step of its beanometer, the coins that step adds times
  :attr:`AbacusBot.growth` to the power of the cards it lacks. The bean
  counter counts only what a field pays now, so at its horizon a field of
  three blue beans is worth nothing, as much as an empty one, and the search
  leans to harvests that cash little now over fields that would pay later.
* **Budget**: :attr:`AbacusBot.playouts` rollouts a decision at a 4-player
  table, spent in rounds of successive halving: every candidate still in
  plays the round's deals, and the worse half (never the heuristic's own
  answer) drops out, so the rollouts go to the answers that are close.

The budget is a number of rollouts, not a time, and every deal and rollout
draws from the bot's own random stream: a seed plays the same match on any
machine. Its CPU time a decision: ``benchmarks/abacus_time.py`` (figures in
docs/search.md).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from bohnarena.bohnanza import RuleSet, SeatView
from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.table import Table
from bohnarena.core.params import Param

from .searcher import BeanCounterBot, _Horizon, rollout_policy

#: What :func:`.searcher.rollout_policy` answers: everything but offers (it
#: makes none, the default answer), so a rollout's trading rounds are left out.
ROLLOUT_DECIDES = frozenset(DECISION_METHODS) - {"propose", "offer"}

#: Per variety, what a field of ``n`` cards is worth (index ``n``).
Potentials = list[list[float]]


def potentials(payouts: Sequence[Sequence[int]], growth: float) -> Potentials:
    """What a field of each variety and size is worth to its owner: what it
    pays now, plus the coins its beanometer's next step adds times
    ``growth`` to the power of the cards it lacks (0: only what it pays)."""
    out = []
    for pay in payouts:
        row = []
        for n, now in enumerate(pay):
            more = 0.0
            for m in range(n + 1, len(pay)):
                if pay[m] > now:
                    more = (pay[m] - now) * growth ** (m - n)
                    break
            row.append(now + more)
        out.append(row)
    return out


def worth(t: Table, seat: int, pots: Potentials) -> float:
    """Coins plus what the fields are worth (:func:`potentials`), less the
    same for the best other seat: a margin, as only the ranking counts."""
    best = -math.inf
    own = 0.0
    for s in range(t.players):
        w = float(len(t.coins[s]))
        for v, n in t.fields[s]:
            if n:
                row = pots[v]
                w += row[n] if n < len(row) else row[-1]
        if s == seat:
            own = w
        elif w > best:
            best = w
    return own - best


class AbacusBot(BeanCounterBot):
    name = "abacus"

    playouts = 200
    min_deals = 4
    # growth and stay are tuned (`bohnarena tune`, docs/tuning.md); bohnarena
    # 0.3's are :class:`AbacusBot03`'s.
    #: What a card still missing from a field's next beanometer step costs
    #: that step's coins: each card it lacks multiplies them by this (0: the
    #: bean counter's score, what the fields pay now).
    growth = 0.82
    #: Coins a sample by which a candidate must beat the heuristic's answer
    #: (its 200 rollouts are less noisy than the bean counter's 40).
    stay = 0.1
    #: Spend the budget in rounds of successive halving (False: an equal
    #: share of it to every candidate, as the bean counter does).
    halving = True
    #: Its parameters (docs/tuning.md): the bean counter's, more rollouts, growth.
    tunable: ClassVar[Mapping[str, Param]] = {
        **BeanCounterBot.tunable,
        "playouts": Param(20, 2000, log=True),
        "growth": Param(0.0, 1.0),
    }

    def start(self, seat: int, rules: RuleSet, rng: random.Random) -> None:
        super().start(seat, rules, rng)
        payouts = [v.payout for v in rules.varieties]
        self._pots = potentials(payouts, self.growth)
        self._last_pots = potentials(payouts, self.growth**2)  # less time to grow

    def _best(self, view: SeatView, root: State, candidates: list[Any]) -> Any:
        if not self.halving:
            return super()._best(view, root, candidates)
        rng = self.rng
        n = len(candidates)
        budget = max(self.playouts * 4 // view.players, self.min_deals * n)
        rounds = max(1, math.ceil(math.log2(n)))
        horizon = self.horizon_rounds * view.players
        totals = [0.0] * n
        alive = list(range(n))
        done = 0
        limit = self._limit(view)
        began = time.perf_counter()
        for r in range(rounds):
            deals = max(1, budget // rounds // len(alive))
            if r == 0:
                deals = max(deals, self.min_deals)
            for _ in range(deals):
                state = root if done == 0 else view.determinize(rng)
                self._deal(state, candidates, alive, totals, horizon)
                done += 1
                if self._overruns(began, done, limit):
                    break
            else:
                if r + 1 < rounds:
                    alive = self._halve(alive, totals)
                continue
            break
        best = max(alive, key=lambda i: (totals[i], -i))
        if totals[best] - totals[0] <= self.stay * done:
            best = 0  # not clearly better than the heuristic's answer: keep it
        return candidates[best]

    @staticmethod
    def _halve(alive: list[int], totals: list[float]) -> list[int]:
        """The better half of ``alive`` (at least two), and the heuristic's answer."""
        ranked = sorted(alive, key=lambda i: (-totals[i], i))
        keep = set(ranked[: max(2, (len(alive) + 1) // 2)]) | {0}
        return [i for i in alive if i in keep]

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
        last = t.exhaustions + 1 >= t.rules.exhaustions
        return worth(t, seat, self._last_pots if last else self._pots)


class AbacusBot03(AbacusBot):
    """The abacus with bohnarena 0.3's defaults, before they were tuned:
    registered as ``abacus-0.3``, so a league that played ``abacus`` then
    plays the same matches again under that name."""

    name = "abacus-0.3"
    growth = 0.6
    stay = 0.5
