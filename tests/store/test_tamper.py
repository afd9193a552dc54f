"""Rows checked against the schedule (issue 11, point 9): every kind of
edit to the matches table is caught by replay --verify-all and refused by
rank and by a resumed run, with one line each: by the manifest (an edited
part), and by the audit where the manifest was rewritten to match."""

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.support.leagues import reseal

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them


def rewrite(out, edit):
    part = next((out / "matches").glob("part-*.parquet"))
    rows = pq.read_table(part).to_pylist()
    rows = edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(part)), part)


def swap_seats(rows):
    rows[3]["seats"] = list(reversed(rows[3]["seats"]))
    return rows


def set_value(name, value):
    def edit(rows):
        rows[4][name] = value
        return rows

    return edit


def duplicate(rows):
    return [*rows[:6], dict(rows[5]), *rows[6:]]


def replaced_by_another_deal(rows):
    other = dict(rows[-1])  # the last deal's match, under an early id
    other["match_id"] = rows[2]["match_id"]
    rows[2] = other
    return rows


def swap_two(rows):
    rows[1], rows[7] = (
        dict(rows[7], match_id=rows[1]["match_id"]),
        dict(rows[1], match_id=rows[7]["match_id"]),
    )
    return rows


def shift_out_of_range(rows):
    return rows + [dict(r, match_id=r["match_id"] + 1000) for r in rows[:2]]


TAMPERS = {
    "seats swapped": (swap_seats, "seats"),
    "deal changed": (set_value("deal", 1), "deal"),
    "rotation changed": (set_value("rotation", 2), "rotation"),
    "table changed": (set_value("table", 3), "table"),
    "seed changed": (set_value("seed", 12345), "seed"),
    "a row twice": (duplicate, "twice"),
    "another deal's match": (replaced_by_another_deal, "not the schedule's"),
    "two matches swapped": (swap_two, "not the schedule's"),
    "ids outside the league": (shift_out_of_range, "not a match of this league"),
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tamper")
    path = tmp / "t.toml"
    path.write_text(
        'name = "t"\nedition = "classic"\nplayers = 3\ndeals = 3\nseed = 8\n'
        '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
        'random2 = "random"\n'
    )
    r = CliRunner().invoke(
        cli, ["run", str(path), "--out", str(tmp / "out"), "-j", "1", "--no-progress"]
    )
    assert r.exit_code == 0, r.output
    return path, tmp / "out"


QUICK = {"seats swapped", "a row twice", "ids outside the league"}


@pytest.mark.parametrize(
    "kind", [k if k in QUICK else pytest.param(k, marks=pytest.mark.slow) for k in TAMPERS]
)
@pytest.mark.parametrize("forged", [True, False], ids=["manifest rewritten", "manifest kept"])
def test_every_edit_is_caught(tmp_path, finished, kind, forged):
    path, clean = finished
    out = tmp_path / "out"
    shutil.copytree(clean, out)
    edit, said = TAMPERS[kind]
    rewrite(out, edit)
    if forged:
        reseal(out)
    else:  # the manifest names the edited part first, whatever the edit
        said = "is not the part its run committed"

    def invoke(*a):
        return CliRunner().invoke(cli, [str(x) for x in a])

    verify = invoke("replay", out, "--verify-all", "-j", "1")
    assert verify.exit_code == 1 and said in verify.output, verify.output
    rank = invoke("rank", out)
    assert rank.exit_code == 2 and said in rank.output and "Traceback" not in rank.output
    assert len(rank.output.strip().splitlines()) == 1
    resumed = invoke("run", path, "--out", out, "--no-progress")
    assert resumed.exit_code == 2 and said in resumed.output, resumed.output


def test_an_untouched_run_passes(finished):
    _, out = finished

    def invoke(*a):
        return CliRunner().invoke(cli, [str(x) for x in a])

    assert invoke("replay", out, "--verify-all", "-j", "1").exit_code == 0
    assert invoke("rank", out).exit_code == 0
    ids = pq.read_table(out / "matches")["match_id"]
    assert pc.all(pc.equal(ids, pa.array(range(len(ids))))).as_py()
