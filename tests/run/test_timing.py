"""Each answer's think time, in timing files of its own (issue 27, part 6):
every answer a bot gave has one, the moves stay as they were, an older
format's results read and grow across the bump, and the report's figures
are the timing files'."""

import json
import shutil
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena import __version__
from bohnarena.analysis.results import read_results
from bohnarena.analysis.thinking import thinking
from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store import manifest
from bohnarena.store.logbook import LOG_FORMAT, TIMING_SCHEMA
from bohnarena.store.reading import RunReader
from tests.conftest import sandboxed
from tests.support.leagues import hostile, reseal

SLOW = textwrap.dedent("""\
    import time
    from bohnarena_bots.planner import PlannerBot

    class Slow(PlannerBot):
        def plant_second(self, view):
            time.sleep(0.02)
            return super().plant_second(view)
    """)


def timing(out):
    return pq.read_table(out / "timing")


def decisions(out):
    """Every decision record: {(match_id, seq): (seat, kind, how)}."""
    moves = pq.read_table(out / "moves", columns=["match_id", "seq", "kind", "seat", "how"])
    moves = moves.filter(pc.is_valid(moves["how"]))
    return {(r["match_id"], r["seq"]): (r["seat"], r["kind"], r["how"]) for r in moves.to_pylist()}


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.slow
def test_every_answer_a_bot_gave_has_its_think_time(league, tmp_path):
    path = league(deals=2)
    out = tmp_path / "out"
    assert run_league(path, out, workers=2, progress=False).complete
    t = timing(out)
    assert t.schema.equals(TIMING_SCHEMA)
    found = decisions(out)
    rows = t.to_pylist()
    by_bot = {k for k, (_, _, how) in found.items() if how == "bot"}
    assert {(r["match_id"], r["seq"]) for r in rows} == by_bot  # each once (in process: no pairs)
    assert len(rows) == len(by_bot)
    for r in rows:  # the row names the record's seat and decision
        assert found[r["match_id"], r["seq"]][:2] == (r["seat"], r["decision"])
    assert all(r["micros"] >= 0 for r in rows)
    # the moves are the same in a run on one worker; only the times differ
    again = tmp_path / "again"
    run_league(path, again, workers=1, progress=False)
    assert pq.read_table(again / "moves").equals(pq.read_table(out / "moves"))
    keys = ["match_id", "seq", "seat", "decision"]
    assert timing(again).select(keys).equals(t.select(keys))


@pytest.mark.slow
def test_think_time_is_the_bots_and_the_report_shows_it(league, tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    path = league(deals=2, bots={"slow": f"{tmp_path / 'slow.py'}:Slow", "planner": "planner"})
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    rows = timing(out).to_pylist()
    matches = {r["match_id"]: r["seats"] for r in pq.read_table(out / "matches").to_pylist()}
    slow = [r for r in rows if matches[r["match_id"]][r["seat"]] == "slow"]
    asked = [r["micros"] for r in slow if r["decision"] == "plant_second"]
    assert asked and min(asked) >= 20_000
    others = [r["micros"] for r in rows if r["decision"] == "plant_second" and r not in slow]
    assert others and np.median(others) < 20_000
    report = tmp_path / "r.html"
    assert invoke("report", out, "-o", report).exit_code == 0
    html = report.read_text()
    assert "decision time (median / p99 / max)" in html and "have them" in html
    assert f"{max(asked) / 1000:.1f} ms" in html  # slow's slowest answer, exactly


def test_a_faulted_answer_is_timed_on_the_default_played_for_it(league, tmp_path):
    path = league(deals=1, bots={"raiser": hostile("RaiseAlways"), "planner": "planner"})
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    found = decisions(out)
    faulted = [r for r in timing(out).to_pylist() if found[r["match_id"], r["seq"]][2] == "default"]
    assert faulted and {r["decision"] for r in faulted} <= {"plant_second", "plant"}
    moves = pq.read_table(out / "moves").to_pylist()
    where = {(r["match_id"], r["seq"]): r for r in moves}
    for r in faulted:  # the fault record is right before the default it explains
        before = where[r["match_id"], r["seq"] - 1]
        assert before["kind"] in ("fault", "forfeit") and before["seat"] == r["seat"]


@pytest.mark.slow
def test_the_report_figures_are_the_timing_files(league, tmp_path):
    path = league(deals=3)
    out = tmp_path / "out"
    run_league(path, out, workers=2, progress=False)
    r = read_results(out)
    m = r.matches
    think = thinking(RunReader(out).listing().require(), m)
    t = timing(out).to_pylist()
    seats = {row["match_id"]: row["seats"] for row in pq.read_table(out / "matches").to_pylist()}
    assert think.timed_matches == m.n
    for i, bot in enumerate(m.bots):
        mine = np.array([x["micros"] for x in t if seats[x["match_id"]][x["seat"]] == bot])
        assert think.decisions(i) == len(mine) and think.longest[i] == mine.max()
        for q in (0.5, 0.99):
            exact = np.quantile(mine, q, method="inverted_cdf")
            assert abs(think.quantile(i, q) - exact) <= exact / 64 + 1e-9, (bot, q)
        spent: dict = {}
        for x in t:
            if seats[x["match_id"]][x["seat"]] == bot:
                key = (x["match_id"], x["seat"])
                spent[key] = spent.get(key, 0) + x["micros"]
        assert sorted(think.per_match[i].tolist()) == sorted(spent.values())


def as_format_3(out):
    """``out`` as bohnarena wrote it before timing (log format 3, manifest 2)."""
    shutil.rmtree(out / "timing")
    meta = json.loads((out / "run.json").read_text())
    meta = {k: v for k, v in meta.items() if k != "untimed"}  # (kept since format 4)
    (out / "run.json").write_text(json.dumps({**meta, "log_format": 3, "manifest": 2}))
    reseal(out)
    text = (out / manifest.NAME).read_text()
    head, rest = text.split("\n", 1)
    (out / manifest.NAME).write_text(json.dumps({**json.loads(head), "manifest": 2}) + "\n" + rest)


@pytest.mark.slow
def test_a_format_3_run_reads_and_grows_across_the_bump(league, tmp_path):
    out = tmp_path / "out"
    run_league(league(deals=2), out, workers=1, progress=False)
    as_format_3(out)
    moves_before = pq.read_table(out / "moves")
    assert invoke("rank", out).exit_code == 0
    assert invoke("replay", out, "--verify-all", "-j", "1").exit_code == 0
    assert invoke("report", out, "-o", tmp_path / "old.html").exit_code == 0
    assert "These results have no timing files" in (tmp_path / "old.html").read_text()
    grown = run_league(league(deals=4), out, workers=1, progress=False)
    assert grown.played == 6 and grown.complete
    assert json.loads((out / "run.json").read_text())["log_format"] == LOG_FORMAT
    ids = set(timing(out)["match_id"].to_pylist())
    assert ids == set(range(6, 12))  # the matches this version played
    moves = pq.read_table(out / "moves")
    old = moves.filter(pc.less(moves["match_id"], 6)).sort_by([("match_id", "ascending")])
    assert old.equals(moves_before.sort_by([("match_id", "ascending")]))
    assert invoke("report", out, "-o", tmp_path / "new.html").exit_code == 0
    assert "(6 of 12 matches have them)" in (tmp_path / "new.html").read_text()
    assert invoke("replay", out, "--verify-all", "-j", "1").exit_code == 0
    # the moves files written before timing are named as such: any other
    # without its timing file lost it
    untimed = json.loads((out / "run.json").read_text())["untimed"]
    assert untimed == sorted(
        p.name for p in (out / "moves").glob("part-*") if p.name < "part-000000006"
    )
    newer = next(p for p in (out / "timing").glob("part-*"))
    newer.unlink()
    reseal(out)
    verify = invoke("replay", out, "--verify-all", "-j", "1")
    assert verify.exit_code == 1 and "has no think times" in verify.output


@pytest.mark.slow
def test_another_log_format_is_refused_in_one_line(league, tmp_path):
    out = tmp_path / "out"
    run_league(league(deals=1), out, workers=1, progress=False)
    meta = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**meta, "log_format": 2}))
    r = invoke("rank", out)
    assert r.exit_code == 2 and len(r.output.splitlines()) == 1
    assert f"log format 2; this bohnarena {__version__} reads format 3, 4 and 5" in r.output


@pytest.mark.slow
def test_a_damaged_timing_file_plays_its_matches_again(league, tmp_path):
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    victim = out / "timing" / "part-000000003-000000005.parquet"
    victim.write_bytes(victim.read_bytes()[:100])  # truncated
    assert invoke("rank", out).exit_code == 2  # a reader refuses it by name
    s = run_league(path, out, workers=1, progress=False)
    assert s.played == 3 and s.complete
    ids = timing(out)["match_id"].to_pylist()
    keys = list(zip(ids, timing(out)["seq"].to_pylist(), strict=True))
    assert sorted(set(ids)) == list(range(12)) and len(set(keys)) == len(keys)
    assert invoke("replay", out, "--verify-all", "-j", "1").exit_code == 0


COMMAND = textwrap.dedent("""\
    import json, sys, time
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            print(json.dumps({"decisions": ["plant_second", "plant"]}), flush=True)
        elif msg["type"] == "decide":
            if msg["decision"] == "plant_second":
                time.sleep(0.02)
            print(json.dumps({"answer": msg["default"]}), flush=True)
    """)


@sandboxed
def test_bots_in_every_isolation_are_timed(league, tmp_path):
    (tmp_path / "cmdbot").mkdir()
    (tmp_path / "cmdbot" / "cmd.py").write_text(COMMAND)
    bots = {
        "inprocess": "planner",
        "process": '{ spec = "planner", isolation = "process" }',
        "sandboxed": '{ spec = "planner", isolation = "sandbox" }',
        "command": '{ command = ["python3", "cmdbot/cmd.py"], dir = "cmdbot" }',
    }
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "l"\nedition = "classic"\nplayers = 4\ndeals = 1\nseed = 3\n[bots]\n'
        + "".join(f"{k} = {v if v.startswith('{') else repr(v)}\n" for k, v in bots.items())
    )
    out = tmp_path / "out"
    assert run_league(path, out, workers=1, progress=False).complete
    found = decisions(out)
    seats = {r["match_id"]: r["seats"] for r in pq.read_table(out / "matches").to_pylist()}
    rows = timing(out).to_pylist()
    for r in rows:
        assert found[r["match_id"], r["seq"]][:2] == (r["seat"], r["decision"])
    timed = {name: [] for name in bots}
    for r in rows:
        timed[seats[r["match_id"]][r["seat"]]].append(r)
    assert all(timed.values()), {k: len(v) for k, v in timed.items()}
    slow = [r["micros"] for r in timed["command"] if r["decision"] == "plant_second"]
    assert slow and min(slow) >= 20_000
    # an answer a seat out of process gave has a time, or came with the window before it
    for (match_id, seq), (seat, _, how) in found.items():
        if how == "bot" and not any(r["match_id"] == match_id and r["seq"] == seq for r in rows):
            before = found.get((match_id, seq - 1))
            assert before is not None and before[:2] == (seat, "anytime"), (match_id, seq)


@pytest.mark.slow
def test_timing_rows_read_in_duckdb_with_their_bot(league, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "out"
    run_league(league(deals=1), out, workers=1, progress=False)
    got = duckdb.sql(
        f"select m.seats[t.seat + 1] as bot, count(*) as n "
        f"from read_parquet('{out}/timing/*.parquet') t "
        f"join read_parquet('{out}/matches/*.parquet') m using (match_id) group by bot"
    ).fetchall()
    assert sum(n for _, n in got) == timing(out).num_rows
    assert {b for b, _ in got} == {"trader", "planner", "random"}
    assert pa.types.is_int32(timing(out).schema.field("micros").type)
