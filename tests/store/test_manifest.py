"""Parts checked against the manifest (issue 22, point 8): rank and report
refuse a results directory whose parts are not what its run committed
(an edited result, a deleted row or part, a copied part), with one line
naming the part; replay --verify-all catches a row deleted with its moves
kept and duplicated parts; a directory written before manifests is refused
in one line until it is played again with --restart; merge refuses an
edited shard and writes a manifest of its own."""

import json
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import bohnarena.store.directory as store
from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store import manifest
from tests.support.leagues import reseal


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """A finished league of 36 matches in 12 parts (never compacted)."""
    tmp = tmp_path_factory.mktemp("manifest")
    path = tmp / "t.toml"
    path.write_text(
        'name = "t"\nedition = "classic"\nplayers = 3\ndeals = 3\nseed = 8\n'
        "[run]\nbatch_size = 3\n"
        '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
        'random2 = "random"\n'
    )
    with pytest.MonkeyPatch.context() as m:
        m.setattr(store.RunDir, "compact", lambda self, first, last: None)
        assert run_league(path, tmp / "out", workers=1, progress=False).complete
    return path, tmp / "out"


PART = "part-000000003-000000005.parquet"  # the second part: matches 3, 4 and 5


def edit_rows(out, change, sub="matches"):
    part = out / sub / PART
    table = pq.read_table(part)
    pq.write_table(change(table), part)


def edit_row(column, value):
    def change(table):
        rows = table.to_pylist()
        rows[1][column] = value(rows[1][column])
        return pa.Table.from_pylist(rows, schema=table.schema)

    return lambda out: edit_rows(out, change)


def without(match_id):
    return lambda table: table.filter(pc.not_equal(table["match_id"], match_id))


def delete_part(out):
    for sub in ("matches", "moves"):
        (out / sub / PART).unlink()


def copy_part(out, sub="matches", name="part-000000003-000000004.parquet"):
    """A copy under a name inside the part's own range (read before as a
    compaction's leftover, never counted)."""
    shutil.copyfile(out / sub / PART, out / sub / name)


EDITS = {
    "winner": (edit_row("winners", lambda w: [(w[0] + 1) % 3]), "matches/" + PART),
    "coins": (edit_row("coins", lambda c: [c[0] + 5, *c[1:]]), "matches/" + PART),
    "ranks": (edit_row("ranks", lambda r: r[::-1]), "matches/" + PART),
    "faults": (edit_row("faults", lambda f: [f[0] + 3, *f[1:]]), "matches/" + PART),
    "a deleted row": (lambda out: edit_rows(out, without(4)), "matches/" + PART),
    "a deleted part": (delete_part, "matches/" + PART),
    "a duplicated part": (
        lambda out: [copy_part(out, sub) for sub in ("matches", "moves")],
        "part-000000003-000000004.parquet",
    ),
}


@pytest.mark.parametrize("kind", EDITS)
@pytest.mark.slow
def test_rank_and_report_refuse_every_edit_naming_the_part(tmp_path, parts, kind):
    _, finished = parts
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    edit, named = EDITS[kind]
    edit(out)
    for args in (["rank", out], ["report", out, "-o", tmp_path / "r.html"]):
        r = invoke(*args)
        assert r.exit_code == 2, (args[0], r.output)
        assert len(r.output.splitlines()) == 1 and "Traceback" not in r.output, r.output
        assert named in r.output and "its run committed" in r.output, r.output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_the_untouched_directory_ranks_reports_and_verifies(tmp_path, parts):
    _, out = parts
    assert invoke("rank", out).exit_code == 0
    assert invoke("report", out, "-o", tmp_path / "r.html").exit_code == 0
    v = invoke("replay", out, "--verify-all", "-j", "1")
    assert v.exit_code == 0 and "verified 36 matches: every one replays" in v.output


VERIFY = {  # kind: (edit as files, the same edit with the manifest rewritten to match)
    "a row deleted, its moves kept": (
        lambda out: edit_rows(out, without(4)),
        "match 4: its moves are logged but the matches table has no row",
    ),
    "a duplicated matches part": (lambda out: copy_part(out, "matches"), "match 3 is there twice"),
    "a duplicated moves part": (
        lambda out: copy_part(out, "moves", "part-000000036-000000038.parquet"),
        "match 3: its records are not numbered 0, 1, 2",
    ),
}


def doubled_moves(out):
    """A moves part holding its records twice, as one file the manifest lists."""
    edit_rows(out, lambda t: pa.concat_tables([t, t]), "moves")


@pytest.mark.parametrize("kind", VERIFY)
@pytest.mark.parametrize("forged", [False, True], ids=["manifest kept", "manifest rewritten"])
@pytest.mark.slow
def test_verify_all_catches_a_deleted_row_and_duplicated_parts(tmp_path, parts, kind, forged):
    _, finished = parts
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    edit, replayed = VERIFY[kind]
    if forged and kind == "a duplicated moves part":
        doubled_moves(out)  # a moves file alone has no line to forge: its records twice
    else:
        edit(out)
    if forged:
        reseal(out)
    v = invoke("replay", out, "--verify-all", "-j", "1")
    assert v.exit_code == 1, v.output
    if forged:  # the replay alone catches it
        assert replayed in v.output and "part problem" not in v.output, v.output
    else:
        assert "its run committed" in v.output and "1 part problem" in v.output, v.output


def compacted(out):
    """One matches file, with the moves of the league's 12 batches left in
    place: each moves file under a line of its own, without a matches half."""
    lines = [json.loads(line) for line in (out / manifest.NAME).read_text().splitlines()[1:]]
    merged = [line for line in lines if line["matches"] is not None]
    left = sorted(line["part"] for line in lines if line["matches"] is None)
    on_disk = sorted(p.name for p in (out / "moves").glob("part-*"))
    return (
        len(merged) == 1 == len(list((out / "matches").glob("part-*")))
        and merged[0]["moves"] is None
        and len(left) == 12
        and left == on_disk
    )


# -- directories written before manifests ---------------------------------------


def strip_manifest(out):
    """``out`` as a bohnarena without manifests left it (and without timing)."""
    (out / manifest.NAME).unlink()
    shutil.rmtree(out / "timing")
    meta = json.loads((out / "run.json").read_text())
    del meta["manifest"]
    (out / "run.json").write_text(json.dumps(meta))


@pytest.mark.slow
def test_an_old_directory_is_refused_in_one_line_until_played_again_with_restart(tmp_path, parts):
    path, finished = parts
    out = tmp_path / "old"
    shutil.copytree(finished, out)
    strip_manifest(out)
    league_before = (out / "league.toml").read_text()
    for args in (
        ["rank", out],
        ["report", out, "-o", tmp_path / "r.html"],
        ["matches", out],
        ["replay", out, "--verify-all", "-j", "1"],
        ["run", path, "--out", out, "--no-progress"],
    ):
        r = invoke(*args)
        assert r.exit_code == 2 and len(r.output.splitlines()) == 1, (args, r.output)
        assert f"has no {manifest.NAME}" in r.output and "--restart" in r.output, r.output
    assert not (out / manifest.NAME).exists()  # (the refused run changed nothing)
    assert (out / "league.toml").read_text() == league_before
    again = invoke("run", path, "--out", out, "--no-progress", "--restart")
    assert again.exit_code == 0, again.output
    assert json.loads((out / "run.json").read_text())["manifest"] == manifest.VERSION
    assert invoke("rank", out).exit_code == 0


@pytest.mark.slow
def test_a_removed_manifest_is_not_an_old_directory(tmp_path, parts):
    _, finished = parts
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    (out / manifest.NAME).unlink()
    for args in (["rank", out], ["replay", out, "--verify-all", "-j", "1"]):
        r = invoke(*args)
        assert r.exit_code == 2 and len(r.output.splitlines()) == 1, r.output
        assert f"{manifest.NAME} is missing, yet run.json says its run keeps one" in r.output


@pytest.mark.slow
@pytest.mark.parametrize("field", ["part", "at", "retired"])
def test_a_manifest_line_naming_a_file_elsewhere_is_refused_and_the_file_left_alone(
    tmp_path, parts, field
):
    path, finished = parts
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    victim = tmp_path / "victim.parquet"
    victim.write_text("precious")
    lines = (out / manifest.NAME).read_text().splitlines()
    line = json.loads(lines[1])
    if field == "retired":
        line = {"retired": "../../victim.parquet"}
    else:
        line[field] = "../../victim.parquet"
    lines.append(json.dumps(line))
    (out / manifest.NAME).write_text("\n".join(lines) + "\n")
    for args in (["rank", out], ["run", path, "--out", out, "--no-progress"]):
        r = invoke(*args)
        assert r.exit_code == 2 and "is not" in r.output and len(r.output.splitlines()) == 1, (
            r.output
        )
        assert f"{manifest.NAME}: line {len(lines)} does not read" in r.output
    assert victim.read_text() == "precious"


@pytest.mark.slow
def test_a_part_replaced_by_a_fifo_is_refused_then_played_again_not_waited_on(tmp_path, parts):
    path, finished = parts
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    (out / "matches" / PART).unlink()
    os.mkfifo(out / "matches" / PART)  # reading it would wait for a writer forever
    bohnarena = [sys.executable, "-m", "bohnarena"]
    rank = subprocess.run([*bohnarena, "rank", str(out)], capture_output=True, timeout=120)
    assert rank.returncode == 2 and b"not a regular file" in rank.stderr, rank.stderr
    run = [*bohnarena, "run", str(path), "--out", str(out), "--no-progress"]
    again = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "3 matches played now, 33 before" in again.stdout, again


# -- merge ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shards(parts, tmp_path_factory):
    path, _ = parts
    tmp = tmp_path_factory.mktemp("shards")
    for k in (1, 2):
        run_league(path, tmp / f"s{k}", workers=1, progress=False, shard=(k, 2))
    return tmp / "s1", tmp / "s2"


@pytest.mark.slow
def test_merge_refuses_an_edited_shard(tmp_path, shards):
    s1, s2 = shards
    edited = tmp_path / "s2"
    shutil.copytree(s2, edited)
    (part,) = (edited / "matches").glob("part-*")
    table = pq.read_table(part)
    pq.write_table(table.slice(1), part)
    r = invoke("merge", tmp_path / "m", s1, edited)
    assert r.exit_code == 2 and len(r.output.splitlines()) == 1, r.output
    assert part.name in r.output and "its run committed" in r.output
    assert not (tmp_path / "m").exists()


@pytest.mark.slow
def test_a_merge_keeps_a_manifest_of_its_own(tmp_path, shards, parts):
    _, whole = parts
    s1, s2 = shards
    r = invoke("merge", tmp_path / "m", s1, s2)
    assert r.exit_code == 0, r.output
    assert compacted(tmp_path / "m")
    v = invoke("replay", tmp_path / "m", "--verify-all", "-j", "1")
    assert v.exit_code == 0 and "verified 36 matches" in v.output, v.output
    assert invoke("rank", tmp_path / "m").output == invoke("rank", whole).output


# -- a directory created whole ----------------------------------------------------


@pytest.mark.slow
def test_restart_swaps_a_whole_directory_in_where_the_old_one_was(league, tmp_path, monkeypatch):
    path = league(deals=1)
    real = tmp_path / "disk" / "out"
    real.mkdir(parents=True)  # an empty directory is swapped out like an old run
    link = tmp_path / "out"
    link.symlink_to(real)
    for args in ([], ["--restart"]):
        r = invoke("run", path, "--out", link, "--no-progress", *args)
        assert r.exit_code == 0 and "3 matches played now, 0 before" in r.output, r.output
    assert link.is_symlink() and (real / manifest.NAME).is_file()
    # the working directory itself: restarted in place, the process's directory kept
    monkeypatch.chdir(real)
    r = invoke("run", path, "--out", ".", "--restart", "--no-progress")
    assert r.exit_code == 0 and "3 matches played now, 0 before" in r.output, r.output
    assert (real / manifest.NAME).is_file() and invoke("rank", ".").exit_code == 0
    assert not [p for p in tmp_path.rglob(".*") if ".new-" in p.name or ".old-" in p.name]
