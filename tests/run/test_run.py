"""Running leagues: results on disk, determinism across worker counts,
resume, dying workers and faults."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.bohnanza.game import Bohnanza
from bohnarena.bohnanza.textlayer import TEXT_VERSION
from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store.directory import RunDir
from tests.support.leagues import LONG_MATCHES, hostile, kill_9_when, long_league, reseal


def table(path, sub):
    return pq.read_table(Path(path) / sub)


def content(out):
    """Matches (without wall-clock durations) and moves of a run."""
    matches = table(out, "matches").sort_by("match_id").drop_columns(["duration_s"])
    moves = table(out, "moves").sort_by([("match_id", "ascending"), ("seq", "ascending")])
    return matches, moves


@pytest.mark.slow
def test_run_writes_matches_moves_ranking_and_frozen_league(league, tmp_path):
    path = league(deals=2)
    out = tmp_path / "out"
    s = run_league(path, out, workers=2, progress=False)
    assert s.complete and s.played == 6
    assert (out / "league.toml").read_text() == path.read_text()
    meta = json.loads((out / "run.json").read_text())
    assert set(meta["bots"]) == {"trader", "planner", "random"} and meta["bohnarena"]
    assert meta["text_version"] == TEXT_VERSION  # (docs/text-seats.md)
    m = table(out, "matches")
    assert m.num_rows == 6 and sorted(m.column("match_id").to_pylist()) == list(range(6))
    assert {
        "table",
        "deal",
        "rotation",
        "seed",
        "seats",
        "coins",
        "ranks",
        "winners",
        "turns",
        "faults",
        "duration_s",
    } <= set(m.column_names)
    moves = table(out, "moves")
    assert set(moves.column("match_id").to_pylist()) == set(range(6))
    for name in ("ranking.csv", "ranking.json", "ranking.md", "run.log", "errors.json"):
        assert (out / name).is_file()
    assert len(list((out / "matches").glob("*.parquet"))) == 1  # compacted when complete
    assert len(list((out / "moves").glob("*.parquet"))) > 1  # the moves where they were written
    assert not list(out.rglob(".tmp-*"))


@pytest.mark.slow
def test_workers_1_and_2_give_identical_matches_moves_and_ranking(league, tmp_path):
    path = league(deals=4, extra="[run]\nbatch_size = 2\n")
    one = run_league(path, tmp_path / "w1", workers=1, progress=False)
    two = run_league(path, tmp_path / "w2", workers=2, progress=False)
    a, b = content(tmp_path / "w1"), content(tmp_path / "w2")
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert one.ranking.rows() == two.ranking.rows()
    assert (tmp_path / "w1" / "ranking.csv").read_bytes() == (
        tmp_path / "w2" / "ranking.csv"
    ).read_bytes()


@pytest.mark.slow
def test_resume_plays_only_what_is_missing_and_counts_nothing_twice(league, tmp_path):
    path = league(deals=4, extra="[run]\nbatch_size = 1\n")
    out = tmp_path / "out"
    run_league(path, tmp_path / "whole", workers=2, progress=False)
    run_league(path, out, workers=1, progress=False)
    store = RunDir(out)
    (part,) = store.matches_dir.glob("*.parquet")
    full, moves = pq.read_table(part), pq.read_table(store.moves_dir)
    part.unlink()
    for side in ("moves", "timing"):
        for side_part in (out / side).glob("*.parquet"):
            side_part.unlink()
    reseal(out)

    # What a kill leaves: three committed batches, a batch killed between its
    # line in the manifest and its renames, one killed before its line (its
    # files under temporary names), and a half-written file.
    def one(t, i):
        return t.filter(pc.equal(t["match_id"], i))

    for i in (0, 1, 5, 9):
        store.commit(i, i, one(full, i), one(moves, i))
    for sub in ("matches", "moves"):
        name = "part-000000009-000000009.parquet"
        (out / sub / name).rename(out / sub / f".tmp-{name}")
    pq.write_table(one(moves, 7), store.moves_dir / ".tmp-part-000000007-000000007.parquet")
    pq.write_table(one(full, 7), store.matches_dir / ".tmp-part-000000007-000000007.parquet")
    (store.matches_dir / ".tmp-part-000000008-000000008.parquet").write_text("half")
    assert RunDir(out).done_ids() == {0, 1, 5, 9}  # a reader counts the batch whose line is in
    s = run_league(path, out, workers=2, progress=False)
    assert s.done_before == 4 and s.played == 8 and s.complete
    a, b = content(out), content(tmp_path / "whole")
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert len(set(a[0]["match_id"].to_pylist())) == a[0].num_rows == 12


@pytest.mark.slow
def test_resume_after_kill_9_of_the_whole_run(league, tmp_path):
    path = league(deals=60, players=3, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "bohnarena", "run", str(path), "--out", str(out), "-j", "2"]
    kill_9_when(cmd, out, 3)
    done = RunDir(out).done_ids()
    assert 0 < len(done) < 180
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{180 - len(done)} matches played now, {len(done)} before" in r.stdout
    ids = table(out, "matches")["match_id"].to_pylist()
    assert sorted(ids) == list(range(180))
    moves_ids = set(table(out, "moves")["match_id"].to_pylist())
    assert moves_ids == set(range(180))


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_the_run_resumes(league, tmp_path):
    path = long_league(league)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "bohnarena", "run", str(path), "--out", str(out), "-j", "2"]
    proc = subprocess.Popen(
        cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 60
    while time.time() < deadline and len(list((out / "matches").glob("part-*"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "run the same command again to resume" in err
    done = RunDir(out).done_ids()
    assert 0 < len(done) < LONG_MATCHES
    r = subprocess.run([*cmd, "--no-progress"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(table(out, "matches")["match_id"].to_pylist()) == list(range(LONG_MATCHES))


def test_two_runs_cannot_share_a_results_directory(league, tmp_path):
    from bohnarena.store.parts import ResultsError

    path = league(deals=1)
    first = RunDir(tmp_path / "o")
    first.open_for_run(
        path.read_text(), {"bots": {}, "log_format": 1, "rules_version": 1}, restart=False
    )
    try:
        with pytest.raises(ResultsError, match="another bohnarena run"):
            run_league(path, tmp_path / "o", workers=1, progress=False)
    finally:
        first.close()


def test_a_raising_bot_is_faulted_and_the_league_completes(league, tmp_path):
    path = league(bots={"planner": "planner", "raiser": hostile("RaiseAlways"), "random": "random"})
    s = run_league(path, tmp_path / "o", workers=1, progress=False)
    assert s.complete
    m = table(tmp_path / "o", "matches").to_pylist()
    for row in m:
        for seat, bot in enumerate(row["seats"]):
            assert (row["faults"][seat] > 0) == (bot == "raiser")
    rows = {r["bot"]: r for r in s.ranking.rows()}
    assert rows["raiser"]["faults"] > 0 and rows["planner"]["faults"] == 0
    # The run log keeps each distinct error's traceback, once per worker.
    logged = (tmp_path / "o" / "run.log").read_text()
    assert 'hostile_bots.py", line 19, in plant_second' in logged
    assert logged.count("in plant_second") == 1 and "RuntimeError: always" in logged


def test_an_engine_bug_errors_the_match_and_its_traceback_is_logged(league, tmp_path, monkeypatch):
    def broken(self, rules, seed, seats):
        raise ZeroDivisionError("engine bug")

    monkeypatch.setattr(Bohnanza, "play", broken)  # the forked workers inherit it
    s = run_league(league(deals=1), tmp_path / "o", workers=1, progress=False)
    assert not s.complete and len(s.errors) == 3
    logged = (tmp_path / "o" / "run.log").read_text()
    # (every line of a record after its first is indented: see untrusted.LogFormatter)
    assert (
        "Traceback" in logged and 'in broken\n      raise ZeroDivisionError("engine bug")' in logged
    )


@pytest.mark.slow
def test_changed_league_file_is_an_error_unless_restart(league, tmp_path):
    """A league grows by bots and deals (tests/league/test_growing.py); any
    other change is refused."""
    path = league(deals=1)
    out = tmp_path / "o"
    run_league(path, out, workers=1, progress=False)
    path.write_text(
        path.read_text().replace("deals = 1", "deals = 2").replace("seed = 5", "seed = 6")
    )
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "--no-progress"])
    assert r.exit_code == 2 and "seed changed" in r.output and "--restart" in r.output
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "--restart", "--no-progress"])
    assert r.exit_code == 0 and "6 matches played now, 0 before" in r.output


@pytest.mark.slow
def test_rank_command_and_trueskill_order(league, tmp_path):
    path = league(deals=6)
    run_league(path, tmp_path / "o", workers=2, progress=False)
    r = CliRunner().invoke(cli, ["rank", str(tmp_path / "o"), "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    order = [b["bot"] for b in data["bots"]]
    assert order[0] == "trader" and order[-1] == "random"  # trader > planner > random
    assert data["bots"][0]["score"] > data["bots"][1]["score"]
    assert len(data["seats"]) == 3 and sum(s["wins"] for s in data["seats"]) >= data["matches"]


@pytest.mark.slow
def test_parquet_reads_in_pandas_polars_and_duckdb(league, tmp_path):
    import duckdb
    import pandas as pd
    import polars as pl

    run_league(league(deals=1), tmp_path / "o", workers=1, progress=False)
    out = tmp_path / "o"
    assert len(pd.read_parquet(out / "matches")) == 3
    assert pl.read_parquet(str(out / "moves" / "*.parquet")).height > 100
    n = duckdb.sql(
        f"select count(*) from read_parquet('{out}/moves/*.parquet') "
        f"where match_id = 1 and kind = 'harvested'"
    ).fetchall()[0][0]
    assert n > 0


@pytest.mark.slow
def test_identical_bots_rate_alike_and_above_random(league, tmp_path):
    path = league(
        players=3,
        deals=25,
        bots={
            "planner": "planner",
            "random": "random",
            "planner-b": "planner",
            "random-b": "random",
        },
    )
    s = run_league(path, tmp_path / "o", workers=2, progress=False)
    score = {r["bot"]: r["score"] for r in s.ranking.rows()}
    gap = min(score["planner"], score["planner-b"]) - max(score["random"], score["random-b"])
    assert gap > 0
    assert abs(score["planner"] - score["planner-b"]) < gap


def test_trueskill_rates_unbroken_ties_as_draws_and_orders_by_place():
    from bohnarena.rating.skill import rank

    def row(seats, ranks):
        return {
            "seats": seats,
            "ranks": ranks,
            "coins": [5, 5, 1],
            "winners": [s for s, r in enumerate(ranks) if r == 1],
            "faults": [0, 0, 0],
        }

    tied = rank([row(["a", "b", "c"], [1, 1, 3])] * 20, ["a", "b", "c"])
    by = {s.bot: s for s in tied.standings}
    assert abs(by["a"].mu - by["b"].mu) < 0.01 and by["a"].mu > by["c"].mu + 5
    assert by["a"].wins == by["b"].wins == 20  # a shared first place is a win for both
    ordered = rank([row(["a", "b", "c"], [1, 2, 3])] * 20, ["c", "b", "a"])
    assert [s.bot for s in ordered.standings] == ["a", "b", "c"]


def test_the_run_command_parses_the_league_once(league, tmp_path, monkeypatch):
    import bohnarena.league.file as league_file
    import bohnarena.run.dispatch as dispatch

    calls = []
    parse = league_file.load_league

    def counted(*args, **kwargs):
        calls.append(args)
        return parse(*args, **kwargs)

    monkeypatch.setattr(league_file, "load_league", counted)
    monkeypatch.setattr(dispatch, "load_league", counted)
    path = league(deals=1)
    result = CliRunner().invoke(
        cli, ["run", str(path), "-o", str(tmp_path / "o"), "-j", "1", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    assert len(calls) == 1
