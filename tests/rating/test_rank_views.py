"""`rank`: deal-bootstrap intervals, --by seat and --head-to-head in every format."""

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.analysis.results import read_results
from bohnarena.cli import cli
from bohnarena.rating.stats import league_stats
from bohnarena.run.dispatch import run_league


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("rank")
    path = d / "t.toml"
    path.write_text(
        'name = "t"\nedition = "classic"\nplayers = 3\ndeals = 3\nseed = 5\n'
        '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\n'
    )
    run_league(path, d / "o", workers=1, progress=False)
    return str(d / "o")


def rank(*args):
    r = CliRunner().invoke(cli, ["rank", *args])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.slow
def test_text_shows_the_ranking_then_the_bootstrap_intervals(out):
    text = rank(out)
    assert "deal bootstrap: 1000 resamples of the 3 deals" in text and "P(#1)" in text
    assert text.count("deal bootstrap") == 1  # the method named once
    assert text == rank(out)  # seeded: the same numbers every time
    assert rank(out, "--bootstrap-seed", "3") != text


@pytest.mark.slow
def test_json_and_csv_keep_the_ranking_and_add_the_bootstrap(out):
    data = json.loads(rank(out, "--format", "json"))
    assert [b["bot"] for b in data["bots"]] == [b["bot"] for b in data["bootstrap"]]
    assert data["bootstrap_settings"] == {
        "method": "deal bootstrap, percentile intervals",
        "level": 0.95,
        "resamples": 1000,
        "seed": 0,
        "deals": 3,
    }
    row = next(csv.DictReader(io.StringIO(rank(out, "--format", "csv"))))
    assert {"score", "win_rate_low", "p_first", "rank_low"} <= set(row)


def test_by_seat_in_every_format(out):
    rows = list(csv.DictReader(io.StringIO(rank(out, "--by", "seat", "--format", "csv"))))
    assert len(rows) == 9 and {r["seat"] for r in rows} == {"0", "1", "2"}
    assert sum(int(r["matches"]) for r in rows) == 27
    data = json.loads(rank(out, "--by", "seat", "--format", "json"))
    assert len(data["by_seat"]) == 9 and "bots" not in data
    assert "| bot | seat 0 | seat 1 | seat 2 |" in rank(out, "--by", "seat", "--format", "markdown")
    assert "seat 2" in rank(out, "--by", "seat")


def test_head_to_head_in_every_format(out):
    rows = list(csv.DictReader(io.StringIO(rank(out, "--head-to-head", "--format", "csv"))))
    assert len(rows) == 6
    ahead = {(r["bot"], r["opponent"]): float(r["ahead"]) for r in rows}
    assert ahead["trader", "random"] + ahead["random", "trader"] == pytest.approx(1)
    data = json.loads(rank(out, "--head-to-head", "--by", "seat", "--format", "json"))
    assert len(data["head_to_head"]) == 6 and len(data["by_seat"]) == 9
    md = rank(out, "--head-to-head", "--format", "markdown")
    assert md.count("\n| ") == 4 + 4  # header and one row per bot; header and one per pair
    assert "Head to head" in rank(out, "--head-to-head")


def test_csv_of_two_tables_is_a_usage_error(out):
    r = CliRunner().invoke(cli, ["rank", out, "--head-to-head", "--by", "seat", "--format", "csv"])
    assert r.exit_code == 2 and "CSV holds one table" in r.output


#: A win rate with an interval in parentheses: how the Wilson interval was shown.
PARENTHESISED = re.compile(r"\d%\s*\(\d+(\.\d)?%-\d+(\.\d)?%\)")


def bootstrap_intervals(out):
    figures = league_stats(read_results(out).matches)
    return {
        b: (round(float(figures.win_rate.low[i]), 4), round(float(figures.win_rate.high[i]), 4))
        for i, b in enumerate(figures.bots)
    }


def intervals_in(data):
    """(bot, low, high) of every win-rate interval anywhere in a JSON document."""
    if isinstance(data, dict):
        if "win_rate_low" in data:
            yield data["bot"], data["win_rate_low"], data["win_rate_high"], "seat" in data
        for v in data.values():
            yield from intervals_in(v)
    elif isinstance(data, list):
        for v in data:
            yield from intervals_in(v)


@pytest.mark.slow
def test_one_interval_per_figure_and_no_wilson_left(out):
    """Every win-rate interval shown is the deal bootstrap's (issue 25, part 3)."""
    boot = bootstrap_intervals(out)
    found = list(intervals_in(json.loads(rank(out, "--format", "json"))))
    assert sorted(b for b, *_, seat in found if not seat) == sorted(boot)  # once per bot
    assert all((lo, hi) == boot[b] for b, lo, hi, seat in found if not seat)
    for row in csv.DictReader(io.StringIO(rank(out, "--format", "csv"))):
        assert (float(row["win_rate_low"]), float(row["win_rate_high"])) == boot[row["bot"]]
    texts = [rank(out, *args) for args in ([], ["--format", "markdown"], ["--by", "seat"])]
    texts.append((Path(out) / "ranking.md").read_text())
    for text in texts:
        assert not PARENTHESISED.search(text), text
