"""`compare X Y --results DIR` on any league (issues 25 and 45): every pair
of bots of a league of as many bots as seats with rotations (X and Y always
at one table), of five bots at four seats and four at three with rotations
(no seat-exact twin for most), and of a permutations league (a twin for
every match) gets a verdict. Seat-exact pairs are counted against a
brute-force search of the recorded matches; the interval is checked
against an independent computation from the matches' Parquet (pandas): per
deal, X's mean over the matches it played against some opponents minus Y's
mean over theirs, each group weighted by its matches."""

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli

BOTS = ["r0", "r1", "r2", "r3", "r4"]
DEALS = 3
T_975_2 = 4.302652729911275  # Student's t, 0.975 quantile, 2 degrees of freedom (tables)
LEAGUES = {  # name: (bots, seats, seatings)
    "4 at 4": (4, 4, "rotations"),  # the README's shape
    "5 at 4": (5, 4, "rotations"),
    "4 at 3": (4, 3, "rotations"),  # seat-exact twins for neighbours, by deal the rest
    "4 at 3 permutations": (4, 3, "permutations"),
}


@pytest.fixture(scope="module")
def leagues(tmp_path_factory):
    """name -> results directory of random bots."""
    d = tmp_path_factory.mktemp("any")
    made = {}
    for i, (name, (n, players, seatings)) in enumerate(LEAGUES.items()):
        path = d / f"l{i}.toml"
        bots = "\n".join(f'{b} = "random"' for b in BOTS[:n])
        path.write_text(
            f'name = "l"\nedition = "classic"\nplayers = {players}\ndeals = {DEALS}\nseed = 3\n'
            f'seatings = "{seatings}"\n[run]\nmoves = false\n[bots]\n{bots}\n'
        )
        out = d / f"o{i}"
        r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "-j", "1"])
        assert r.exit_code == 0, r.output
        made[name] = str(out)
    return made


def matches(out):
    parts = sorted((Path(out) / "matches").glob("part-*.parquet"))
    columns = ["deal", "seats", "coins"]
    return pd.concat(pq.read_table(p, columns=columns).to_pandas() for p in parts)


def brute_force_pairs(out, x, y):
    """Seat-exact pairs in the recorded matches, searched the slow way: two
    matches of a deal whose seats are equal with x and y exchanged."""
    rows = matches(out).to_dict("records")
    swap = {x: y, y: x}
    count = 0
    for m1, m2 in itertools.combinations(rows, 2):
        if m1["deal"] == m2["deal"] and [swap.get(s, s) for s in m1["seats"]] == list(m2["seats"]):
            count += x in m1["seats"] or x in m2["seats"]
    return count


def expected_coins(out, x, y):
    """The coins interval computed independently: group each deal's matches
    of x or y by their other seats; a group's difference is x's mean coins
    where x played minus y's where y played, its weight its matches; a
    deal's observation the weighted mean; Student's t over deals."""
    df = matches(out)
    seats = df["seats"].map(list)
    df["others"] = seats.map(lambda s: tuple(sorted(b for b in s if b not in (x, y))))
    for bot in (x, y):
        coins = zip(seats, df["coins"], strict=True)
        df[bot] = [c[list(s).index(bot)] if bot in s else np.nan for s, c in coins]
    df = df[df[x].notna() | df[y].notna()]
    groups = df.groupby(["deal", "others"]).agg(a=(x, "mean"), b=(y, "mean"), n=("deal", "size"))
    groups["diff"] = groups["a"] - groups["b"]
    per_deal = groups.groupby("deal").apply(lambda g: np.average(g["diff"], weights=g["n"]))
    assert len(per_deal) == DEALS and not per_deal.isna().any()
    mean, se = per_deal.mean(), per_deal.std(ddof=1) / np.sqrt(len(per_deal))
    return mean, mean - T_975_2 * se, mean + T_975_2 * se, len(df)


@pytest.mark.slow
@pytest.mark.parametrize("name", LEAGUES)
def test_every_pair_of_a_league_gets_a_verdict_and_the_interval_checks_out(leagues, name):
    out = leagues[name]
    for x, y in itertools.permutations(BOTS[: LEAGUES[name][0]], 2):
        r = CliRunner().invoke(cli, ["compare", x, y, "--results", out, "--format", "json"])
        assert r.exit_code == 0, r.output
        report = json.loads(r.output)
        mean, low, high, used = expected_coins(out, x, y)
        coins = report["figures"]["coins"]
        assert (coins["mean"], coins["low"], coins["high"]) == pytest.approx((mean, low, high))
        assert report["deals"] == DEALS and report["unpaired"] == 0
        # every match of x or y is compared: seat for seat, or by deal
        assert report["pairs"] == brute_force_pairs(out, x, y)
        assert 2 * report["pairs"] + report["by_deal"] == used
        if name == "4 at 3 permutations":
            assert report["by_deal"] == 0  # a twin for every match
        if name == "4 at 4":
            assert report["pairs"] == 0  # no twin: rotations never swap two bots
        else:  # the tables without the other, and the tables of both
            assert report["by_deal"] > 0 or name == "4 at 3 permutations"


@pytest.mark.slow
def test_the_text_says_what_was_paired_by_deal_and_a_bot_is_not_compared_with_itself(leagues):
    r = CliRunner().invoke(cli, ["compare", "r0", "r2", "--results", leagues["4 at 4"]])
    assert r.exit_code == 0, r.output
    assert "3 deals, 0 pairs of matches, 12 matches paired by deal (0 unpaired matches)" in r.output
    same = CliRunner().invoke(cli, ["compare", "r1", "r1", "--results", leagues["5 at 4"]])
    assert same.exit_code == 2 and "a bot is only compared with another one" in same.output
    assert len(same.output.strip().splitlines()) == 1
