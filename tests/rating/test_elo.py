"""The Elo-style difference of each pair (issue 25, part 4): it recovers an
edge planted through Plackett-Luce finishing orders within its interval at
about the stated 95%, and `rank --head-to-head` and the report show it."""

import math

import numpy as np
import pytest

from bohnarena.rating.stats import Matches, elo, league_stats
from bohnarena.rating.statstables import render

BOTS = ["a", "b", "c"]
#: Each deal is one of two kinds, equally likely; a kind gives every bot a
#: Plackett-Luce strength 10^(elo / 400). Under Plackett-Luce the chance that
#: i finishes ahead of j at any table is w_i / (w_i + w_j).
KIND_ELO = np.array([[200.0, 0.0, -100.0], [0.0, 0.0, 100.0]])


def truth():
    w = 10 ** (KIND_ELO / 400)
    score = (w[:, :, None] / (w[:, :, None] + w[:, None, :])).mean(axis=0)
    return elo(score)


def planted(deals, rng):
    """3 bots at one 3-seat table, every deal under its 3 rotations; each
    match's finishing order drawn by Plackett-Luce from its deal's kind."""
    n, p = deals * 3, 3
    deal = np.repeat(np.arange(deals), 3)
    rotation = np.tile(np.arange(3), deals)
    bot = (np.arange(p)[None, :] - rotation[:, None]) % p
    kind = rng.integers(0, 2, deals)[deal]
    # Plackett-Luce: sort by log w + Gumbel noise
    keys = KIND_ELO[kind][np.arange(n)[:, None], bot] * math.log(10) / 400
    keys = keys + rng.gumbel(size=(n, p))
    place = (-keys).argsort(axis=1).argsort(axis=1) + 1
    return Matches(
        BOTS,
        np.arange(n),
        deal,
        bot,
        10 - place,
        place,
        place == 1,
        np.zeros((n, p), np.int64),
        np.full(n, 20),
        np.full(n, 0.01),
    )


def test_the_map_from_score_to_elo():
    assert elo(np.array([0.5]))[0] == 0
    assert elo(np.array([10 / 11]))[0] == pytest.approx(400)
    assert np.isinf(elo(np.array([1.0, 0.0]))).all()


@pytest.mark.slow  # about 3 s: 300 seeded leagues
def test_a_planted_elo_edge_is_inside_its_interval_about_95_percent_of_the_time():
    true = truth()
    assert true[0, 1] == pytest.approx(92.4, abs=0.1)  # a over b: scores 0.76 and 0.5
    rng = np.random.default_rng(25)
    covered = total = 0
    for rep in range(300):
        s = league_stats(planted(60, rng), resamples=400, seed=rep)
        e = s.elo
        for i, j in ((0, 1), (0, 2), (1, 2)):
            covered += bool(e.low[i, j] <= true[i, j] <= e.high[i, j])
            total += 1
    coverage = covered / total
    print(f"Elo coverage {coverage:.3f} over {total} intervals")
    assert 0.91 <= coverage <= 0.985


def test_head_to_head_shows_each_pair_with_its_elo_difference():
    s = league_stats(planted(200, np.random.default_rng(3)), resamples=200)
    true = truth()
    assert abs(s.elo.value[0, 1] - true[0, 1]) < 60 and s.elo.value[1, 0] == pytest.approx(
        -s.elo.value[0, 1]
    )
    from bohnarena.rating.skill import Rater

    ranking = Rater(BOTS).ranking()
    text = render("text", ranking, s, ["head-to-head"])
    assert "Elo-style difference" in text and "Elo difference" in text
    line = next(ln for ln in text.splitlines() if ln.split()[:2] == ["a", "b"])
    assert f"{s.elo.value[0, 1]:+.0f} [{s.elo.low[0, 1]:+.0f}, {s.elo.high[0, 1]:+.0f}]" in line
    import json

    rows = json.loads(render("json", ranking, s, ["head-to-head"]))["head_to_head"]
    ab = next(r for r in rows if (r["bot"], r["opponent"]) == ("a", "b"))
    assert ab["elo"] == pytest.approx(s.elo.value[0, 1], abs=0.05) and "elo_low" in ab
