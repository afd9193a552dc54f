"""Leagues that grow (issue 24, part 1; docs/leagues.md, "Growing a league"):
bots and deals added to a league file play only the matches they add, the
earlier ones untouched; a removed bot leaves the standings and stays on
disk; anything else that changes is refused; and a grown league equals a
fresh league of its file, matched by (deal, table, seating)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.analysis.results import read_results
from bohnarena.cli import cli
from bohnarena.league.file import load_league
from bohnarena.rating import skill
from bohnarena.rating.skill import rank
from bohnarena.rating.stats import league_stats
from bohnarena.run.compare import compare_results
from bohnarena.run.dispatch import run_league
from bohnarena.store.audit import Auditor
from bohnarena.store.directory import RunDir
from tests.support.leagues import kill_9_when, run_until

BOTS = {"a": "planner", "b": "random", "c": "planner", "d": "planner"}


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


@pytest.mark.slow
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


@pytest.mark.slow
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
        (lambda t: t.replace('b = "random"', 'b = "trader"'), "bot 'b' is not the one"),
        (
            lambda t: t.replace('a = "planner"\nb = "random"', 'b = "random"\na = "planner"'),
            "before 'a'",
        ),
    ],
)
@pytest.mark.slow
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


@pytest.mark.slow
def test_a_changed_bot_source_is_refused_as_before(league, tmp_path):
    bot = tmp_path / "mine.py"
    bot.write_text("from bohnarena_bots.planner import PlannerBot as Mine\n")
    path = league(bots={**BOTS, "mine": f"{bot}:Mine"}, deals=1)
    run(path, tmp_path / "o")
    bot.write_text("from bohnarena_bots.planner import PlannerBot as Mine  # changed\n")
    grow(path, {**BOTS, "mine": f"{bot}:Mine", "e": "random"})
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert r.exit_code == 2 and "source of bot(s) mine changed" in r.output


@pytest.mark.slow
def test_run_json_records_every_bot_ever(grown):
    _, out, _, _ = grown
    meta = json.loads((out / "run.json").read_text())
    assert set(meta["bots"]) == {"a", "b", "c", "d", "e"}
    assert [g["bots"] for g in meta["generations"]] == [list(BOTS), [*BOTS, "e"]]


@pytest.mark.slow
def test_a_removed_bot_leaves_the_standings_and_stays_on_disk(grown, tmp_path):
    path, out, _, _ = grown
    without = {k: v for k, v in {**BOTS, "e": "random"}.items() if k != "c"}
    grow(path, without, deals=4)
    s = run(path, out)
    assert s.complete and s.played == 0 and s.done_before == 4 * 4 * 3  # C(4, 3) tables left
    assert "c" not in {r["bot"] for r in s.ranking.rows()}
    assert s.ranking.rows() == read_results(out).ranking.rows()  # rated afresh, in id order
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
    assert s.ranking.rows() == read_results(out).ranking.rows()


@pytest.mark.slow
def test_the_run_rates_a_grown_league_as_rank_does(grown):
    _, out, _, second = grown
    assert second.ranking is not None
    assert second.ranking.rows() == read_results(out).ranking.rows()


def count_ratings(monkeypatch):
    """The matches the parent rates with TrueSkill from now on."""
    rated = []
    real = skill.rate_table

    def counting(*args):
        rated.append(1)
        return real(*args)

    monkeypatch.setattr(skill, "rate_table", counting)
    return rated


@pytest.mark.slow
def test_growing_rates_only_the_added_matches(league, tmp_path, monkeypatch):
    path, out = league(bots=BOTS, deals=2), tmp_path / "out"
    assert run(path, out).complete
    grow(path, {**BOTS, "e": "random"}, deals=4)
    rated = count_ratings(monkeypatch)
    second = run(path, out)
    assert second.played == 96 and len(rated) == 96  # the kept curve's 24 go on as they were
    assert second.results is not None and len(second.results.curve.mu) == 120
    # what rating every match again in id order gives, to the last bit
    (out / "ratings.parquet").unlink()
    again = read_results(out)
    assert len(rated) == 96 + 120
    assert second.ranking is not None and second.ranking.rows() == again.ranking.rows()
    assert (second.results.curve.mu == again.curve.mu).all()
    assert (second.results.curve.sigma == again.curve.sigma).all()


@pytest.mark.slow
def test_a_removed_bot_or_a_stale_curve_rates_the_standings_again(league, tmp_path, monkeypatch):
    path, out = league(bots=BOTS, deals=2), tmp_path / "out"
    run(path, out)
    grow(path, {k: v for k, v in BOTS.items() if k != "d"}, deals=3)
    rated = count_ratings(monkeypatch)
    s = run(path, out)
    assert s.played == 3 and len(rated) == 3 * 3  # the matches of a, b and c: rated afresh
    assert s.ranking is not None and s.ranking.rows() == read_results(out).ranking.rows()
    grow(path, BOTS, deals=4)
    (out / "ratings.parquet").write_bytes(b"not a curve")
    rated.clear()
    s = run(path, out)
    assert s.played == 4 * 3 * 2 - 3 and len(rated) == 48


@pytest.mark.slow
def test_a_grown_run_stopped_and_resumed_rates_each_match_once(league, tmp_path, monkeypatch):
    path, out = league(bots=BOTS, deals=2, extra="[run]\nbatch_size = 2\n"), tmp_path / "out"
    run(path, out)
    grow(path, {**BOTS, "e": "random"}, deals=2)
    stopped, _ = run_until(path, out, 30, workers=2)
    assert stopped.stopped and not stopped.complete
    rated = count_ratings(monkeypatch)
    whole = run(path, out)
    # the stopped run kept the curve of what it finished: only the rest is rated
    assert whole.complete and whole.done_before > 24 and len(rated) == whole.played
    (out / "ratings.parquet").unlink()
    assert whole.ranking is not None and whole.ranking.rows() == read_results(out).ranking.rows()


@pytest.mark.slow
def test_shards_of_a_grown_league_merge_to_the_grown_league(league, grown, tmp_path):
    path, out, _, _ = grown
    first = path.with_name("first.toml")
    first.write_text((out / "league.1.toml").read_text())
    for k in (1, 2):
        shard = tmp_path / f"s{k}"
        run_league(first, shard, workers=1, progress=False, shard=(k, 2))
        s = run_league(path, shard, workers=1, progress=False, shard=(k, 2))
        assert s.complete and s.played == 48  # half of each generation's new matches
    r = CliRunner().invoke(
        cli, ["merge", str(tmp_path / "m"), str(tmp_path / "s1"), str(tmp_path / "s2")]
    )
    assert r.exit_code == 0, r.output
    merged = tmp_path / "m"
    drop = ["duration_s"]
    assert (
        pq.read_table(merged / "matches")
        .drop_columns(drop)
        .equals(pq.read_table(out / "matches").drop_columns(drop))
    )
    assert (merged / "league.1.toml").read_text() == (out / "league.1.toml").read_text()
    assert len(list((merged / "matches").glob("*.parquet"))) == 2  # a part per generation
    s = run(path, merged)
    assert s.complete and s.played == 0


@pytest.mark.slow
def test_merge_counts_the_standings_not_a_removed_bots_unplayed_matches(league, tmp_path):
    path, out = league(bots=BOTS, deals=2, extra="[run]\nbatch_size = 2\n"), tmp_path / "out"
    run(path, out)
    grow(path, {**BOTS, "e": "random"}, deals=2)
    assert run_until(path, out, 25, workers=2)[0].stopped
    grow(path, BOTS, deals=2)  # e leaves before its matches were all played
    s = run(path, out)
    assert s.complete and s.played == 0
    r = CliRunner().invoke(cli, ["merge", str(tmp_path / "m"), str(out)])
    assert r.exit_code == 0, r.output
    assert "merged 24 of 24 matches" in r.output and "to finish it" not in r.output


@pytest.mark.slow
def test_verify_all_report_and_compare_on_a_grown_league(grown, tmp_path):
    path, out, _, _ = grown
    for args in (["replay", str(out), "--verify-all", "-j", "1"], ["report", str(out)]):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 0, r.output
    assert (out / "report.html").stat().st_size > 0
    fresh = tmp_path / "fresh"
    run(path, fresh)
    # e (added) against a (there from the start): pairs across the generations
    found = [compare_results(str(d), "a", "e", None, "coins") for d in (out, fresh)]
    assert found[0].pairs == found[1].pairs > 0
    assert found[0].estimates() == found[1].estimates()


@pytest.mark.slow
def test_a_kill_during_a_grown_run_loses_and_duplicates_nothing(league, tmp_path):
    path = league(bots=BOTS, deals=2, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    run(path, out)
    before = rows(out)
    text = path.read_text().replace("deals = 2", "deals = 30")
    path.write_text(text + 'e = "random"\n')
    cmd = [sys.executable, "-m", "bohnarena", "run", str(path), "--out", str(out), "-j", "2"]
    kill_9_when(cmd, out, 4)
    done = RunDir(out).done_ids()
    total = 10 * 30 * 3
    assert 24 < len(done) < total
    r = subprocess.run([*cmd, "--no-report"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{total - len(done)} matches played now, {len(done)} before" in r.stdout
    after = rows(out)
    assert [m["match_id"] for m in after] == list(range(total))
    assert after[:24] == before
    moves = pq.read_table(out / "moves", columns=["match_id"])["match_id"].to_pylist()
    assert set(moves) == set(range(total))


@pytest.mark.parametrize("step", [1, 2, 3])
@pytest.mark.slow
def test_a_crash_while_the_growth_is_recorded_leaves_a_directory_that_grows_alike(
    league, tmp_path, monkeypatch, step
):
    """The growth's files are written one by one (the replaced league file,
    run.json, league.toml): a crash after any of them, and a run again, give
    the directory a growth without a crash gives."""
    import bohnarena.store.growing as growing
    import bohnarena.store.secret as secret

    path = league(bots=BOTS, deals=1)
    out, clean = tmp_path / "out", tmp_path / "clean"
    for d in (out, clean):
        run(path, d)
    grow(path, {**BOTS, "e": "random"}, deals=2)
    run(path, clean)
    real, writes = growing.write_text, []

    def dying(where, text):
        real(where, text)
        writes.append(where)
        if len(writes) == step:
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(growing, "write_text", dying)
        m.setattr(secret, "write_text", dying)  # (run.json is written through store/secret.py)
        with pytest.raises(KeyboardInterrupt):
            run(path, out)
    assert rank_json(out)["matches"] == 12  # a reader meanwhile: the first league's matches
    s = run(path, out)
    assert s.complete and s.played == len(rows(clean)) - 12
    assert [r["match_id"] for r in rows(out)] == [r["match_id"] for r in rows(clean)]
    keep = ("generations", "bots")
    assert {k: RunDir(out).meta()[k] for k in keep} == {k: RunDir(clean).meta()[k] for k in keep}
    assert sorted(p.name for p in out.glob("league*.toml")) == ["league.1.toml", "league.toml"]


def rank_json(out):
    r = CliRunner().invoke(cli, ["rank", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.slow
def test_compare_grown_by_an_opponent_reports_what_a_fresh_compare_does(tmp_path):
    def compare(out, *against):
        args = ["compare", "planner", "random", "-p", "3", "-n", "3", "-j", "1"]
        args += [*(a for name in against for a in ("--against", name)), "--no-progress"]
        r = CliRunner().invoke(cli, [*args, "--out", str(out)])
        assert r.exit_code == 0, r.output
        return r.output.splitlines()[1:]  # (the first: matches played now, before)

    compare(tmp_path / "grown", "planner", "y=planner")
    grown = compare(tmp_path / "grown", "planner", "y=planner", "x=random")  # 2 tables more
    assert grown == compare(tmp_path / "fresh", "planner", "y=planner", "x=random")
    assert "pairs of matches (0 unpaired matches)" in grown[0]


@pytest.mark.slow
def test_a_kept_curve_that_does_not_lead_is_not_ranked_on(league, tmp_path, monkeypatch):
    from bohnarena.rating.curvefile import Kept
    from bohnarena.rating.skill import Curve
    from bohnarena.run import dispatch

    path, out = league(bots=BOTS, deals=2), tmp_path / "out"
    run(path, out)
    grow(path, {**BOTS, "e": "random"}, deals=2)
    real = dispatch.rated_before

    def wrong(*args):  # as if the up-front check had let a foreign curve through
        kept = real(*args)
        assert kept is not None
        forged = Curve(kept.curve.mu + 1.0, kept.curve.sigma)
        return Kept(kept.bots, kept.match_ids + 1, forged)

    monkeypatch.setattr(dispatch, "rated_before", wrong)
    s = run(path, out)
    (out / "ratings.parquet").unlink()
    assert s.ranking is not None and s.ranking.rows() == read_results(out).ranking.rows()
