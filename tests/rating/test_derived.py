"""What is derived from the parts, and the timing files, tied to what they
hold (issue 43, holes 5 and 7): each tampering a red team made, with the
manifest rewritten where a forger would, is reported by
``replay --verify-all`` (or refused by every reader)."""

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.store import manifest
from bohnarena.store.parts import part_name
from tests.support.leagues import reseal

pytestmark = pytest.mark.slow  # a league is played


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("derived")
    path = tmp / "t.toml"
    path.write_text(
        'name = "t"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = 8\n'
        '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
        "[run]\nbatch_size = 4\n"
    )
    r = invoke("run", path, "--out", tmp / "out", "-j", "1", "--no-progress")
    assert r.exit_code == 0, r.output
    return path, tmp / "out"


@pytest.fixture
def out(finished, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(finished[1], copy)
    return copy


def timing_part(out):
    return sorted((out / "timing").glob("part-*.parquet"))[1]


def delete_timing(out):
    timing_part(out).unlink()
    reseal(out)


def duplicate_timing(out):
    part = timing_part(out)
    first, last = manifest.PART.match(part.name).groups()
    shutil.copyfile(part, part.with_name(part_name(int(first), int(last) - 1)))
    reseal(out)


def point_elsewhere(out):
    part = timing_part(out)
    table = pq.read_table(part)
    seqs = table.column("seq").to_pylist()
    seqs[0] = 0  # the match's first record: not a decision
    at = table.schema.get_field_index("seq")
    pq.write_table(table.set_column(at, "seq", pa.array(seqs, pa.int32())), part)
    reseal(out)


def edit_manifest(edit):
    def tamper(out):
        path = out / manifest.NAME
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(edit(lines)))

    return tamper


def raise_timing_rows(lines):
    body = json.loads(lines[1])
    body["timing"]["rows"] += 1
    return [lines[0], json.dumps(body) + "\n", *lines[2:]]


def header_version_2(lines):
    head = json.loads(lines[0])
    return [json.dumps({**head, "manifest": 2}) + "\n", *lines[1:]]


TAMPERS = {
    "a timing part deleted": (delete_timing, "has no think times"),
    "a timing part duplicated": (duplicate_timing, "timed twice"),
    "a timing row pointed at another record": (point_elsewhere, "is not that record"),
    "a timing row count raised by one": (edit_manifest(raise_timing_rows), "its line says"),
    "a manifest line twice": (edit_manifest(lambda ls: [*ls, ls[1]]), "again"),
    "a header of version 2 beside timing": (edit_manifest(header_version_2), "version 2"),
}


@pytest.mark.parametrize("kind", list(TAMPERS))
def test_verify_all_reports_each_tampering(out, kind):
    tamper, said = TAMPERS[kind]
    tamper(out)
    verify = invoke("replay", out, "--verify-all", "-j", "1")
    assert verify.exit_code == 1 and said in verify.output, verify.output
    assert "Traceback" not in verify.output


def test_the_untouched_run_verifies(out):
    verify = invoke("replay", out, "--verify-all", "-j", "1")
    assert verify.exit_code == 0, verify.output


def test_a_resumed_run_rewrites_an_older_header_before_it_appends(finished, out):
    edit_manifest(header_version_2)(out)
    assert invoke("run", finished[0], "--out", out, "--no-progress").exit_code == 0
    assert json.loads((out / manifest.NAME).read_text().splitlines()[0])["manifest"] == 3
    assert invoke("replay", out, "--verify-all", "-j", "1").exit_code == 0


def test_a_resealed_rating_curve_that_is_not_its_matches_rating_is_reported(out):
    from bohnarena.rating.curvefile import _KEY, NAME, seal

    table = pq.read_table(out / NAME)
    facts = json.loads(table.schema.metadata[_KEY])
    bots = facts["bots"]
    names = table.column_names
    swap = {f"{k}:{bots[0]}": f"{k}:{bots[-1]}" for k in ("mu", "sigma")}
    swap |= {v: k for k, v in swap.items()}
    table = table.rename_columns([swap.get(n, n) for n in names]).select(names)

    def stack(kind):
        return pa.table([table.column(f"{kind}:{b}") for b in bots], names=bots).to_pandas().values

    ids = table.column("match_id").to_numpy()
    facts["seal"] = seal(bots, facts["parts"], ids, stack("mu"), stack("sigma"))
    pq.write_table(table.replace_schema_metadata({_KEY: json.dumps(facts)}), out / NAME)
    verify = invoke("replay", out, "--verify-all", "-j", "1")
    assert verify.exit_code == 1 and "is not the rating of its matches" in verify.output


def test_a_forged_audited_json_does_not_let_a_resumed_run_through(finished, out):
    """A row's seats rotated, its hash rewritten in the manifest and in
    audited.json (where a run before issue 43 kept the parts it had
    audited): the resumed run refuses the row, as rank does."""
    import hashlib

    path, _ = finished
    assert invoke("run", path, "--out", out, "--no-progress").exit_code == 0  # resumed: 0 played
    part = sorted((out / "matches").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    seats = table.column("seats").to_pylist()
    seats[3] = seats[3][1:] + seats[3][:1]
    at = table.schema.get_field_index("seats")
    pq.write_table(
        table.set_column(at, "seats", pa.array(seats, table.schema.field(at).type)), part
    )
    reseal(out)
    audited = out / "audited.json"
    kept = json.loads(audited.read_text()) if audited.exists() else {}
    sha = hashlib.sha256(part.read_bytes()).hexdigest()
    kept[part.name] = [sha, kept.get(part.name, [None, "its schedule's key"])[1]]
    audited.write_text(json.dumps(kept))
    resumed = invoke("run", path, "--out", out, "--no-progress")
    assert resumed.exit_code == 2 and "seats" in resumed.output, resumed.output
    rank = invoke("rank", out)
    assert rank.exit_code == 2 and "seats" in rank.output
