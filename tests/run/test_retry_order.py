"""A match played again by a later run (it errored, or its row was lost)
lands in match-id order when the run is compacted, is logged once, and the
ranking is the one an uninterrupted run gives (issue 11, point 3)."""

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store.directory import RunDir
from tests.support.leagues import reseal

from .test_run import content

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them


def drop_match(out, match_id, moves_too):
    """The directory as a run that lost the match would have committed it."""
    for sub in ("matches", "moves") if moves_too else ("matches",):
        for part in (out / sub).glob("part-*.parquet"):
            t = pq.read_table(part)
            pq.write_table(t.filter(pc.not_equal(t["match_id"], match_id)), part)
    reseal(out)


@pytest.mark.parametrize(
    "moves_too",
    [pytest.param(True, id="errored"), pytest.param(False, id="row-lost", marks=pytest.mark.slow)],
)
def test_a_match_played_later_lands_in_order_and_once(league, tmp_path, moves_too):
    path = league(deals=3, extra="[run]\nbatch_size = 4\n")
    whole = run_league(path, tmp_path / "whole", workers=2, progress=False)
    out = tmp_path / "out"
    run_league(path, out, workers=2, progress=False)
    drop_match(out, 5, moves_too)
    again = run_league(path, out, workers=1, progress=False)
    assert again.played == 1 and again.complete
    ids = pq.read_table(out / "matches")["match_id"].to_pylist()
    assert ids == sorted(ids) == list(range(whole.total))
    a, b = content(tmp_path / "whole"), content(out)
    assert a[0].equals(b[0]) and a[1].equals(b[1])  # moves of match 5 once
    assert again.ranking.rows() == whole.ranking.rows()
    r = CliRunner().invoke(cli, ["replay", str(out), "--verify-all", "-j", "1"])
    assert r.exit_code == 0, r.output


def test_a_part_played_again_survives_an_interruption_before_compaction(league, tmp_path):
    path = league(deals=3, extra="[run]\nbatch_size = 4\n")
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    drop_match(out, 5, moves_too=True)
    store = RunDir(out)
    # The retry's part is committed, then the run dies before it compacts.
    whole = tmp_path / "whole"
    run_league(path, whole, workers=1, progress=False)
    t = pq.read_table(whole / "matches")
    m = pq.read_table(whole / "moves")
    store.commit(5, 5, t.filter(pc.equal(t["match_id"], 5)), m.filter(pc.equal(m["match_id"], 5)))
    store.clean()  # what the next open does
    assert store.done_ids() == set(range(9))


@pytest.mark.parametrize(
    "damage",
    ["truncated", *(pytest.param(d, marks=pytest.mark.slow) for d in ("garbage", "deleted"))],
)
def test_a_resume_replays_a_damaged_moves_part_instead_of_trusting_it(league, tmp_path, damage):
    path = league(deals=3, extra="[run]\nbatch_size = 4\n")
    out = tmp_path / "out"
    import bohnarena.store.directory as store_module
    from bohnarena.run.dispatch import run_league as run
    from bohnarena.store.directory import RunDir as Dir

    real = store_module.RunDir.compact
    store_module.RunDir.compact = lambda self, a, b: None  # keep the batch parts
    try:
        run(path, out, workers=1, progress=False)
    finally:
        store_module.RunDir.compact = real
    part = sorted((out / "moves").glob("part-*"))[1]
    if damage == "truncated":
        part.write_bytes(part.read_bytes()[:100])
    elif damage == "garbage":
        part.write_bytes(b"not parquet at all" * 10)
    else:
        part.unlink()
    again = run(path, out, workers=1, progress=False)
    assert again.played > 0 and again.complete  # that batch was played again
    r = CliRunner().invoke(cli, ["replay", str(out), "--verify-all", "-j", "1"])
    assert r.exit_code == 0, r.output
    assert Dir(out).done_ids() == set(range(again.total))
