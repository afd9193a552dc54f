"""The think times a run sums up as its matches finish (issue 23, part 2):
its workers hand each batch's summary to the run with the matches, so the
report at the end of the run reads no timing file, and its figures are
those every timing file gives (a resumed run's earlier matches read from
their files; a directory of an older run, or `report` on it, reads them all)."""

import numpy as np
import pyarrow as pa
import pytest

from bohnarena.analysis import thinking as thinking_module
from bohnarena.analysis.results import read_results
from bohnarena.analysis.thinking import Thinking, Timings, batch_timed, thinking
from bohnarena.run.dispatch import run_league
from bohnarena.store.reading import RunReader
from tests.support.leagues import run_until


def same(a: Thinking, b: Thinking) -> None:
    assert a.bots == b.bots and a.timed_matches == b.timed_matches
    assert np.array_equal(a.histogram, b.histogram)
    assert np.array_equal(a.longest, b.longest)
    assert [x.tolist() for x in a.per_match] == [x.tolist() for x in b.per_match]


def from_files(out) -> Thinking:
    r = read_results(out)
    return thinking(RunReader(out).listing().require(), r.matches)


def reads_no_timing_file(monkeypatch) -> list:
    read: list = []

    def counting(path, **options):
        read.append(path)
        return thinking_module.read_table.__wrapped__(path, **options)

    counting.__wrapped__ = thinking_module.read_table  # type: ignore[attr-defined]
    monkeypatch.setattr(thinking_module, "read_table", counting)
    return read


@pytest.mark.slow
def test_the_runs_summaries_give_the_timing_files_figures(league, tmp_path, monkeypatch):
    path = league(deals=2, extra="[run]\nbatch_size = 4\n")
    out = tmp_path / "out"
    summary = run_league(path, out, workers=1, progress=False)
    assert summary.complete and summary.results is not None
    r = summary.results
    assert r.timings is not None  # summed up from the workers' batches
    read = reads_no_timing_file(monkeypatch)
    ran = thinking(RunReader(out).listing().require(), r.matches, r.timings)
    assert read == []  # the run's end reads no timing file
    expected = from_files(out)
    assert len(read) == len(list((out / "timing").iterdir())) > 1  # every batch's file
    same(ran, expected)
    assert ran.timed_matches == r.matches.n


@pytest.mark.slow
def test_a_resumed_run_reads_the_files_of_the_matches_it_did_not_play(
    league, tmp_path, monkeypatch
):
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    first, _ = run_until(path, out, 3)  # a batch or two
    before = sorted((out / "timing").iterdir())
    summary = run_league(path, out, workers=1, progress=False)
    assert summary.complete and 0 < summary.played == summary.total - first.played
    r = summary.results
    assert r is not None and r.timings is not None
    read = reads_no_timing_file(monkeypatch)
    ran = thinking(RunReader(out).listing().require(), r.matches, r.timings)
    assert read == before  # the files of the matches the first run played
    same(ran, from_files(out))


def test_a_batch_summary_counts_only_the_matches_of_its_table():
    matches = pa.table({"match_id": [7, 5], "seats": [["a", "b"], ["b", "c"]]})
    timing = pa.table(
        {
            "match_id": pa.array([5, 5, 5, 7, 9], pa.int64()),  # 9: no row (an errored match)
            "seat": pa.array([0, 1, 1, 0, 0], pa.int32()),
            "micros": pa.array([10, 20, 30, 40, 50], pa.int32()),
        }
    )
    t = batch_timed(matches, timing)
    assert t.bots == ["a", "b", "c"]
    assert t.match_id.tolist() == [5, 7] and t.spent.tolist() == [[10, 50], [40, 0]]
    assert t.longest.tolist() == [40, 10, 30]
    merged = Timings(["c", "b", "a", "d"])  # the league's order: other bots too
    merged.add(t)
    merged.add(t)
    assert merged.histogram.reshape(4, -1).sum(axis=1).tolist() == [4, 2, 2, 0]
    assert merged.longest.tolist() == [30, 10, 40, 0]


@pytest.mark.slow
@pytest.mark.parametrize("stale", [True, False])
def test_a_summary_of_other_matches_is_not_trusted(league, tmp_path, stale):
    """A summary of a match the standings do not hold (or none at all):
    the figures come from the files."""
    path = league(deals=1, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    r = read_results(out)
    foreign = Timings(list(r.matches.bots))
    if stale:
        foreign.add(
            batch_timed(
                pa.table({"match_id": [99], "seats": [list(r.matches.bots)]}),
                pa.table(
                    {
                        "match_id": pa.array([99], pa.int64()),
                        "seat": pa.array([0], pa.int32()),
                        "micros": pa.array([123], pa.int32()),
                    }
                ),
            )
        )
    listing = RunReader(out).listing().require()
    same(thinking(listing, r.matches, foreign), from_files(out))
