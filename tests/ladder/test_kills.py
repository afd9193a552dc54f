"""Kills and concurrency: a ladder run killed -9 resumes and loses and
duplicates no match; a submit killed -9 while its bot is checked leaves no
version behind (the next submit or run rejects it as interrupted); a
submit during a run joins the next run, never the one playing; two runs
cannot both write. Bots run as processes here (the run is what is tested;
tests/ladder/test_season.py plays the sandbox)."""

import os
import signal
import subprocess
import time

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.store.directory import RunDir
from tests.support.leagues import kill_9_when

from .builders import file_bot
from .conftest import LADDER, match_ids, run


def test_two_runs_cannot_both_write(field):
    keeper = RunDir(field)
    keeper.lock()
    try:
        r = run("ladder", "run", field)
    finally:
        keeper.close()
    assert r.exit_code == 2 and "another bohnarena run is using" in r.output
    assert not (field / "results").exists()


@pytest.mark.slow
def test_a_killed_ladder_run_resumes_and_loses_nothing(field):
    kill_9_when([*LADDER, "run", str(field), "-j", "1"], field / "results", 3)
    r = subprocess.run([*LADDER, "run", str(field)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ids = match_ids(field)
    assert sorted(ids) == list(range(24))  # 1 table x 4 rotations x 6 deals, each once
    assert [s.run for s in Catalog(field).history()] == [1] * 4


@pytest.mark.slow
def test_a_killed_submit_leaves_no_version(field, tmp_path):
    cmd = [*LADDER, "submit", str(field), "eve", file_bot(tmp_path, "Eve")]
    proc = subprocess.Popen(cmd, start_new_session=True, stderr=subprocess.DEVNULL)
    catalog = Catalog(field)
    deadline = time.time() + 60
    while time.time() < deadline and not catalog.versions("eve", ("validating",)):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    [left] = catalog.versions("eve")
    assert left.state == "validating"  # as the kill left it
    r = run("ladder", "run", field)  # finds it, rejects it, plays the four
    assert r.exit_code == 0, r.output
    left = catalog.get(left.id)
    assert left.state == "rejected" and "interrupted" in left.reason
    assert not (field / "bots" / left.hash).exists()
    assert [v.name for v in catalog.active()] == ["ann", "bob", "cy", "dee"]
    assert not list((field / "incoming").iterdir())


@pytest.mark.slow
def test_a_submit_during_a_run_joins_the_next_run(field, tmp_path):
    proc = subprocess.Popen(
        [*LADDER, "run", str(field), "-j", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    while not (field / "results" / "run.json").exists() and proc.poll() is None:
        time.sleep(0.05)
    r = run("ladder", "submit", field, "eve", file_bot(tmp_path, "Eve"))
    assert r.exit_code == 0, r.output
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert b"eve." not in out  # the run played the field as it was when it started
    assert sorted(match_ids(field)) == list(range(24))
    r = run("ladder", "run", field)
    # five at four seats: eve's four tables, 4 rotations, 6 deals
    assert r.exit_code == 0 and "96 matches played now" in r.output, r.output
    assert len(set(match_ids(field))) == len(match_ids(field)) == 24 + 96
