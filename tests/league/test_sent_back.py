"""Tables sent back to the run (a cluster without a shared disk, a batch
played again in a process of its own) are written as their worker would
write them."""

import pickle
from itertools import islice
from multiprocessing.reduction import ForkingPickler

from bohnarena.league.file import load_league
from bohnarena.league.schedule import schedule
from bohnarena.run import worker
from bohnarena.store.directory import RunDir
from bohnarena.store.parts import part_name

TABLES = ("matches", "moves", "timing")


def test_tables_sent_back_are_written_as_their_worker_writes_them(league, tmp_path):
    spec = load_league(league(deals=2))
    matches = tuple(islice(schedule(list(spec.bots), 3, 2, spec.seed), 6))
    task = worker.BatchTask(spec.game, spec.edition, 3, spec.rules, spec.bots, matches)
    played = worker.play_batch(task)  # (think times differ play to play: one play, both ways)
    spooled, run = RunDir(tmp_path / "spooled"), RunDir(tmp_path / "run")
    for out in (spooled, run):
        for table in TABLES:
            out.table_dir(table).mkdir(parents=True)
    files = spooled.spool("0-5", played.matches, played.moves, played.timing)  # as a worker does
    back = pickle.loads(ForkingPickler.dumps(played))  # as a pool's worker sends it
    assert back.played == 6 and back.errors == []
    assert back.timed is not None and back.timed.match_id.tolist() == list(range(6))
    run.commit(0, 5, back.matches, back.moves, back.timing)
    for table, file in zip(TABLES, files, strict=True):
        assert file is not None
        assert (run.table_dir(table) / part_name(0, 5)).read_bytes() == file.read_bytes()
