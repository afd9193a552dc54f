"""Readers racing a run (issue 22, point 8): rank, report and replay
--verify-all, over and over while a league creates its directory, commits
batch after batch and compacts, each read a whole directory: never an
error (once the directory exists), never a match counted twice, never fewer
matches than the read before."""

import json
import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli

#: The run, with every rename slowed down: each step of creating the
#: directory, committing a batch or compacting stays visible for a while.
DRIVER = """
import os, sys, time

def slowly(step):
    def slowed(*args, **kwargs):
        time.sleep(float(os.environ["SLOW_RENAMES"]))
        return step(*args, **kwargs)
    return slowed

os.replace, os.rename = slowly(os.replace), slowly(os.rename)
from bohnarena.cli import main
sys.argv = ["bohnarena", *sys.argv[1:]]
main()
"""

BOUND = 300  # seconds: the run is stopped and the test fails past it (a hang, not a speed)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.slow
@pytest.mark.parametrize("slow", ["0.05", "0.005"])  # a step held long; steps in quick turns
def test_readers_racing_a_run_never_error(league, tmp_path, slow):
    path = league(deals=4, bots={"a": "planner", "b": "random", "c": "trader", "d": "random"})
    path.write_text(path.read_text().replace("[bots]", "[run]\nbatch_size = 2\n\n[bots]"))
    out = tmp_path / "out"
    invoke("rank", out)  # imports done before the race starts
    run = subprocess.Popen(
        [sys.executable, "-c", DRIVER, "run", str(path), "--out", str(out), "-j", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SLOW_RENAMES": slow},
    )
    deadline = time.monotonic() + BOUND
    seen, reads, last = [], 0, None
    try:
        while last is None:
            last = run.poll()  # one more round of reads after the run ended
            existed = out.exists()
            rank = invoke("rank", out, "--format", "json", "--resamples", "0")
            if not existed:  # (it may have come whole since the look)
                said = "not a bohnarena results directory" in rank.output
                assert rank.exit_code == 0 or said, rank.output
                time.sleep(0.002)
                continue
            assert rank.exit_code == 0, rank.output
            counted = sum(b["matches"] for b in json.loads(rank.stdout)["bots"])
            assert counted % 3 == 0 and counted >= (seen[-1] if seen else 0), (seen, counted)
            seen.append(counted)
            reads += 1
            if reads % 5 == 0:
                r = invoke("report", out, "-o", tmp_path / "r.html", "--resamples", "0")
                assert r.exit_code == 0, r.output
            if reads % 10 == 0 and counted:
                v = invoke("replay", out, "--verify-all", "-j", "1")
                assert v.exit_code == 0 and "every one replays" in v.output, v.output
            assert time.monotonic() < deadline, "the run did not finish"
    finally:
        if run.poll() is None:
            run.kill()
        stderr = run.communicate()[1]
    assert last == 0, stderr
    assert seen[-1] == 3 * 48 and len(set(seen)) > 2, seen  # the reads saw the run grow
    assert len(list((out / "matches").glob("part-*"))) == 1  # and compact
