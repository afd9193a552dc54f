"""The dice game's searchable state: the referee, replay and a search all
play the same :class:`State`; copies and samples of it never change the
match, and never tell a seat what it could not see."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnarena.core.errors import IllegalAnswer
from bohnarena.referee.limits import Limits
from bohnarena.referee.replaylog import apply_log
from bohnarena.referee.seats import BotSeat
from bohnarena.wuerfel.bot import FULFIL, REDEEM, Bot, DiceView, Keep
from bohnarena.wuerfel.game import GAME
from bohnarena.wuerfel.match import DECISIONS, Match
from bohnarena.wuerfel.rules import ruleset
from bohnarena.wuerfel.state import State, random_answer
from bohnarena.wuerfel.table import Table
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, {}),
    (3, {"early_stop": False}),
    (4, {}),
    (5, {"target": 16}),  # runs the draw pile dry: overview cards
]
#: Everything a seat's view says, but the records (a sample starts its own).
SEEN = [
    "seat",
    "players",
    "active",
    "turn",
    "coins",
    "bean_field",
    "dice_left",
    "hand",
    "cards",
    "covered",
    "cover_cards",
    "draw_pile",
]


class Flaky(RandomDiceBot):
    """Illegal answers and exceptions now and then: faults, and forfeits
    where its seat has limits."""

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        if self.rng.random() < 0.1:
            return Keep((99,))
        if self.rng.random() < 0.05:
            raise RuntimeError("flaky")
        return super().keep(view, roll)

    def harvest(self, view: DiceView, dice: tuple[int, ...]) -> str | None:
        return REDEEM if self.rng.random() < 0.1 else super().harvest(view, dice)


BOTS = [GreedyDiceBot, RandomDiceBot, Bot, Flaky]


def lineup(seed: int, players: int) -> list[Any]:
    """Bots by seed; a Flaky bot every other seed forfeits after 3 faults."""
    rng = random.Random(seed)
    out: list[Any] = []
    for _ in range(players):
        bot = rng.choice(BOTS)()
        if isinstance(bot, Flaky) and seed % 2:
            limits = Limits(decision_seconds=60, match_seconds=1e6, max_faults=3)
            out.append(BotSeat(bot, DECISIONS, limits=limits))
        else:
            out.append(bot)
    return out


def seen(view: DiceView) -> dict[str, Any]:
    orders = [view.open_orders(s) for s in range(view.players)]
    return {name: getattr(view, name) for name in SEEN} | {"orders": orders}


def census(t: Table) -> list[int]:
    """Every harvest card, wherever it lies."""
    placed = [c for c in (*t.active_card, *t.cover_card) if c >= 0]
    return sorted(t.deck + placed + [c for coins in t.coin_cards for c in coins])


def stopped_states(rules: Any, seed: int, every: int = 7, most: int = 200) -> list[State]:
    """Copies of a match's state at every ``every``-th decision, random answers."""
    rng = random.Random(seed)
    state = State(rules, seed)
    state.start()
    out = []
    while state.pending is not None:
        if len(out) < most and rng.randrange(every) == 0:
            out.append(state.clone())
        state.apply(random_answer(state, rng))
    return out


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_stopping_at_every_decision_plays_the_same_match_as_answering_inline(
    players: int, options: dict[str, Any]
) -> None:
    rules = ruleset("standard", players, **options)
    for seed in range(5):
        inline = Match(rules, seed, lineup(seed, players))
        stopping = Match(rules, seed, lineup(seed, players), inline=False)
        assert inline.play() == stopping.play()
        assert inline.records == stopping.records


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_replay_applies_the_logged_answers_and_gets_every_record(
    players: int, options: dict[str, Any]
) -> None:
    rules = ruleset("standard", players, **options)
    kinds: set[str] = set()
    for seed in range(5):
        match = Match(rules, seed, lineup(seed, players))
        result = match.play()
        table, replayed = apply_log(State(rules, seed), match.records, DECISIONS)
        assert replayed == result
        assert table.records == match.records
        assert GAME.verify(rules, seed, match.records) == (result, None)
        kinds |= {r[0] for r in match.records}
    assert "fault" in kinds


def test_replay_gives_the_result_as_played_when_a_bot_faults_at_its_end() -> None:
    class Ends(GreedyDiceBot):
        def end(self, result: Any) -> None:
            raise RuntimeError("bye")

    rules = ruleset("standard", 2)
    match = Match(rules, 1, [Ends(), GreedyDiceBot()])
    result = match.play()
    assert match.records[-1][:3] == ("fault", 0, "end") and result.faults == (0, 0)
    assert GAME.verify(rules, 1, match.records) == (result, None)


def test_replay_names_an_illegal_logged_answer() -> None:
    rules = ruleset("standard", 3)
    match = Match(rules, 3, [RandomDiceBot() for _ in range(3)])
    match.play()
    log = list(match.records)
    i = next(i for i, r in enumerate(log) if r[0] == "keep")
    log[i] = ("keep", log[i][1], (99,), 0)
    _, problem = GAME.verify(rules, 3, log)
    assert problem is not None and problem.startswith(f"move {i}:") and "illegal" in problem


def test_replay_says_in_words_what_differs() -> None:
    rules = ruleset("standard", 3)
    match = Match(rules, 3, [GreedyDiceBot() for _ in range(3)])
    match.play()
    log = list(match.records)
    i = next(i for i, r in enumerate(log) if r[0] == "redeemed")
    _, seat, card, coins = log[i]
    log[i] = ("redeemed", seat, card, coins + 1)
    _, problem = GAME.verify(rules, 3, log)
    assert problem == (
        f'move {i}: the log has "seat {seat} redeems card {card} for {coins + 1} coin(s)", '
        f'the rules give "seat {seat} redeems card {card} for {coins} coin(s)" '
        f"(coins {coins + 1} in the log, {coins} by the rules)"
    )
    _, problem = GAME.verify(rules, 3, log[:i])
    assert problem is not None
    assert problem.startswith(f"move {i}: the log has nothing (the log ends), the rules give")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32))
@pytest.mark.slow
def test_clones_and_samples_never_change_the_match_or_what_a_seat_sees(
    config: tuple[int, dict[str, Any]], seed: int
) -> None:
    players, options = config
    rules = ruleset("standard", players, **options)
    rng = random.Random(seed)
    for state in stopped_states(rules, seed, every=41, most=8):
        assert state.pending is not None
        seat = state.pending[0]
        before = [seen(state.view(s)) for s in range(players)]
        t = state.table
        hidden = (list(t.deck), [list(c) for c in t.coin_cards], t.rng.getstate())
        records = list(state.records)
        # a sample agrees with everything the seat sees ...
        sample = state.determinize(seat, rng)
        for s in range(players):
            assert seen(sample.view(s)) == before[s]  # (everything on the table is public)
        assert sample.pending == state.pending
        assert census(sample.table) == list(range(len(rules.deck)))
        # ... and playing a clone or a sample to the end changes nothing here
        sample.playout(rng)
        state.clone().playout(rng)
        assert sample.is_terminal()
        assert [seen(state.view(s)) for s in range(players)] == before
        assert state.records == records
        assert (t.deck, t.coin_cards, t.rng.getstate()) == hidden


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32))
@pytest.mark.slow
def test_a_sample_plays_to_a_legal_end(config: tuple[int, dict[str, Any]], seed: int) -> None:
    players, options = config
    rules = ruleset("standard", players, **options)
    rng = random.Random(seed)
    for state in stopped_states(rules, seed, every=97, most=2):
        sample = state.determinize(state.pending[0], rng)  # type: ignore[index]
        while sample.pending is not None:
            legal = sample.legal_answers()
            assert legal, sample.pending
            sample.apply(legal[rng.randrange(len(legal))])  # each one is legal
        assert census(sample.table) == list(range(len(rules.deck)))
        result = sample.result
        assert result is not None and sorted(result.ranks)[0] == 1
        assert result.coins == sample.returns()


def test_a_sample_does_not_depend_on_where_the_hidden_cards_really_are() -> None:
    rules = ruleset("standard", 5, target=16)
    states = stopped_states(rules, 5, every=3)
    hidden_coins = 0
    for state in states[:: max(1, len(states) // 12)]:
        seat = state.pending[0]  # type: ignore[index]
        moved = state.clone()
        t = moved.table
        spots = [(s, i) for s, coins in enumerate(t.coin_cards) for i, c in enumerate(coins)]
        spots = [(s, i) for s, i in spots if t.coin_cards[s][i] not in t.shown_coins]
        hidden = t.deck + [t.coin_cards[s][i] for s, i in spots]  # the same cards, elsewhere
        random.Random(1).shuffle(hidden)
        for s, i in spots:
            t.coin_cards[s][i] = hidden.pop()
        t.deck = hidden
        t.rng = random.Random(7)  # and other dice to come
        hidden_coins += len(spots)
        a = state.determinize(seat, random.Random(9)).table
        b = moved.determinize(seat, random.Random(9)).table
        assert (a.deck, a.coin_cards, a.rng.getstate()) == (b.deck, b.coin_cards, b.rng.getstate())
    assert hidden_coins  # coin cards drawn face down were dealt afresh too


def test_a_sample_rolls_other_dice_and_keeps_no_record() -> None:
    rules = ruleset("standard", 3)
    state = stopped_states(rules, 2, every=5)[3]
    seat = state.pending[0]  # type: ignore[index]
    samples = [state.determinize(seat, random.Random(k)) for k in range(4)]
    assert all(s.records == [] for s in samples)
    rolls = set()
    for sample in samples:
        sample.playout(random.Random(0), checked=True)  # (the fast playout keeps no records)
        rolls.add(tuple(r for r in sample.records if r[0] == "rolled"))
    assert len(rolls) > 1  # the same answers, other dice


def test_legal_answers_are_exactly_the_legal_ones() -> None:
    tried = {"keep": 0, "harvest": 0, FULFIL: 0, REDEEM: 0}
    for players, options in CONFIGS:
        rules = ruleset("standard", players, **options)
        for state in stopped_states(rules, players, every=4, most=60):
            _, kind, args = state.pending  # type: ignore[misc]
            legal = state.legal_answers()
            tried[kind] += 1
            if kind == "keep":
                n = len(args[0])
                assert len(legal) == (2**n - 1) * (2 if rules.early_stop else 1)
                candidates = [*legal, Keep(()), Keep((n,)), Keep((0, 0)), Keep((0,), True)]
            else:
                candidates = [None, FULFIL, REDEEM, "junk", 0]
                tried[FULFIL] += FULFIL in legal
                tried[REDEEM] += REDEEM in legal
            for answer in candidates:
                try:
                    state.check(answer)
                except IllegalAnswer:
                    assert answer not in legal
                else:
                    assert answer in legal
    assert all(tried.values()), tried


def test_apply_refuses_an_illegal_answer_and_leaves_the_state_as_it_was() -> None:
    state = State(ruleset("standard", 3), 1)
    state.start()
    pending, records = state.pending, list(state.records)
    with pytest.raises(IllegalAnswer):
        state.apply(Keep(()))
    assert state.pending == pending and state.records == records


@pytest.mark.slow
def test_hundreds_of_random_playouts_end_legally() -> None:
    for i in range(400):
        players, options = CONFIGS[i % len(CONFIGS)]
        rules = ruleset("standard", players, **options)
        state = State(rules, i)
        state.start()
        coins = state.playout(random.Random(i))
        assert state.is_terminal() and census(state.table) == list(range(len(rules.deck)))
        assert coins == state.result.coins  # type: ignore[union-attr]
