"""A gauntlet's report is about its hero (issue 25, part 6): against each
opponent (score, interval, Elo-style difference), by seat, and its worst
deals with the command that replays each, the figures equal to a count
straight from the recorded matches; a round-robin's report has no hero."""

import html
import re
import shlex
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.analysis.results import read_results
from bohnarena.cli import cli
from bohnarena.rating.stats import league_stats
from bohnarena.report.hero import hero_figures
from bohnarena.report.html import build
from bohnarena.run.dispatch import run_league

LEAGUE = (
    'name = "g"\nedition = "classic"\nplayers = 3\ndeals = 4\nseed = 5\n{extra}'
    '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\nr2 = "random"\n'
)


@pytest.fixture(scope="module")
def gauntlet(tmp_path_factory):
    d = tmp_path_factory.mktemp("hero")
    path = d / "g.toml"
    path.write_text(LEAGUE.format(extra='format = "gauntlet"\nhero = "planner"\n'))
    run_league(path, d / "o", workers=1, progress=False)
    return d / "o"


def recorded(out):
    rows = []
    for part in sorted((Path(out) / "matches").glob("part-*.parquet")):
        rows += pq.read_table(
            part, columns=["match_id", "deal", "seats", "ranks", "coins"]
        ).to_pylist()
    return rows


@pytest.mark.slow
def test_the_worst_deals_are_the_heros_worst_by_a_direct_count(gauntlet):
    by_deal = {}
    for r in recorded(gauntlet):
        s = r["seats"].index("planner")
        by_deal.setdefault(r["deal"], []).append((r["ranks"][s], r["coins"][s], r["match_id"]))
    expected = sorted(
        by_deal,
        key=lambda d: (
            -sum(p for p, _, _ in by_deal[d]) / len(by_deal[d]),
            sum(c for _, c, _ in by_deal[d]) / len(by_deal[d]),
            d,
        ),
    )
    results = read_results(gauntlet)
    s = league_stats(results.matches, 200)
    f = hero_figures(results.matches, s, "planner", results.path)
    assert [w.deal for w in f.worst] == expected[:5]
    for w in f.worst:
        worst = min(by_deal[w.deal], key=lambda t: (-t[0], t[1], t[2]))
        assert w.match_id == worst[2] and w.matches == len(by_deal[w.deal]) == 9
        assert w.place == pytest.approx(sum(p for p, _, _ in by_deal[w.deal]) / 9)
    # each opponent once, the weakest score first, with the head-to-head figures
    assert sorted(o.bot for o in f.opponents) == ["r2", "random", "trader"]
    assert [o.score for o in f.opponents] == sorted(o.score for o in f.opponents)
    h = s.bots.index("planner")
    for o in f.opponents:
        j = s.bots.index(o.bot)
        assert (o.pairs, o.score) == (int(s.h2h_n[h, j]), pytest.approx(s.h2h.value[h, j]))


@pytest.mark.slow
def test_the_report_has_the_hero_section_and_its_commands_replay(gauntlet):
    results = read_results(gauntlet)
    page = build(results, 200)
    assert "<h2>The hero: planner</h2>" in page
    for title in ("planner against each opponent", "planner by seat", "planner's worst deals"):
        assert title in page
    commands = [
        html.unescape(c) for c in re.findall(r"<code>(bohnarena replay [^<]*)</code>", page)
    ]
    assert len(commands) == 4  # 4 deals, at most 5 shown
    args = shlex.split(commands[0])[1:]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0 and "planner" in r.output


@pytest.mark.slow
def test_a_round_robin_report_has_no_hero(tmp_path):
    path = tmp_path / "rr.toml"
    path.write_text(LEAGUE.format(extra="deals = 1\n").replace("deals = 4\n", ""))
    run_league(path, tmp_path / "o", workers=1, progress=False)
    assert "The hero" not in build(read_results(tmp_path / "o"), 50)
