"""A ladder run audits every row it goes on from, before it plays: it
once audited only the parts an audited.json did not name, which a forger
rewrites with the part and its manifest line (issue 43); a part edited
since, its manifest line forged to match, is refused."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bohnarena.store.audit import Auditor
from tests.support.leagues import reseal

from .builders import file_bot
from .conftest import join, run, run_ok


@pytest.fixture
def audited(monkeypatch):
    """The match ids whose rows are audited (in this process: the run's parent)."""
    seen = []
    real = Auditor.problem

    def problem(self, row):
        seen.append(row["match_id"])
        return real(self, row)

    monkeypatch.setattr(Auditor, "problem", problem)
    return seen


@pytest.mark.slow
def test_a_ladder_run_audits_every_row_it_holds(processes, tmp_path, audited):
    run_ok(processes, 8, 0)
    assert audited == []  # nothing on disk before it
    run_ok(processes, 0, 8)
    assert sorted(audited) == list(range(8))
    audited.clear()
    join(processes, "eve", file_bot(tmp_path, "Bot4"))
    run_ok(processes, 32, 8)  # eve's 4 new tables
    assert sorted(audited) == list(range(8))  # what it went on from
    audited.clear()
    run_ok(processes, 0, 40)
    assert sorted(audited) == list(range(40))


@pytest.mark.slow
def test_an_audited_part_edited_with_its_manifest_line_is_refused(processes):
    run_ok(processes, 8, 0)
    run_ok(processes, 0, 8)  # its part audited and recorded
    (part,) = (processes / "results" / "matches").glob("part-*.parquet")
    table = pq.read_table(part)
    seeds = table.column("seed").to_pylist()
    seeds[3] += 1  # a row moved to another deal's deck
    column = pa.array(seeds, table.schema.field("seed").type)
    pq.write_table(table.set_column(table.schema.get_field_index("seed"), "seed", column), part)
    reseal(processes / "results")  # a forger's way past the manifest
    r = run("ladder", "run", processes)
    assert r.exit_code == 2, r.output
    # (the season's seed commitment printed first, as at every run; then one line)
    errors = [line for line in r.output.splitlines() if not line.startswith("seed commitment")]
    assert len(errors) == 1 and "match 3: seed" in errors[0], r.output
