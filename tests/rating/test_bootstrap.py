"""The deal bootstrap: intervals that cover the truth, reproduce, and agree
with the ranking; head-to-head and per-seat tables add up."""

import numpy as np
import pytest

from bohnarena.rating.skill import Rater, rank
from bohnarena.rating.stats import Matches, collect, league_path, league_stats

BOTS = ["a", "b", "c"]
# Two kinds of deal, equally likely: which bot wins a match depends on the
# deal, so the matches of a deal are correlated (what the blocks are for).
WIN_P = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
TRUE_WIN_RATE = WIN_P.mean(axis=0)  # 0.4, 0.3, 0.3


def synthetic(deals: int, rng: np.random.Generator) -> Matches:
    """A duplicate league of 3 bots at one 3-seat table: every deal played
    under the 3 rotations; the winner drawn from the deal kind's odds."""
    n, p = deals * 3, 3
    deal = np.repeat(np.arange(deals), 3)
    rotation = np.tile(np.arange(3), deals)
    bot = (np.arange(p)[None, :] - rotation[:, None]) % p  # bot at each seat
    kind = rng.integers(0, 2, deals)[deal]
    winner_bot = (rng.random(n)[:, None] > np.cumsum(WIN_P[kind], axis=1)).sum(axis=1)
    place = np.where(bot == winner_bot[:, None], 1, 0)
    losers = rng.permutation(np.array([2, 3] * n).reshape(n, 2), axis=1)
    place[place == 0] = losers.ravel()
    coins = 10 - 3 * place + rng.integers(0, 3, (n, p))
    return Matches(
        BOTS,
        np.arange(n),
        deal,
        bot,
        coins,
        place,
        place == 1,
        np.zeros((n, p), np.int64),
        np.full(n, 20),
        np.full(n, 0.01),
    )


@pytest.mark.slow  # about 2 s: 300 seeded leagues
def test_95_percent_intervals_cover_the_true_win_rates_about_95_percent_of_the_time():
    rng = np.random.default_rng(15)
    covered, total = 0, 0
    for rep in range(300):
        s = league_stats(synthetic(40, rng), resamples=400, seed=rep)
        covered += int(
            ((s.win_rate.low <= TRUE_WIN_RATE) & (s.win_rate.high >= TRUE_WIN_RATE)).sum()
        )
        total += len(BOTS)
    coverage = covered / total
    print(f"coverage {coverage:.3f} over {total} intervals")
    assert 0.91 <= coverage <= 0.985


def test_same_seed_same_intervals_another_seed_others():
    m = synthetic(30, np.random.default_rng(1))
    one, two, other = (league_stats(m, 300, seed) for seed in (7, 7, 8))
    assert one.bot_rows() == two.bot_rows() and one.h2h_rows() == two.h2h_rows()
    assert one.bot_rows() != other.bot_rows()


def test_head_to_head_is_complementary_and_seats_add_up():
    m = synthetic(30, np.random.default_rng(2))
    s = league_stats(m, 200)
    both = s.h2h.value + s.h2h.value.T
    off = ~np.eye(3, dtype=bool)
    assert np.allclose(both[off], 1.0) and (s.h2h_n[off] == 90).all()
    assert (s.seat_n.sum(axis=1) == s.n).all() and (s.n == 90).all()
    overall = (s.seat_win.value * s.seat_n).sum(axis=1) / s.n
    assert np.allclose(overall, s.win_rate.value)
    assert 1.0 <= s.first.sum() <= 1.1  # a bot is first in every resample (ties: both)


def rows_of(m: Matches):
    for i in range(m.n):
        yield {
            "match_id": int(m.match_id[i]),
            "deal": int(m.deal[i]),
            "seats": [m.bots[b] for b in m.bot[i]],
            "coins": m.coins[i].tolist(),
            "ranks": m.place[i].tolist(),
            "winners": [int(s) for s in np.flatnonzero(m.win[i])],
            "faults": m.faults[i].tolist(),
            "turns": int(m.turns[i]),
            "duration_s": float(m.duration[i]),
        }


def test_collected_rows_and_rating_path_end_where_the_ranking_does():
    m = synthetic(10, np.random.default_rng(3))
    again = collect(rows_of(m), BOTS)
    assert (again.place == m.place).all() and (again.bot == m.bot).all()
    rater = Rater(BOTS)
    for row in rows_of(m):
        rater.add(row)
    path = league_path(again, rater.curve(), points=7)
    assert path.at[-1] == m.n and len(path.at) == 7
    final = {s.bot: s for s in rank(rows_of(m), BOTS).standings}
    for i, b in enumerate(BOTS):
        assert path.mu[-1, i] == pytest.approx(final[b].mu)
        assert path.sigma[-1, i] == pytest.approx(final[b].sigma)
    assert path.win_rate[-1] == pytest.approx([final[b].win_rate for b in BOTS])


def test_no_matches_no_resamples():
    empty = collect([], BOTS)
    s = league_stats(empty, 100)
    assert s.matches == 0 and all(r["win_rate"] is None for r in s.bot_rows())
    s = league_stats(synthetic(3, np.random.default_rng(4)), 0)
    assert all(r["win_rate_low"] is None and r["win_rate"] is not None for r in s.bot_rows())


def test_the_rating_curve_is_rated_once_and_ends_at_the_ranking():
    m = synthetic(8, np.random.default_rng(5))
    rater = Rater(BOTS)
    for row in rows_of(m):
        rater.add(row)
    curve = rater.curve()
    assert curve.mu.shape == curve.sigma.shape == (m.n, len(BOTS))
    final = {s.bot: s for s in rater.ranking().standings}
    assert curve.mu[-1].tolist() == [final[b].mu for b in BOTS]
    with pytest.raises(ValueError, match=f"a curve of {m.n} matches for {m.n - 1}"):
        league_path(collect(list(rows_of(m))[:-1], BOTS), curve)


@pytest.mark.slow
def test_the_bootstrap_of_a_big_league_holds_little_memory():
    """`rank` on 100,000 matches held 340 MB in the bootstrap's block sums
    (every part concatenated first); summed a part at a time, a few copies
    of the matches' own arrays (issue 23, part 2)."""
    import tracemalloc

    m = synthetic(10_000, np.random.default_rng(3))  # 30,000 matches
    tracemalloc.start()
    try:
        league_stats(m, resamples=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 45 * 2**20, peak / 2**20  # 66 MB before, 33 MB now
