"""The fast free-for-all rater gives the library's floats, bit for bit."""

from __future__ import annotations

import random

import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnarena.rating.freeforall import FreeForAll

ENV = trueskill.TrueSkill()
FAST = FreeForAll(ENV)


def library(ratings, ranks):
    return [team[0] for team in ENV.rate([(r,) for r in ratings], ranks=ranks)]


def bits(ratings):
    return [(r.pi.hex(), r.tau.hex()) for r in ratings]


tables = st.integers(2, 7).flatmap(
    lambda n: st.tuples(
        st.lists(st.tuples(st.floats(-20, 70), st.floats(0.3, 9.0)), min_size=n, max_size=n),
        st.lists(st.integers(0, n - 1), min_size=n, max_size=n),
    )
)


def same_bits_as_the_library(table):
    given_ratings, ranks = table
    ratings = [trueskill.Rating(mu, sigma) for mu, sigma in given_ratings]
    try:
        want = library(ratings, ranks)
    except FloatingPointError:
        with pytest.raises(FloatingPointError):
            FAST.rate(ratings, ranks)
        return
    assert bits(FAST.rate(ratings, ranks)) == bits(want)


@settings(max_examples=100, deadline=None)
@given(tables)
def test_one_table_is_the_librarys_to_the_bit(table):
    same_bits_as_the_library(table)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(tables)
def test_one_table_is_the_librarys_to_the_bit_thousands(table):
    same_bits_as_the_library(table)


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_league_rated_match_by_match_stays_the_librarys(seats):
    """Ratings that drift over 3,000 matches, many of them draws, with a bot
    sometimes in two seats of one table: no float parts company."""
    rng = random.Random(seats)
    bots = [f"b{i}" for i in range(6)]
    slow = {b: ENV.create_rating() for b in bots}
    fast = dict(slow)
    for _ in range(3000):
        table = [rng.choice(bots) for _ in range(seats)]
        ranks = [rng.randrange(seats) if rng.random() < 0.3 else s for s in range(seats)]
        rng.shuffle(ranks)
        new_slow = library([slow[b] for b in table], ranks)
        new_fast = FAST.rate([fast[b] for b in table], ranks)
        assert bits(new_fast) == bits(new_slow)
        for s, b in enumerate(table):
            slow[b], fast[b] = new_slow[s], new_fast[s]
    assert bits(fast.values()) == bits(slow.values())


def test_a_table_of_one_is_refused():
    with pytest.raises(ValueError, match="two seats"):
        FAST.rate([ENV.create_rating()], [0])
