"""A run that dies during its final compaction (issue 11, point 6): at every
step, readers (rank, replay --verify-all, done_ids) count every match once,
and the next run tidies up."""

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import bohnarena.store as store
from bohnarena.cli import cli
from bohnarena.runner import run_league
from bohnarena.store import RunDir


class Died(Exception):
    pass


@pytest.mark.parametrize("dies_after", [pytest.param("moves", marks=pytest.mark.slow), "matches"])
def test_readers_count_every_match_once_whatever_step_the_crash_hit(
    league, tmp_path, monkeypatch, dies_after
):
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    real_write, real_compact = store._atomic_write, store.RunDir.compact
    compacting = []

    def compact(self, first, last):
        compacting.append(True)
        real_compact(self, first, last)

    def write(target, fn):
        real_write(target, fn)
        if compacting and target.parent.name == dies_after:  # the file is in place, then death
            raise Died

    monkeypatch.setattr(store, "_atomic_write", write)
    monkeypatch.setattr(store.RunDir, "compact", compact)
    with pytest.raises(Died):
        run_league(path, out, workers=1, progress=False)
    monkeypatch.undo()
    total = json.loads(CliRunner().invoke(cli, ["rank", str(out), "--format", "json"]).output)
    parts = list((out / "matches").glob("part-*"))
    assert len(parts) > 1  # the crash left the old parts beside the new file
    n = len(RunDir(out).done_ids())
    assert sum(b["matches"] for b in total["bots"]) == 3 * n  # three seats a match, each once
    v = CliRunner().invoke(cli, ["replay", str(out), "--verify-all", "-j", "1"])
    assert v.exit_code == 0 and f"verified {n} matches" in v.output, v.output
    again = run_league(path, out, workers=1, progress=False)  # tidies up
    assert again.played == 0 and again.complete
    assert len(list((out / "matches").glob("part-*"))) == 1
    assert pq.read_table(out / "matches").num_rows == n == again.total


def test_a_reader_racing_a_compaction_reads_again(league, tmp_path, monkeypatch):
    path = league(deals=2)
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    real, calls = store.RunDir.live_parts, []

    def live_parts(self, d):  # the first look lists a part a compaction then removes
        calls.append(d)
        parts = real(self, d)
        return [*parts, d / "part-000000000-000000000.parquet"] if len(calls) == 1 else parts

    monkeypatch.setattr(store.RunDir, "live_parts", live_parts)
    r = CliRunner().invoke(cli, ["rank", str(out)])
    assert r.exit_code == 0 and len(calls) > 1, r.output
