"""`bohnarena compare` (issue 15, part 5): the paired statistics, the SPRT's
error rates on synthetic paired data, and real comparisons that find a
planted difference and accept the null for identical bots."""

import random
import re
import tomllib

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.league.file import parse_league
from bohnarena.rating.paired import Estimate, Running, Sprt, t_cdf, t_quantile
from bohnarena.run.compare import bot_names, compare_league, league_text, pair_up, why_unpaired
from tests.support.leagues import HERE

SQUANDERER = f"{HERE / 'edge_bots.py'}:Squanderer"


def test_student_t_against_tabled_values():
    assert t_cdf(2.0, 10) == pytest.approx(0.963306, abs=1e-6)
    assert t_cdf(-1.0, 3) == pytest.approx(0.195501, abs=1e-6)
    for p, df, t in ((0.975, 1, 12.7062), (0.975, 10, 2.2281), (0.975, 1000, 1.9623)):
        assert t_quantile(p, df) == pytest.approx(t, abs=1e-4)


def test_estimate_of_paired_differences():
    e = Estimate.of([1.0, 2.0, 3.0, 4.0, 5.0])  # mean 3, sd sqrt(2.5)
    assert (e.n, e.mean) == (5, 3.0) and e.sd == pytest.approx(2.5**0.5)
    lo, hi = e.interval()
    assert (lo, hi) == pytest.approx((3 - 2.776445 * e.stderr, 3 + 2.776445 * e.stderr))
    assert e.p_value == pytest.approx(0.013236, abs=1e-5)  # t = 4.243 on 4 df
    assert Estimate.of([0.0, 0.0, 0.0]).p_value == 1.0
    r = Running()
    for x in [1.0, 2.0, 3.0, 4.0, 5.0]:
        r.add(x)
    assert r.estimate().mean == 3.0 and r.estimate().sd == pytest.approx(e.sd)


def sprt_outcomes(mean, reps, test, sd=2.0, most=5000):
    """How often the SPRT accepts H1 on normal per-deal differences of ``mean``,
    and the median number of deals it took."""
    h1, lengths = 0, []
    for seed in range(reps):
        rng, run = random.Random(seed), Running()
        decision = None
        while decision is None and run.n < most:
            run.add(rng.gauss(mean, sd))
            decision = test.decision(run.estimate())
        h1 += decision == "H1"
        lengths.append(run.n)
    return h1 / reps, sorted(lengths)[reps // 2]


def test_sprt_error_rates_are_about_the_stated_ones():
    test = Sprt(0.0, 0.5, alpha=0.05, beta=0.05, min_n=20)
    false_positive, _ = sprt_outcomes(0.0, 600, test)
    power, deals = sprt_outcomes(0.5, 600, test)
    # 600 repetitions: a rate of 0.05 has a standard error of 0.009
    assert false_positive < 0.05 + 0.027 and power > 0.95 - 0.03
    assert deals < 150  # a fixed-sample test of this power needs about 208 deals


def test_sprt_bounds_and_bad_hypotheses():
    t = Sprt(0.0, 1.0, 0.05, 0.1)
    assert t.upper == pytest.approx(2.8904, abs=1e-4) and t.lower == pytest.approx(
        -2.2513, abs=1e-4
    )
    with pytest.raises(ValueError, match="above"):
        Sprt(1.0, 0.0)


def row(i, deal, seats, coins, ranks):
    return {"match_id": i, "deal": deal, "rotation": 0, "seats": seats, "coins": coins,
            "ranks": ranks, "winners": [ranks.index(1)]}  # fmt: skip


def test_pairs_are_the_same_deal_and_seats_with_a_swapped_for_b():
    rows = [
        row(0, 0, ["a", "x", "y"], [10, 5, 3], [1, 2, 3]),
        row(1, 0, ["x", "y", "a"], [4, 6, 8], [3, 2, 1]),
        row(2, 0, ["b", "x", "y"], [7, 5, 9], [2, 3, 1]),
        row(3, 0, ["x", "y", "b"], [4, 6, 8], [3, 2, 1]),
        row(4, 0, ["a", "b", "x"], [1, 2, 3], [3, 2, 1]),  # both at one table: its twin is
        row(5, 0, ["y", "x", "b"], [1, 2, 3], [3, 2, 1]),  # no twin of a
        row(6, 0, ["b", "a", "x"], [3, 1, 2], [1, 3, 2]),  # this one, a and b swapped
        row(7, 1, ["a", "x", "y"], [5, 5, 5], [1, 2, 3]),
        row(8, 1, ["b", "x", "y"], [4, 5, 5], [1, 2, 3]),
    ]
    p = pair_up(rows, "a", "b")
    assert (p.pairs, p.unpaired, p.matches) == (4, 1, 9)
    e = p.estimates()
    # deal 0: coins +3, 0 and (1 + 1 - 2 - 3) / 2 = -1.5 -> 0.5; deal 1: +1
    assert e["coins"].n == 2 and e["coins"].mean == pytest.approx(0.75)
    # place: +1, 0, (-3 - 3 + 2 + 1) / 2 -> -1/6; 0.  win: +1, 0, -0.5 -> 1/6; 0
    assert e["place"].mean == pytest.approx(-1 / 12) and e["win"].mean == pytest.approx(1 / 12)


def test_what_no_twin_pairs_is_paired_by_deal_where_each_sits_in_every_seat():
    r = [1, 2, 3]  # places do not matter here
    rows = [  # a's table without b and b's, opponents in other orders: no twin
        row(0, 0, ["a", "x", "y"], [3, 0, 0], r),
        row(1, 0, ["y", "a", "x"], [0, 6, 0], r),
        row(2, 0, ["x", "y", "a"], [0, 0, 9], r),  # a: 6 on average
        row(3, 0, ["x", "b", "y"], [0, 2, 0], r),
        row(4, 0, ["y", "x", "b"], [0, 0, 4], r),
        row(5, 0, ["b", "y", "x"], [3, 0, 0], r),  # b: 3, so +3 over 6 matches
        row(6, 0, ["a", "x", "b"], [5, 0, 1], r),  # a table of both, rotated:
        row(7, 0, ["b", "a", "x"], [2, 2, 0], r),  # a 3 and b 2 on average, so
        row(8, 0, ["x", "b", "a"], [0, 3, 2], r),  # +1 over 3 matches
        row(9, 0, ["a", "y", "b"], [9, 0, 0], r),  # a table of both in two seatings
        row(10, 0, ["b", "a", "y"], [0, 9, 0], r),  # of three: a seat favours one
    ]
    p = pair_up(rows, "a", "b")
    assert (p.pairs, p.by_deal, p.unpaired, p.matches) == (0, 9, 2, 11)
    # each group weighted by its matches: (3 * 6 + 1 * 3) / 9
    assert p.estimates()["coins"].mean == pytest.approx(21 / 9)


def test_why_nothing_is_compared():
    bots = "".join(f'r{i} = "random"\n' for i in range(4))
    text = f'name = "l"\nplayers = 3\ndeals = 1\nseed = 1\n[bots]\n{bots}'
    league = parse_league(tomllib.loads(text), text, "l")
    # r0 or r2 sits at each of the 4 tables, each rotated 3 ways
    assert why_unpaired(league, "r0", "r2") == (
        "its design compares 12 of their matches a deal, but no deal of theirs has "
        "finished yet: run the league on"
    )
    assert why_unpaired(league, "r1", "r1") == "a bot is only compared with another one"


def test_names_of_specs():
    assert bot_names(["planner", "planner", "x/y.py:Better", "new=z.py:Bot"]) == [
        ("planner", "planner"),
        ("planner-2", "planner"),
        ("Better", "x/y.py:Better"),
        ("new", "z.py:Bot"),
    ]
    # a spec's parameters are no NAME=: "trader?wants=3" names itself
    assert bot_names(["trader?wants=3,margin=0.2", "k=trader?wants=1"]) == [
        ("trader-wants-3-margin-0.2", "trader?wants=3,margin=0.2"),
        ("k", "trader?wants=1"),
    ]


def compare(*args, code=0):
    r = CliRunner().invoke(cli, ["compare", *args])
    assert r.exit_code == code, r.output
    return r.output


@pytest.mark.slow
def test_compare_finds_a_planted_difference_and_reads_it_back(tmp_path):
    out = tmp_path / "out"
    common = ["--against", "random", "-p", "3", "-j", "1", "--no-progress", "--out", str(out)]
    text = compare("planner", SQUANDERER, "--sprt", "--min-deals", "8", "-n", "60", *common)
    decided = re.search(r"H1 accepted on coins after (\d+) deals, (\d+) matches", text)
    assert decided and 8 <= int(decided[1]) < 60 and int(decided[2]) == 6 * int(decided[1])
    again = compare("planner", "Squanderer", "--results", str(out))
    assert "pairs of matches (0 unpaired matches)" in again
    coins = next(ln for ln in again.splitlines() if ln.startswith("coins"))
    assert float(coins.split()[1]) > 1.0  # about 2 coins a match
    league = (out / "league.toml").read_text()
    assert 'format = "paired"' in league and 'hero = "planner"' in league


@pytest.mark.slow
def test_compare_accepts_the_null_for_identical_bots_and_h0_for_a_worse_one(tmp_path):
    common = ["--against", "random", "-p", "3", "-j", "1", "--no-progress"]
    same = compare("planner", "planner", "--sprt", "--out", str(tmp_path / "a"), *common, code=3)
    assert "H0 accepted on coins after 20 deals" in same and "+0.000" in same
    worse = compare(SQUANDERER, "planner", "--sprt", "--out", str(tmp_path / "b"), *common, code=3)
    assert "H0 accepted" in worse


def test_compare_on_a_round_robin_with_permutations(league, tmp_path):
    bots = {"planner": "planner", "edge": SQUANDERER, "r1": "random", "r2": "random"}
    path = league(players=3, deals=1, bots=bots, extra='seatings = "permutations"\n')
    out = tmp_path / "rr"
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "-j", "1", "--no-moves"])
    assert r.exit_code == 0, r.output
    text = compare("planner", "edge", "--results", str(out))
    # tables without the other: {r1, r2} with planner or edge, 6 seatings each;
    # tables of both, {r1} or {r2} with them: 6 seatings, 3 swapped pairs each
    assert "1 deal, 12 pairs of matches" in text
    bad = CliRunner().invoke(cli, ["compare", "planner", "nobody", "--results", str(out)])
    assert bad.exit_code == 2 and "'nobody' is not a bot" in bad.output


def test_sprt_options_are_checked():
    r = CliRunner().invoke(cli, ["compare", "a", "b", "--sprt", "--h0", "1", "--h1", "0"])
    assert r.exit_code == 2 and "must be above" in r.output


#: File names json wrote as TOML cannot read (beyond the BMP: an emoji, as
#: two escaped surrogates) and others that need escapes or none: quotes,
#: backslashes, controls, CJK.
ODD_NAMES = [
    "😀.py",
    "\U0001d51f\U0001d52c\U0001d531 𓂀.py",
    'say "hi".py',
    "it's.py",
    "a\\b.py",
    "tab\tnl\n.py",
    "\x7f.py",
    "豆.py",
]


@pytest.mark.parametrize("file", ODD_NAMES)
def test_a_comparisons_league_file_reads_back_any_spec(file):
    a, b, *field = bot_names([f"/bots/{file}:Bot", "planner", "random", "http://127.0.0.1:8/"])
    settings = {"name": "c", "edition": "classic", "players": 3, "deals": 2, "seed": 1}
    text = league_text(a, b, field, settings, {}, 6, True)
    assert tomllib.loads(text)["bots"][a[0]] == f"/bots/{file}:Bot"
    league = compare_league(a, b, field, settings, {})
    assert league.bots[a[0]].spec == f"/bots/{file}:Bot"
    assert league.bots["127.0.0.1-8"].service.url == "http://127.0.0.1:8/"
    assert (league.hero, league.challenger) == (a[0], "planner")


def test_a_spec_that_is_not_utf8_is_refused_in_one_line(tmp_path):
    bad = str(tmp_path) + "/bot\udcff.py:Bot"  # the bytes b"\xff" of a file name
    r = CliRunner().invoke(cli, ["compare", bad, "planner", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "not UTF-8" in r.output and len(r.output.splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_compare_plays_and_resumes_a_bot_whose_file_has_an_emoji_and_quotes(tmp_path):
    bot = tmp_path / '😀 \U0001d51f\U0001d52c\U0001d531 "q" it\'s.py'
    bot.write_text((HERE / "edge_bots.py").read_text())
    out = tmp_path / "out"
    args = [f"{bot}:Squanderer", "planner", "--against", "random", "-n", "1", "-p", "3"]
    args += ["-j", "1", "--no-progress", "--out", str(out)]
    assert "6 matches played now, 0 before" in compare(*args)
    assert "0 matches played now, 6 before" in compare(*args)  # the same text: it resumes
    assert (
        tomllib.loads((out / "league.toml").read_text())["bots"]["Squanderer"]
        == f"{bot}:Squanderer"
    )
