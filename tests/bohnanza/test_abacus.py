"""The abacus (bots/abacus.py): shipped; its score counts growing fields;
successive halving keeps to the budget and to the heuristic's answer (its
matches: test_beancounter.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bohnarena.bohnanza import play_match, ruleset
from bohnarena.bohnanza.state import State
from bohnarena.core.plugins import entry_point
from bohnarena_bots.abacus import AbacusBot, potentials, worth
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.searcher import score
from bohnarena_bots.trader import TraderBot

RULES = ruleset("classic", 4)
BLUE = next(i for i, v in enumerate(RULES.varieties) if v.key == "blue")


def test_it_is_shipped():
    ep = entry_point("abacus")
    assert ep is not None and ep.load() is AbacusBot


def test_a_growing_field_is_worth_more_than_what_it_pays_now():
    pay = RULES.varieties[BLUE].payout  # 1 coin at 4 cards, 2 at 6
    pots = potentials([pay], 0.5)[0]
    assert pots[0] == 0.5**4  # an empty field... never counted: see worth()
    assert pots[3] == 0.5  # three cards: half of the coin a fourth pays
    assert pots[4] == 1 + 0.5**2  # one coin, and a quarter of the next
    assert 0 < pots[1] < pots[2] < pots[3] < pots[4] < pots[5] < pots[6]
    assert potentials([pay], 0.0)[0] == [float(c) for c in pay]


def test_with_no_growth_it_scores_as_the_bean_counter():
    state = State(RULES, seed=3)
    state.start()
    flat = potentials(state.table.payouts, 0.0)
    grown = potentials(state.table.payouts, 0.6)
    rng = random.Random(1)
    for _ in range(20):  # along a random match
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_answers() or [None]))
        t = state.table
        assert worth(t, 1, flat) == score(t, 1)
        if any(n for s in range(4) for _, n in t.fields[s]):
            assert worth(t, 1, grown) != score(t, 1)


class Counted(AbacusBot):
    """A small budget; every decision's rollouts and candidates counted."""

    playouts = 24
    min_deals = 1
    horizon_rounds = 1

    def start(self, *args: Any) -> None:
        super().start(*args)
        self.spent: list[tuple[int, int]] = []  # (candidates, rollouts)
        self.rollouts = 0

    def _best(self, view: Any, root: State, candidates: list[Any]) -> Any:
        self.rollouts = 0
        answer = super()._best(view, root, candidates)
        self.spent.append((len(candidates), self.rollouts))
        return answer

    def _rollout(self, *args: Any) -> float:
        self.rollouts += 1
        return super()._rollout(*args)


@pytest.mark.slow
def test_halving_keeps_to_the_budget():
    me = Counted()
    bots = [me, TraderBot(), PlannerBot(), TraderBot()]
    result, _ = play_match(RULES, 7, bots)
    assert not any(result.faults)
    many = [(n, k) for n, k in me.spent if n > 2]
    assert many  # decisions with something to halve
    for n, k in me.spent:
        assert k <= max(me.playouts, n * me.min_deals) + n  # rounding at most a deal
