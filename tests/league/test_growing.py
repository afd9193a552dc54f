"""Leagues that grow (issue 24, part 1; docs/leagues.md, "Growing a league"):
bots and deals added to a league file play only the matches they add, the
earlier ones untouched; a removed bot leaves the standings and stays on
disk; anything else that changes is refused; and a grown league equals a
fresh league of its file, matched by (deal, table, seating)."""

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.league.file import load_league
from bohnarena.rating.results import read_results
from bohnarena.rating.skill import rank
from bohnarena.rating.stats import league_stats
from bohnarena.run.dispatch import run_league
from bohnarena.store.audit import Auditor
from bohnarena.store.directory import RunDir

BOTS = {"a": "random", "b": "planner", "c": "trader", "d": "random"}


def rows(out):
    """The matches table's rows, in id order."""
    return pq.read_table(Path(out) / "matches").sort_by("match_id").to_pylist()


def keyed(out):
    """{(deal, table's bots, seating): row} of a run (ids and table indices
    differ between a grown and a fresh league; nothing else may)."""
    store = RunDir(out)
    schedule = Auditor.for_run(load_league(out / "league.toml"), store.meta()).schedule
    return {(r["deal"], schedule.tables[r["table"]], r["rotation"]): r for r in rows(out)}


def moves_of(out):
    """Each match's records (without its id), by match id."""
    moves = pq.read_table(Path(out) / "moves").sort_by([("match_id", "ascending")])
    by_id: dict[int, list] = {}
    for r in moves.to_pylist():
        by_id.setdefault(r.pop("match_id"), []).append(r)
    return by_id


def standings(bots):
    """Each bot's figures but TrueSkill's (which depend on the order of updates)."""
    return {
        b["bot"]: {k: v for k, v in b.items() if k not in ("mu", "sigma", "score")} for b in bots
    }


def grow(path, bots=None, deals=None):
    """Rewrite the league file with other bots or deals."""
    text = path.read_text()
    head, _, _ = text.partition("[bots]")
    if deals is not None:
        head = "\n".join(
            f"deals = {deals}" if line.startswith("deals =") else line for line in head.splitlines()
        )
    lines = "\n".join(f'{k} = "{v}"' for k, v in (bots or {}).items())
    path.write_text(head + "\n[bots]\n" + lines + "\n")


def run(path, out, **kw):
    return run_league(path, out, workers=2, progress=False, **kw)


@pytest.fixture
def grown(league, tmp_path):
    """A league of four bots and two deals, grown by a bot and two deals:
    (league file, results, the first run's rows, the second run's summary)."""
    path = league(bots=BOTS, deals=2)
    out = tmp_path / "grown"
    first = run(path, out)
    assert first.complete and first.played == 4 * 2 * 3  # C(4, 3) tables, 2 deals, 3 seatings
    before = rows(out)
    grow(path, {**BOTS, "e": "random"}, deals=4)
    return path, out, before, run(path, out)


def test_growing_plays_only_the_added_matches(grown):
    path, out, before, second = grown
    # C(5, 3) = 10 tables of 4 deals, 3 seatings: 120 matches, 24 of them played before
    assert second.complete and second.done_before == 24 and second.played == 96
    after = rows(out)
    assert [r["match_id"] for r in after] == list(range(120))
    assert after[:24] == before  # earlier matches untouched, ids and seeds and all
    generations = RunDir(out).meta()["generations"]
    assert [(g["first_id"], g["matches"]) for g in generations] == [(0, 24), (24, 96)]
    assert (out / "league.1.toml").read_text().count(" = ") < path.read_text().count(" = ")
    assert (out / "league.toml").read_text() == path.read_text()
    # a run of the same file again plays nothing
    again = run(path, out)
    assert again.complete and again.played == 0 and again.done_before == 120


def test_a_grown_league_equals_a_fresh_one(grown, tmp_path):
    path, out, _, _ = grown
    fresh = tmp_path / "fresh"
    assert run(path, fresh).complete
    g, f = keyed(out), keyed(fresh)
    assert g.keys() == f.keys() and len(g) == 120
    same = ["deal", "rotation", "seed", "seats", "coins", "ranks", "winners", "turns", "faults"]
    g_moves, f_moves = moves_of(out), moves_of(fresh)
    for key, row in g.items():
        assert {c: row[c] for c in same} == {c: f[key][c] for c in same}, key
        assert g_moves[row["match_id"]] == f_moves[f[key]["match_id"]], key
    # wins, coins and places: the same matches, so the same figures
    gr, fr = read_results(out), read_results(fresh)
    strip = ("mu", "sigma", "score")
    by_bot = {r["bot"]: {k: v for k, v in r.items() if k not in strip} for r in fr.ranking.rows()}
    assert {
        r["bot"]: {k: v for k, v in r.items() if k not in strip} for r in gr.ranking.rows()
    } == (by_bot)
    gs, fs = league_stats(gr.matches), league_stats(fr.matches)
    for name in ("win_rate", "coins", "place"):
        a, b = getattr(gs, name), getattr(fs, name)
        np.testing.assert_allclose(a.value, b.value)
        np.testing.assert_allclose(a.low, b.low)
        np.testing.assert_allclose(a.high, b.high)
    # TrueSkill: the fresh league's matches rated in the grown league's id order
    order = sorted(f, key=lambda key: g[key]["match_id"])
    assert rank([f[key] for key in order], [*BOTS, "e"]).rows() == gr.ranking.rows()


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda t: t.replace("seed = 5", "seed = 6"), "seed changed"),
        (lambda t: t.replace("players = 3", "players = 4"), "players per table changed"),
        (lambda t: t.replace("[bots]", '[rules]\nprotection = "none"\n[bots]'), "rules changed"),
        (lambda t: t.replace('b = "planner"', 'b = "trader"'), "bot 'b' is not the one"),
        (
            lambda t: t.replace('a = "random"\nb = "planner"', 'b = "planner"\na = "random"'),
            "before 'a'",
        ),
    ],
)
def test_what_a_league_may_not_change_is_refused(league, tmp_path, change, reason):
    path = league(bots=BOTS, deals=1)
    out = tmp_path / "o"
    run(path, out)
    kept = (out / "run.json").read_text(), pq.read_table(out / "matches")
    path.write_text(change(path.read_text()).replace("deals = 1", "deals = 2"))
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "--no-progress"])
    assert r.exit_code == 2 and reason in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert ((out / "run.json").read_text(), pq.read_table(out / "matches")) == kept


def test_a_changed_bot_source_is_refused_as_before(league, tmp_path):
    bot = tmp_path / "mine.py"
    bot.write_text("from bohnarena_bots.random_bot import RandomBot as Mine\n")
    path = league(bots={**BOTS, "mine": f"{bot}:Mine"}, deals=1)
    run(path, tmp_path / "o")
    bot.write_text("from bohnarena_bots.random_bot import RandomBot as Mine  # changed\n")
    grow(path, {**BOTS, "mine": f"{bot}:Mine", "e": "random"})
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert r.exit_code == 2 and "source of bot(s) mine changed" in r.output


def test_run_json_records_every_bot_ever(grown):
    _, out, _, _ = grown
    meta = json.loads((out / "run.json").read_text())
    assert set(meta["bots"]) == {"a", "b", "c", "d", "e"}
    assert [g["bots"] for g in meta["generations"]] == [list(BOTS), [*BOTS, "e"]]


def test_a_removed_bot_leaves_the_standings_and_stays_on_disk(grown, tmp_path):
    path, out, _, _ = grown
    without = {k: v for k, v in {**BOTS, "e": "random"}.items() if k != "c"}
    grow(path, without, deals=4)
    s = run(path, out)
    assert s.complete and s.played == 0 and s.done_before == 4 * 4 * 3  # C(4, 3) tables left
    assert "c" not in {r["bot"] for r in s.ranking.rows()}
    on_disk = rows(out)
    assert len(on_disk) == 120 and sum("c" in r["seats"] for r in on_disk) == 72
    r = CliRunner().invoke(cli, ["rank", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    ranked = json.loads(r.output)
    assert [b["bot"] for b in ranked["bots"]] == [b["bot"] for b in s.ranking.rows()]
    assert ranked["matches"] == 48 and all(b["matches"] == 36 for b in ranked["bots"])
    # its standings are a fresh league's of the file without it (TrueSkill aside)
    fresh = tmp_path / "fresh"
    run(path, fresh)
    assert standings(ranked["bots"]) == standings(read_results(fresh).ranking.rows())
    # its matches are still there to read, replay and check
    theirs = next(r["match_id"] for r in on_disk if "c" in r["seats"])
    for args in (["--match", str(theirs), "--rerun"], ["--verify-all", "-j", "1"]):
        r = CliRunner().invoke(cli, ["replay", str(out), *args])
        assert r.exit_code == 0, r.output
    # and it comes back with its matches when it returns
    grow(path, {**BOTS, "e": "random"}, deals=4)
    s = run(path, out)
    assert s.played == 0 and s.ranking.rows()[0]["matches"] == 72
