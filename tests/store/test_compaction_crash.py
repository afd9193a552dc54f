"""A run that dies during its final compaction (issue 11, point 6): at every
step, readers (rank, replay --verify-all, done_ids) count every match once,
and the next run tidies up."""

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import bohnarena.store.directory as store
from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store.directory import RunDir
from bohnarena.store.parts import Listing, Part

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them


class Died(Exception):
    pass


@pytest.fixture
def parts(league, tmp_path, monkeypatch):
    """A finished league whose batches were never compacted: (league file, directory)."""
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "parts"
    with monkeypatch.context() as m:
        m.setattr(store.RunDir, "compact", lambda self, first, last: None)
        run_league(path, out, workers=1, progress=False)
    assert len(list((out / "matches").glob("part-*"))) > 1
    return path, out


def die_at_step(monkeypatch, step):
    """Every write, rename and removal of a compaction is a step: the
    compaction raises Died right after step ``step``. Returns the count."""
    count = [0]

    def counted(fn):
        def wrapped(*a, **k):
            result = fn(*a, **k)
            count[0] += 1
            if count[0] == step:
                raise Died
            return result

        return wrapped

    monkeypatch.setattr(store.RunDir, "_merge", counted(store.RunDir._merge))
    monkeypatch.setattr(store.os, "replace", counted(os.replace))
    monkeypatch.setattr(Path, "unlink", counted(Path.unlink))
    return count


#: Steps of a compaction of the fixture's four parts: 1 the merged matches
#: file written, 2 the manifest's rewrite (the commit point), 3-6 the old
#: matches parts removed, 7 its rename, 8 the manifest's last rewrite (the
#: moves files stay as they are).
QUICK = [2, 3]


@pytest.mark.parametrize(
    "steps",
    [pytest.param(None, marks=pytest.mark.slow, id="every step"), pytest.param(QUICK, id="two")],
)
def test_readers_count_every_match_once_whatever_step_the_crash_hit(
    parts, tmp_path, monkeypatch, steps
):
    path, finished = parts
    n = len(RunDir(finished).done_ids())
    step = 0
    while True:
        step += 1
        if steps is not None and step > max(steps):
            break
        if steps is not None and step not in steps:
            continue
        out = tmp_path / f"died-{step}"
        shutil.copytree(finished, out)
        with monkeypatch.context() as m:
            count = die_at_step(m, step)
            try:
                RunDir(out).compact(0, n - 1)
            except Died:
                pass
        if count[0] < step:  # the compaction ran to its end before this step
            break
        rank = CliRunner().invoke(cli, ["rank", str(out), "--format", "json"])
        assert rank.exit_code == 0, (step, rank.output)
        ranking = json.loads(rank.output)
        assert sum(b["matches"] for b in ranking["bots"]) == 3 * n  # three seats, each once
        assert len(RunDir(out).done_ids()) == n
        if steps or step % 3 == 1:  # (a worker pool each: every third step)
            v = CliRunner().invoke(cli, ["replay", str(out), "--verify-all", "-j", "1"])
            assert v.exit_code == 0 and f"verified {n} matches" in v.output, (step, v.output)
        again = run_league(path, out, workers=1, progress=False)  # tidies up
        assert again.played == 0 and again.complete
        assert len(list((out / "matches").glob("part-*"))) == 1
        assert pq.read_table(out / "matches").num_rows == n == again.total
        assert not list(out.rglob(".tmp-*"))
    assert steps or step > 7  # the loop reached the compaction's end


def test_a_plain_reader_never_sees_a_match_twice_whatever_step_the_crash_hit(
    parts, tmp_path, monkeypatch
):
    """docs/logs.md invites plain readers of matches/: after a kill at any
    step of a compaction (the merged file written and renamed in, the parts
    it replaces not yet removed, above all), none reads a match twice."""
    _, finished = parts
    n = len(RunDir(finished).done_ids())
    for step in range(1, 9):
        out = tmp_path / f"died-{step}"
        shutil.copytree(finished, out)
        with monkeypatch.context() as m:
            die_at_step(m, step)
            try:
                RunDir(out).compact(0, n - 1)
            except Died:
                pass
        if not list((out / "matches").glob("part-*")):
            continue  # (none in place: it reads none, nor twice)
        ids = pq.read_table(out / "matches", columns=["match_id"])["match_id"].to_pylist()
        assert len(ids) == len(set(ids)), step


def test_a_reader_racing_a_compaction_reads_again(league, tmp_path, monkeypatch):
    path = league(deals=2)
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    real, calls = store.RunDir.listing, []

    def listing(self, check="cheap"):  # the first look lists a part a compaction then removes
        calls.append(check)
        found = real(self, check)
        if len(calls) > 1:
            return found
        gone = self.matches_dir / "part-000000000-000000000.parquet"
        return Listing([Part(gone.name, gone, None), *found.parts], found.generation, [])

    monkeypatch.setattr(store.RunDir, "listing", listing)
    r = CliRunner().invoke(cli, ["rank", str(out)])
    assert r.exit_code == 0 and len(calls) > 1, r.output
