"""How a batch's logs reach the run: written by its worker (a worker on
every core), or sent back as tables or as records for the run to write;
the same files every way."""

import os
import pickle
from itertools import islice
from multiprocessing.reduction import ForkingPickler

import pyarrow.parquet as pq
import pytest

from bohnarena.league.file import load_league
from bohnarena.league.schedule import schedule
from bohnarena.run import worker
from bohnarena.run.execution import LocalPool
from bohnarena.store.directory import RunDir
from bohnarena.store.parts import part_name

TABLES = ("matches", "moves", "timing")


def sent(result):
    """``result`` as a pool's worker sends it, and the run receives it."""
    return worker.built(pickle.loads(ForkingPickler.dumps(result)))


def results_dir(path):
    for table in TABLES:
        (path / table).mkdir(parents=True)
    return RunDir(path)


@pytest.fixture
def task(league, tmp_path):
    spec = load_league(league(deals=2))
    matches = tuple(islice(schedule(list(spec.bots), 3, 2, spec.seed), 6))

    def make(hand_over, spool=None):
        return worker.BatchTask(
            spec.game, spec.edition, 3, spec.rules, spec.bots, matches, True,
            None if spool is None else str(spool), hand_over=hand_over,
        )  # fmt: skip

    return make


def test_tables_sent_back_are_written_as_their_worker_writes_them(task, tmp_path):
    played = worker.play_batch(task("tables"))  # (think times differ play to play: one play)
    spooled, run = results_dir(tmp_path / "spooled"), results_dir(tmp_path / "run")
    files = spooled.spool("0-5", played.matches, played.moves, played.timing)  # as a worker does
    back = sent(played)
    assert back.played == 6 and back.errors == []
    assert back.timed is not None and back.timed.match_id.tolist() == list(range(6))
    run.commit(0, 5, back.matches, back.moves, back.timing)
    assert files[3] is None  # (no seat plays in words: no exchanges file)
    for table, file in zip(TABLES, files[:3], strict=True):
        assert file is not None
        assert (run.table_dir(table) / part_name(0, 5)).read_bytes() == file.read_bytes()


def test_records_handed_over_give_the_tables_and_files_a_worker_makes(task, tmp_path):
    own = worker.play_batch(task("files", results_dir(tmp_path / "spooled").path))
    handed = worker.play_batch(task("records", results_dir(tmp_path / "run").path))
    assert handed.moves is None and handed.timing is None and handed.unbuilt is not None
    back = sent(handed)
    assert back.unbuilt is None and back.timed is not None and back.played == 6
    RunDir(tmp_path / "run").commit(0, 5, back.matches, back.moves, back.timing)
    written = tmp_path / "run" / "moves" / part_name(0, 5)
    assert written.read_bytes() == own.moves.read_bytes()
    for table, wall_clock in (("matches", "duration_s"), ("timing", "micros")):
        ours = pq.read_table(tmp_path / "run" / table / part_name(0, 5))
        theirs = pq.read_table(getattr(own, table))
        assert ours.schema == theirs.schema
        assert ours.drop_columns([wall_clock]).equals(theirs.drop_columns([wall_clock]))
    assert back.timed.match_id.tolist() == own.timed.match_id.tolist() == list(range(6))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs sched_getaffinity")
def test_workers_write_their_own_files_only_with_a_worker_on_every_core():
    cores = len(os.sched_getaffinity(0))
    for workers in (cores, cores + 1, None):
        assert LocalPool(workers or 0).hand_over == "files"
    assert LocalPool(cores - 1).hand_over == ("records" if cores > 1 else "files")
