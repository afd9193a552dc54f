"""Rating keeps up with the playing (issue 15, part 6): matches are rated in
id order as they finish, and the ranking equals the serial pass over the
finished directory; reading a directory streams in bounded memory."""

import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bohnarena.analysis.results import COLUMNS as RESULTS_COLUMNS
from bohnarena.league.file import load_league
from bohnarena.rating.skill import RANK_COLUMNS, rank
from bohnarena.run.dispatch import run_league
from bohnarena.run.inorder import COLUMNS, InOrder
from bohnarena.store.audit import COLUMNS as AUDIT_COLUMNS
from bohnarena.store.audit import Auditor
from bohnarena.store.directory import RunDir
from bohnarena.store.logbook import matches_table
from bohnarena.store.parts import part_name
from tests.support.leagues import run_until


def row(i):
    return {
        "match_id": i,
        "table": 0,
        "deal": i,
        "rotation": 0,
        "seed": 1,
        "seats": ["a", "b"],
        "coins": [i % 3, 1],
        "ranks": [1, 2],
        "winners": [0],
        "turns": 1,
        "faults": [0, 0],
        "duration_s": 0.0,
    }


def test_batches_arriving_in_any_order_are_followed_in_id_order():
    for seed in range(20):
        rng = random.Random(seed)
        ids = list(range(60))
        stored = sorted(rng.sample(ids, 15))
        pending = [i for i in ids if i not in stored]
        runs, run = [], []
        for i in pending:  # consecutive ids, at most 4 long (runner.batches)
            if run and (len(run) == 4 or i != run[-1] + 1):
                runs.append(run)
                run = []
            run.append(i)
        runs.append(run)
        lost = set(rng.sample(range(len(runs)), 2))  # failed twice: never arrive
        seen: list[int] = []
        inorder = InOrder(lambda r, seen=seen: seen.append(r["match_id"]), iter(map(row, stored)))
        for r in runs:
            inorder.expect(r[0])
        order = list(range(len(runs)))
        rng.shuffle(order)
        for k in order:
            table = None if k in lost else matches_table([row(i) for i in runs[k]])
            inorder.arrive(runs[k][0], table)
        inorder.finish()
        expected = sorted([*stored, *(i for k, r in enumerate(runs) if k not in lost for i in r)])
        assert seen == expected and inorder.waiting == 0


def serial_ranking(out):
    store = RunDir(out)
    league = load_league(out / "league.toml")
    auditor = Auditor.for_run(league, store.meta())
    return rank(
        auditor.audited(store.iter_matches([*RANK_COLUMNS, *AUDIT_COLUMNS])), list(league.bots)
    )


@pytest.mark.slow
def test_the_ranking_rated_during_the_run_is_the_serial_pass(league, tmp_path):
    path = league(deals=6, extra="[run]\nbatch_size = 1\n")  # 18 batches, out of order
    out = tmp_path / "out"
    whole = run_league(path, out, workers=2, progress=False, moves=False)
    assert whole.ranking.to_csv() == serial_ranking(out).to_csv()
    assert whole.ranking.to_json() == serial_ranking(out).to_json()
    # A resume fills gaps between matches it rates from the directory.
    (part,) = (out / "matches").glob("*.parquet")
    table = pq.read_table(part)
    part.unlink()
    for lo, hi in ((0, 2), (5, 9), (14, 14)):
        keep = table.filter(
            pc.and_(pc.greater_equal(table["match_id"], lo), pc.less_equal(table["match_id"], hi))
        )
        RunDir(out).commit(lo, hi, keep, None)
    again = run_league(path, out, workers=2, progress=False, moves=False)
    assert again.done_before == 9 and again.played == 9
    assert again.ranking.to_csv() == whole.ranking.to_csv() == serial_ranking(out).to_csv()


@pytest.mark.slow
def test_a_run_stopped_by_its_follower_is_ranked_as_far_as_it_got(league, tmp_path):
    path = league(deals=10, extra="[run]\nbatch_size = 2\n")
    out = tmp_path / "out"
    s, rows = run_until(path, out, 6, moves=False)
    seen = [r["match_id"] for r in rows]
    assert s.stopped and not s.complete and 6 <= s.played < 30
    assert seen == list(range(s.played)) and set(COLUMNS) <= set(RESULTS_COLUMNS)
    assert s.ranking.to_csv() == serial_ranking(out).to_csv()


@pytest.mark.slow
def test_reading_a_directory_holds_a_record_batch_not_the_table(tmp_path):
    store = RunDir(tmp_path)
    store.matches_dir.mkdir()
    n = 40_000
    store.commit(0, n - 1, matches_table([row(i) for i in range(n)]), None)
    size = pq.read_table(store.matches_dir / part_name(0, n - 1)).nbytes
    pool = pa.default_memory_pool()
    base, peak, count = pool.bytes_allocated(), 0, 0
    for _ in store.iter_matches(RANK_COLUMNS, chunk=1024):
        count += 1
        if count % 1000 == 0:
            peak = max(peak, pool.bytes_allocated() - base)
    assert count == n and peak < size / 4, (peak, size)
