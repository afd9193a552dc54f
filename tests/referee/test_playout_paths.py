"""The fast playout (:meth:`GameState.playout`: no records, no checks, no
stops) plays the same rules as the referee's way (every answer checked and
recorded, the state stopping at each decision): under the same policy and
seed both reach the same end, in every edition and player count of both
games, from the first decision, from mid-game, and from a seat's sample."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnarena.bohnanza.answers import LEGAL
from bohnarena.bohnanza.policies import RANDOM_DECIDES, random_policy
from bohnarena.core.game import capabilities, get_game

CONFIGS = [
    (name, edition, players)
    for name in ("bohnanza", "wuerfel")
    for edition in get_game(name).editions()
    for players in get_game(name).player_counts(edition)
]


#: A match of any edition and seed, from any turn, copied or sampled.
CASES = {
    "config": st.sampled_from(CONFIGS),
    "seed": st.integers(0, 2**32),
    "turns": st.integers(0, 40),
    "sample": st.booleans(),
}


def root(name: str, edition: str, players: int, seed: int, turns: int) -> Any:
    """A match of ``seed`` at its first decision of turn ``turns`` (reached
    the referee's way, with random answers)."""
    game = get_game(name)
    new_state = capabilities(game).new_state
    assert new_state is not None
    state = new_state(game.rules(edition, players, {}), seed)
    state.start()
    rng = random.Random(seed)
    while state.pending is not None and state.table.turn < turns:
        state.apply(state.random_policy(state, *state.pending, rng))
    return state


def busy_policy(state: Any, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random) -> Any:
    """A card-game policy that opens windows, makes offers and takes them:
    every decision asked, any legal answer."""
    if kind == "anytime" and rng.random() < 0.8:
        return None
    options = LEGAL[kind](state, seat, *args)
    return options[int(rng.random() * len(options))]


def refereed(state: Any, rng: random.Random, policy: Any) -> Any:
    """Play ``state`` out the referee's way: stopped at every decision, the
    answer checked (``apply``) and recorded."""
    while state.pending is not None:
        state.apply(policy(state, *state.pending, rng))
    return state.result


def both_ways(state: Any, seed: int, policy: Any = None, sample: bool = False) -> None:
    if state.pending is None:
        return
    if sample:
        rng = random.Random(seed)
        slow = state.determinize(state.pending[0], rng)
        slow_result = refereed(slow, rng, policy or slow.random_policy)
        rng = random.Random(seed)
        fast = state.determinize(state.pending[0], rng)
        before = list(fast.records)
        fast.playout(rng, policy)
    else:
        slow = state.clone()
        slow_result = refereed(slow, random.Random(seed), policy or slow.random_policy)
        fast = state.clone()
        before = list(fast.records)
        fast.playout(random.Random(seed), policy)
    assert fast.result == slow_result
    assert fast.table.coins == slow.table.coins
    # the referee's way keeps records, the fast one none
    assert len(slow.records) > len(before)
    assert fast.records == before


def check(config: tuple[str, str, int], seed: int, turns: int, sample: bool) -> None:
    name, edition, players = config
    state = root(name, edition, players, seed, turns)
    both_ways(state, seed + 1, sample=sample)
    if name == "bohnanza":
        both_ways(state, seed + 2, busy_policy, sample=sample)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_fast_and_refereed_playouts_end_alike(config: tuple[str, str, int]) -> None:
    check(config, 0, turns=0, sample=False)  # from the first decision, a copy
    check(config, 1, turns=12, sample=True)  # from mid-game, a seat's sample


@given(**CASES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_and_refereed_playouts_end_alike_any_seed(
    config: tuple[str, str, int], seed: int, turns: int, sample: bool
) -> None:
    check(config, seed, turns, sample)


@pytest.mark.slow
@given(**CASES)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_and_refereed_playouts_end_alike_thousands(
    config: tuple[str, str, int], seed: int, turns: int, sample: bool
) -> None:
    check(config, seed, turns, sample)


@pytest.mark.parametrize("edition", ["classic", "riogrande"])
def test_a_policy_is_given_the_answers_the_rules_listed(edition: str) -> None:
    """A plant or make_room decision comes with the fields the rules listed
    on the way to it (``state.options``, for the very ``args`` tuple
    ``options_for``), the fast way and the referee's; nowhere else, and not
    in a copy or a stopped state."""
    asked: Counter[str] = Counter()

    def policy(state: Any, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random) -> Any:
        if state.options_for is args:
            assert kind in ("plant", "make_room")
            assert state.options == LEGAL[kind](state, seat, *args)
            assert state.clone().options is None
            asked[kind] += 1
        else:
            assert state.options is None
        return random_policy(state, seat, kind, args, rng)

    for seed in range(3):
        state = root("bohnanza", edition, 4, seed, 0)
        state.clone().playout(random.Random(seed), policy, RANDOM_DECIDES)
        state.clone().playout(random.Random(seed), policy, checked=True)
        while state.pending is not None:  # stopped at a decision: none listed
            assert state.options is None and state.options_for is None
            state.apply(policy(state, *state.pending, random.Random(seed)))
    assert asked["make_room"] > 100 and asked["plant"] > 3
