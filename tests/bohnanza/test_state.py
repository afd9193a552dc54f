"""The searchable state (issue 16 part 1): the referee, replay and a
search all play the same :class:`State`; copies and samples of it never
change the match, and never tell a seat what it could not see."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnarena.bohnanza import Bot, Match, ruleset
from bohnarena.bohnanza.decisions import DECISIONS
from bohnarena.bohnanza.replay import verify
from bohnarena.bohnanza.state import State, random_answer
from bohnarena.bohnanza.view import SeatView
from bohnarena.core.errors import IllegalAnswer
from bohnarena.referee.replaylog import apply_log
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.trader import TraderBot

from .test_seat_isolation import PUBLIC

CONFIGS = [
    ("classic", 4, {}),
    ("classic", 3, {}),
    ("anniversary", 5, {"extra_bean": "jumping"}),
    ("anniversary", 3, {"extra_bean": "garden"}),
    ("riogrande", 5, {}),
    ("riogrande", 3, {}),
]
BOTS = [RandomBot, PlannerBot, TraderBot, Bot]
#: Everything a seat's view says of the table (a sample keeps no records and
#: no referee; the rest are methods or the rules).
SEEN = sorted(
    PUBLIC
    - {"history", "time_left", "match_id", "rules", "beanometer", "determinize"}
    - {"fields_for", "harvestable", "coins_for", "can_buy_field"}
)


def seen(view: SeatView) -> dict[str, Any]:
    return {name: getattr(view, name) for name in SEEN} | {"harvestable": view.harvestable()}


def lineup(rng: random.Random, players: int) -> list[Bot]:
    return [rng.choice(BOTS)() for _ in range(players)]


def stopped_states(rules: Any, seed: int, every: int = 7) -> list[State]:
    """Copies of a match's state at every ``every``-th decision, random answers."""
    rng = random.Random(seed)
    state = State(rules, seed)
    state.start()
    out = []
    while state.pending is not None:
        if len(out) < 200 and rng.randrange(every) == 0:
            out.append(state.clone())
        state.apply(random_answer(state, rng))
    return out


@pytest.mark.parametrize(("edition", "players", "options"), CONFIGS)
@pytest.mark.slow
def test_stopping_at_every_decision_plays_the_same_match_as_answering_inline(
    edition: str, players: int, options: dict[str, Any]
) -> None:
    rules = ruleset(edition, players, **options)
    for seed in range(6):
        bots = [random.Random(seed * 7 + i).choice(BOTS) for i in range(players)]
        inline = Match(rules, seed, [b() for b in bots])
        stopping = Match(rules, seed, [b() for b in bots], inline=False)
        assert inline.play() == stopping.play()
        assert inline.records == stopping.records


@pytest.mark.parametrize(("edition", "players", "options"), CONFIGS)
@pytest.mark.slow
def test_replay_applies_the_logged_answers_and_gets_every_record(
    edition: str, players: int, options: dict[str, Any]
) -> None:
    rules = ruleset(edition, players, **options)
    for seed in range(6):
        match = Match(rules, seed, lineup(random.Random(seed), players))
        result = match.play()
        table, replayed = apply_log(State(rules, seed), match.records, DECISIONS)
        assert replayed == result
        assert table.records == match.records
        assert verify(rules, seed, match.records) == (result, None)


def test_replay_names_an_illegal_logged_answer() -> None:
    rules = ruleset("classic", 4)
    match = Match(rules, 3, [RandomBot() for _ in range(4)])
    match.play()
    log = list(match.records)
    i = next(i for i, r in enumerate(log) if r[0] == "plant_next" and r[-1] == "bot")
    log[i] = (*log[i][:2], 99, "bot")
    _, problem = verify(rules, 3, log)
    assert problem is not None and problem.startswith(f"move {i}:") and "illegal" in problem


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32))
@pytest.mark.slow
def test_clones_and_samples_never_change_the_match_or_what_a_seat_sees(
    config: tuple[str, int, dict[str, Any]], seed: int
) -> None:
    edition, players, options = config
    rules = ruleset(edition, players, **options)
    rng = random.Random(seed)
    for state in stopped_states(rules, seed, every=11)[:12]:
        assert state.pending is not None
        seat = state.pending[0]
        before = [seen(state.view(s)) for s in range(players)]
        records = list(state.records)
        # a sample agrees with everything the seat sees ...
        sample = state.determinize(seat, rng)
        assert seen(sample.view(seat)) == before[seat]
        assert sample.pending == state.pending
        assert sample.table.census() == list(rules.deck)
        # ... and playing a clone or a sample to the end changes nothing here
        sample.playout(rng)
        state.clone().playout(rng)
        assert sample.is_terminal()
        assert [seen(state.view(s)) for s in range(players)] == before
        assert state.records == records


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32))
@pytest.mark.slow
def test_a_sample_plays_to_a_legal_end(config: tuple[str, int, dict[str, Any]], seed: int) -> None:
    edition, players, options = config
    rules = ruleset(edition, players, **options)
    rng = random.Random(seed)
    for state in stopped_states(rules, seed, every=23)[:2]:
        sample = state.determinize(state.pending[0], rng)  # type: ignore[index]
        while sample.pending is not None:
            options_ = sample.legal_answers()
            assert options_, sample.pending
            sample.apply(options_[rng.randrange(len(options_))])  # each one is legal
            assert sample.table.census() == list(rules.deck)
        result = sample.result
        assert result is not None and sum(result.coins) <= sum(rules.deck)
        assert sorted(result.ranks)[0] == 1


def test_a_sample_does_not_depend_on_where_the_hidden_cards_really_are() -> None:
    rules = ruleset("classic", 4)
    for state in stopped_states(rules, 5, every=13)[:10]:
        seat = state.pending[0]  # type: ignore[index]
        other = (seat + 1) % 4
        moved = state.clone()
        t = moved.table
        hidden = t.hands[other] + t.deck  # the same cards, elsewhere
        random.Random(1).shuffle(hidden)
        t.hands[other], t.deck = hidden[: len(t.hands[other])], hidden[len(t.hands[other]) :]
        a = state.determinize(seat, random.Random(9)).table
        b = moved.determinize(seat, random.Random(9)).table
        assert (a.hands, a.deck, a.rng.getstate()) == (b.hands, b.deck, b.rng.getstate())
        assert a.hands[seat] == state.table.hands[seat]


def test_a_sample_keeps_no_record_and_no_referee() -> None:
    rules = ruleset("classic", 4)
    match = Match(rules, 2, [RandomBot() for _ in range(4)])
    match.seat_all()
    match.state.start()
    assert match.state.pending is not None
    seat = match.state.pending[0]
    sample = match.state.view(seat).determinize(random.Random(0))
    assert sample.records == [] and sample.table.referee is None
    assert sample.view(seat).time_left is None


def test_legal_answers_are_exactly_the_legal_ones_where_they_can_be_listed() -> None:
    rules = ruleset("anniversary", 4, extra_bean="jumping")
    tried: Counter[str] = Counter()
    states = [s for seed in range(4) for s in stopped_states(rules, seed, every=3)]
    for state in states:
        kind = state.pending[1]  # type: ignore[index]
        legal = state.legal_answers()
        for answer in legal:
            state.check(answer)
        if kind in ("plant", "make_room", "plant_next"):
            for x in range(-2, 5):
                ok = x in legal
                try:
                    state.check(x)
                except IllegalAnswer:
                    assert not ok
                else:
                    assert ok
            for x in (True, False, 1.0, "0", None):  # an int only, whatever it equals
                with pytest.raises(IllegalAnswer):
                    state.check(x)
            tried[kind] += 1
        if kind == "plant_second":
            assert legal == [False, True]
    assert tried["plant_next"] and tried["plant"] and tried["make_room"]


def test_offers_are_legal_for_the_seat_that_makes_them() -> None:
    rules = ruleset("classic", 4)
    for state in stopped_states(rules, 4, every=2):
        if state.pending[1] in ("propose", "offer"):  # type: ignore[index]
            offers = state.offers()
            assert offers
            for offer in offers:
                state.check(offer)


def test_apply_refuses_an_illegal_answer_and_leaves_the_state_as_it_was() -> None:
    state = State(ruleset("classic", 4), 1)
    state.start()
    pending, records = state.pending, list(state.records)
    with pytest.raises(IllegalAnswer):
        state.apply("a field, please")
    assert state.pending == pending and state.records == records


@pytest.mark.slow
def test_thousands_of_random_playouts_end_legally() -> None:
    for i in range(1500):
        edition, players, options = CONFIGS[i % len(CONFIGS)]
        rules = ruleset(edition, players, **options)
        state = State(rules, i)
        state.start()
        rng = random.Random(i)
        coins = state.playout(rng)
        assert state.is_terminal() and state.table.census() == list(rules.deck)
        assert coins == state.result.coins  # type: ignore[union-attr]


class Sampler(PlannerBot):
    """A planner that samples the match at every decision it is asked."""

    def __init__(self) -> None:
        self.samples: list[tuple[Any, ...]] = []

    def _sample(self, view: SeatView, kind: str, *args: Any) -> None:
        sample = view.determinize(self.rng)
        self.samples.append(
            (sample.pending == (self.seat, kind, args), sample.clone().playout(self.rng))
        )

    def plant_second(self, view: SeatView) -> bool:
        self._sample(view, "plant_second")
        return super().plant_second(view)

    def plant_next(self, view: SeatView) -> int:
        self._sample(view, "plant_next")
        return super().plant_next(view)


@pytest.mark.parametrize("inline", [True, False])
def test_a_bot_samples_the_match_it_is_asked_in_without_changing_it(inline: bool) -> None:
    rules = ruleset("classic", 4)
    sampler = Sampler()
    sampling = Match(rules, 6, [sampler, PlannerBot(), RandomBot(), TraderBot()], inline=inline)
    plain = Match(rules, 6, [PlannerBot(), PlannerBot(), RandomBot(), TraderBot()])
    assert sampling.play() == plain.play()
    assert sampling.records == plain.records
    assert sampler.samples and all(same for same, _ in sampler.samples)
