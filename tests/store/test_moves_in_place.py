"""Each move is written once (issue 23, part 2): a compaction merges the
matches files and leaves every moves file where its batch wrote it, byte for
byte; the manifest (version 2) gives each such file a line of its own.
Readers, resumes after damage, merges and version-1 manifests work with it."""

import json
import os
import shutil

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import bohnarena.store.directory as store
from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store import manifest
from bohnarena.store.directory import RunDir

N = 18  # matches: 6 deals of three seats, in batches of 3


@pytest.fixture
def parts(league, tmp_path):
    """A finished league never compacted: (league file, directory)."""
    path = league(deals=6, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "parts"
    with pytest.MonkeyPatch.context() as m:
        m.setattr(store.RunDir, "compact", lambda self, first, last: None)
        assert run_league(path, out, workers=1, progress=False).complete
    return path, out


def moves_files(out):
    """Each moves file: its bytes and its inode (the same inode: never rewritten)."""
    return {
        p.name: (p.read_bytes(), p.stat().st_ino) for p in sorted((out / "moves").glob("part-*"))
    }


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def verified(out, n=N):
    v = invoke("replay", out, "--verify-all", "-j", "1")
    return v.exit_code == 0 and f"verified {n} matches" in v.output


@pytest.mark.slow
def test_compaction_leaves_every_moves_file_byte_identical_and_in_place(parts):
    path, out = parts
    before = moves_files(out)
    assert len(before) == N // 3
    rank = invoke("rank", out, "--format", "json").output
    RunDir(out).compact(0, N - 1)
    assert moves_files(out) == before
    assert len(list((out / "matches").glob("part-*"))) == 1
    lines = [json.loads(line) for line in (out / manifest.NAME).read_text().splitlines()]
    assert lines[0]["manifest"] == manifest.VERSION
    assert sorted(line["part"] for line in lines[1:] if line["matches"] is None) == sorted(before)
    assert verified(out) and invoke("rank", out, "--format", "json").output == rank
    again = run_league(path, out, workers=1, progress=False)  # a complete run compacts again
    assert again.played == 0 and moves_files(out) == before


@pytest.mark.parametrize("by", ["worker", "run"])
@pytest.mark.slow
def test_a_run_writes_each_move_once(league, tmp_path, monkeypatch, by):
    """With a worker on every core, a worker writes its batch's moves file
    and the run only renames it into place (spooled, pending, committed);
    with fewer, the run writes it once, pending, and renames it. Never
    again (a compaction leaves it where it is)."""
    cores = len(os.sched_getaffinity(0))
    if by == "run" and cores == 1:
        pytest.skip("on one core every worker writes its own files")
    path = league(deals=6, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    written, renamed = [], []

    def noting(fn, notes):
        def noted(where, *args, **kwargs):
            notes.append(str(where))
            return fn(where, *args, **kwargs)

        return noted

    # the parent's writes (a compaction's among them; the worker's are in its process)
    monkeypatch.setattr(store.pq, "ParquetWriter", noting(store.pq.ParquetWriter, written))
    monkeypatch.setattr(store, "write_part", noting(store.write_part, written))
    monkeypatch.setattr(store.os, "replace", noting(os.replace, renamed))
    workers = cores if by == "worker" else 1
    assert run_league(path, out, workers=workers, progress=False).complete
    moves = [w for w in written if "/moves/" in w]
    if by == "worker":
        assert not moves
        assert len([r for r in renamed if "/moves/" in r]) == 2 * N // 3
    else:
        assert len(set(moves)) == len(moves) == N // 3
        assert len([r for r in renamed if "/moves/" in r]) == N // 3
    assert verified(out)


@pytest.mark.slow
def test_a_copy_of_a_moves_file_left_in_place_is_refused(parts):
    _, out = parts
    RunDir(out).compact(0, N - 1)
    shutil.copyfile(
        out / "moves" / "part-000000003-000000005.parquet",
        out / "moves" / "part-000000003-000000004.parquet",
    )
    r = invoke("rank", out)
    assert r.exit_code == 2 and "part-000000003-000000004.parquet is not a part" in r.output


@pytest.mark.parametrize("damaged", ["matches", "moves"])
@pytest.mark.slow
def test_a_resume_plays_again_the_matches_of_a_damaged_file(parts, damaged):
    path, out = parts
    RunDir(out).compact(0, N - 1)
    victim = (
        next((out / "matches").glob("part-*"))
        if damaged == "matches"
        else out / "moves" / "part-000000003-000000005.parquet"
    )
    victim.write_bytes(victim.read_bytes()[:100])  # truncated
    s = run_league(path, out, workers=1, progress=False)
    # a moves file: its three matches; the merged matches file: all of them
    assert s.played == (3 if damaged == "moves" else N) and s.complete
    assert verified(out)
    ids = pq.read_table(out / "moves", columns=["match_id"])["match_id"].to_pylist()
    assert sorted(set(ids)) == list(range(N))  # every match's moves, none twice (verified)


@pytest.mark.slow
def test_a_merge_copies_the_moves_files_left_in_place(parts, tmp_path):
    path, whole = parts
    for k in (1, 2):
        run_league(path, tmp_path / f"s{k}", workers=1, progress=False, shard=(k, 2))
    r = invoke("merge", tmp_path / "m", tmp_path / "s1", tmp_path / "s2")
    assert r.exit_code == 0, r.output
    assert verified(tmp_path / "m")
    assert invoke("rank", tmp_path / "m").output == invoke("rank", whole).output


@pytest.mark.parametrize("old", [1, 2])
@pytest.mark.slow
def test_an_older_manifest_is_read_and_the_next_run_writes_the_current_version(parts, old):
    path, out = parts
    text = (out / manifest.NAME).read_text()
    head, rest = text.split("\n", 1)
    now = f'"manifest": {manifest.VERSION}'
    assert now in head
    (out / manifest.NAME).write_text(head.replace(now, f'"manifest": {old}') + "\n" + rest)
    assert invoke("rank", out).exit_code == 0  # read
    # (its lines have what the older version had not: a forged header, or a
    # bohnarena before issue 43 that appended to an older one)
    v = invoke("replay", out, "--verify-all", "-j", "1")
    assert v.exit_code == 1 and f"manifest version {old} has not" in v.output, v.output
    assert run_league(path, out, workers=1, progress=False).played == 0  # compacts
    head = (out / manifest.NAME).read_text().split("\n", 1)[0]
    assert json.loads(head)["manifest"] == manifest.VERSION
    assert verified(out)


@pytest.mark.slow
def test_a_newer_manifest_is_refused_by_name(parts):
    _, out = parts
    text = (out / manifest.NAME).read_text()
    now = manifest.VERSION
    (out / manifest.NAME).write_text(
        text.replace(f'"manifest": {now}', f'"manifest": {now + 1}', 1)
    )
    r = invoke("rank", out)
    assert (
        r.exit_code == 2
        and f"it is version {now + 1}; this bohnarena reads versions 1, 2, 3" in r.output
    )


def test_a_line_with_neither_half_is_refused():
    line = {"part": "part-000000000-000000002.parquet", "matches": None, "moves": None}
    text = json.dumps({"manifest": 2, "generation": 0}) + "\n" + json.dumps(line) + "\n"
    with pytest.raises(manifest.ManifestError, match="line 2 does not read"):
        manifest.parse(text)


@pytest.mark.slow
def test_compaction_writes_row_groups_of_many_parts(parts, monkeypatch):
    """The merged matches file's row groups are of MOVES_ROW_GROUP rows, not
    one per part (issue 23, part 2: a big league's was 4 times as slow to
    read), its rows those of the parts in id order."""
    _, out = parts
    before = pq.read_table(out / "matches").sort_by("match_id")
    monkeypatch.setattr(store, "MOVES_ROW_GROUP", 4)
    RunDir(out).compact(0, N - 1)
    (merged,) = (out / "matches").glob("part-*")
    f = pq.ParquetFile(merged)
    assert [f.metadata.row_group(i).num_rows for i in range(f.num_row_groups)] == [4] * 4 + [2]
    assert f.read().equals(before)


def test_a_part_listed_again_is_odd_unless_its_first_line_held_no_rows():
    """A batch whose every match errored commits a part of no rows; played
    again whole, its retry's part has its name and a line of its own: the
    one repeat a run writes. Any other is reported (replay --verify-all)."""
    name = "part-000000000-000000002.parquet"

    def lines(rows):
        half = {"rows": rows, "bytes": 10, "sha256": "0" * 64}
        line = {"part": name, "matches": half, "moves": None}
        again = {"part": name, "matches": {**half, "rows": 3}, "moves": None}
        head = {"manifest": manifest.VERSION, "generation": 0}
        return "".join(json.dumps(x) + "\n" for x in (head, line, again))

    assert manifest.parse(lines(0)).oddities == []
    odd = manifest.parse(lines(2))
    assert odd.oddities == [f"line 3 lists {name} again"]
    assert odd.live[name].matches.rows == 3  # read as its last line
