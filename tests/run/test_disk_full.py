"""A full disk, or any I/O error while writing results (issue 11, point 5):
the run stops at the first, with one line naming the path and the cause;
what was committed stays consistent and the run resumes once there is room."""

import errno
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

import bohnarena.store.directory as store
from bohnarena.cli import cli
from bohnarena.store.directory import RunDir
from tests.support.leagues import LONG_MATCHES, long_league

from .test_run import table


def run(path, out, workers=1):
    return CliRunner().invoke(
        cli, ["run", str(path), "--out", str(out), "-j", str(workers), "--no-progress"]
    )


@pytest.mark.slow
def test_a_full_disk_in_the_parent_stops_at_once_and_resumes(league, tmp_path, monkeypatch):
    path = league(deals=20, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "out"
    real, calls = store.RunDir.commit, []

    def commit(self, first, last, matches, moves, timing=None, exchanges=None):
        calls.append(first)
        if len(calls) == 3:
            raise store.storage_error(
                self.matches_dir / "x", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            )
        real(self, first, last, matches, moves)

    monkeypatch.setattr(store.RunDir, "commit", commit)
    r = run(path, out)
    monkeypatch.undo()
    assert (
        r.exit_code == 1 and "No space left on device" in r.output and "Traceback" not in r.output
    )
    assert len(r.output.strip().splitlines()) == 1
    assert len(calls) == 3  # stopped at the first failure, nothing else tried
    done = RunDir(out).done_ids()
    assert 0 < len(done) < 60
    again = run(path, out)
    assert again.exit_code == 0, again.output
    assert sorted(table(out, "matches")["match_id"].to_pylist()) == list(range(60))


def test_a_worker_that_cannot_write_its_part_stops_the_run(league, tmp_path, monkeypatch):
    path = league(deals=20, extra="[run]\nbatch_size = 3\n")

    def spool(self, tag, matches, moves, timing, exchanges=None):  # in the forked worker
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path / "matches"))

    monkeypatch.setattr(store.RunDir, "spool", spool)
    cores = len(os.sched_getaffinity(0))  # (fewer workers: the run writes the parts)
    r = run(path, tmp_path / "out", workers=cores)
    assert (
        r.exit_code == 1 and "No space left on device" in r.output and "Traceback" not in r.output
    )


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to mount a small tmpfs")
def test_a_real_full_disk(league, tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(disk)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        path = long_league(league)
        r = run(path, disk / "out")
        assert r.exit_code == 1 and "No space left on device" in r.output, r.output
        assert "Traceback" not in r.output
        shutil.copytree(disk / "out", tmp_path / "roomy")  # the same directory, given room
    finally:
        subprocess.run(["umount", "-l", str(disk)])
    again = run(path, tmp_path / "roomy")
    assert again.exit_code == 0, again.output
    assert sorted(table(tmp_path / "roomy", "matches")["match_id"].to_pylist()) == list(
        range(LONG_MATCHES)
    )
