"""Property tests: seeded games of every edition and player count, checked
after every record for the invariants the rules promise."""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnarena.bohnanza import Bot, Match, ruleset
from bohnarena.bohnanza.rules import edition_names, player_counts
from bohnarena.bohnanza.table import EMPTY
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.trader import TraderBot

BOTS = [Bot, RandomBot, PlannerBot, TraderBot]
SETTLING = {"exhausted", "reshuffled"}  # recorded while a drawn card is still in flight


def subsequence(short, long):
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


class CheckedRecords(list):
    """A record list that checks the table's invariants on every append."""

    def __init__(self, match: Match):
        super().__init__()
        self.t = match.table
        self.hands = [[] for _ in range(self.t.players)]
        self.coins = [0] * self.t.players
        self.steps = 0

    def append(self, rec):
        super().append(rec)
        if rec[0] not in SETTLING:
            self.check(rec)

    def check(self, rec):
        t, kind = self.t, rec[0]
        self.steps += 1
        # every card is in exactly one place
        assert t.census() == list(t.rules.deck), rec
        # one variety per field, and an empty field is exactly a field without cards
        for fs in t.fields:
            for v, c in fs:
                assert (v == EMPTY) == (c == 0), rec
        if kind == "planted":
            assert t.fields[rec[1]][rec[3]][0] == rec[2]
        # coins change only by the beanometer, the draft's last card or a field purchase
        coins = [len(p) for p in t.coins]
        expected = list(self.coins)
        if kind == "harvested":
            _, s, _, variety, count, paid = rec
            assert paid == t.rules.varieties[variety].coins(count)
            expected[s] += paid
        elif kind == "draft_coin":
            expected[rec[1]] += 1
        elif kind == "bought_field":
            expected[rec[1]] -= rec[2]
        assert coins == expected, rec
        self.coins = coins
        # hand order never changes: cards leave from anywhere, arrive only at the back
        if kind == "dealt":  # the whole deal is done before its records
            assert t.hands[rec[1]] == list(rec[2])
            self.hands = [list(h) for h in t.hands]
        for s, hand in enumerate(t.hands):
            if hand == self.hands[s]:
                continue
            if kind == "drew" and rec[1] == s:
                assert hand == self.hands[s] + [rec[2]], rec
            else:
                assert subsequence(hand, self.hands[s]) and len(hand) <= len(self.hands[s]), rec
            self.hands[s] = list(hand)
        if kind == "turn":
            assert not t.revealed and not any(t.trade)


def checked_game(edition, players, seed, classes, **options):
    rules = ruleset(edition, players, **options)
    m = Match(rules, seed, [c() for c in classes])
    m.table.records = CheckedRecords(m)
    m.table.record = m.table.records.append
    result = m.play()
    assert m.table.records.steps > 50
    assert sum(result.ranks.count(1) for _ in [0]) == len(result.winners)
    assert result.coins == tuple(len(p) for p in m.table.coins)
    return m, result


CONFIGS = [(e, p) for e in edition_names() for p in player_counts(e)]


def _invariants(config, seed, bots, jumping):
    edition, players = config
    options = {"extra_bean": "jumping" if jumping else "garden"} if edition == "anniversary" else {}
    checked_game(edition, players, seed, bots[:players], **options)


_GAMES = given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**63),
    bots=st.lists(st.sampled_from(BOTS), min_size=7, max_size=7),
    jumping=st.booleans(),
)


def _examples(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# The quick set draws 30 games, the full run 150.
test_invariants_hold_at_every_step = _examples(30)(_GAMES(_invariants))
test_invariants_hold_at_every_step_many = pytest.mark.slow(_examples(150)(_GAMES(_invariants)))


def seeded_games(games: int, shard: int = 0, shards: int = 1) -> Counter:
    """``games`` games across every configuration, each checked at every
    step; of them, the seeds ``shard`` of ``shards`` (shards run side by side)."""
    played: Counter = Counter()
    for seed in range(shard, games, shards):
        edition, players = CONFIGS[seed % len(CONFIGS)]
        options = {"extra_bean": "jumping"} if edition == "anniversary" and seed % 2 else {}
        classes = [
            BOTS[(seed + i) % 3 + (seed % 2)] for i in range(players)
        ]  # no random-only tables
        checked_game(edition, players, seed, classes, **options)
        played[edition] += 1
    return played


@pytest.mark.slow
def test_seeded_games_over_every_configuration_keep_the_invariants():
    """The fast set: a few games of every configuration."""
    played = seeded_games(8 * len(CONFIGS))
    assert set(played) == {edition for edition, _ in CONFIGS}


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(4))
def test_thousands_of_seeded_games_keep_the_invariants(shard):
    """2,000 games across every configuration, each checked at every step
    (in four shards of 500, which pytest -n runs side by side)."""
    assert sum(seeded_games(2000, shard, 4).values()) == 500


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**63))
def test_same_seed_and_bots_give_the_same_match(config, seed):
    edition, players = config

    def run():
        m = Match(ruleset(edition, players), seed, [BOTS[i % 4]() for i in range(players)])
        return m.play(), m.records

    assert run() == run()
