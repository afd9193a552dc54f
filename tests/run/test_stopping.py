"""Stopping a run from outside (issue 11, points 1, 2 and 8): SIGTERM and
SIGHUP behave as Ctrl-C does, a killed parent takes its workers with it, a
stop during start-up is exit 130 with one line, and --restart never deletes
a directory another run is writing."""

import os
import signal
import subprocess
import sys
import time

import pytest

from bohnarena.store.directory import RunDir
from tests.support.leagues import LONG_MATCHES, long_league

from .test_run import table


def start(path, out, *extra):
    cmd = [
        sys.executable,
        "-m",
        "bohnarena",
        "run",
        str(path),
        "--out",
        str(out),
        "-j",
        "2",
        *extra,
    ]
    return cmd, subprocess.Popen(
        cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def start_long(league, tmp_path, parts):
    """A long run (LONG_MATCHES), started, once it has committed ``parts`` batches."""
    path = long_league(league)
    out = tmp_path / "out"
    cmd, proc = start(path, out)
    wait_for_parts(out, parts)
    return cmd, proc, out


def wait_for_parts(out, n, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline and len(list((out / "matches").glob("part-*"))) < n:
        time.sleep(0.05)


def children(pid):
    """Processes whose parent is ``pid`` (the pool's workers)."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def gone(pids, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not any(os.path.exists(f"/proc/{p}") and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid):
    try:
        return open(f"/proc/{pid}/status").read().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


@pytest.mark.slow
@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_stop_like_ctrl_c_and_the_run_resumes(league, tmp_path, sig, code):
    cmd, proc, out = start_long(league, tmp_path, parts=2)
    workers = children(proc.pid)
    os.kill(proc.pid, sig)  # the parent alone, as a scheduler does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    assert gone(workers)
    done = RunDir(out).done_ids()
    assert 0 < len(done) < LONG_MATCHES
    r = subprocess.run([*cmd, "--no-progress"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(table(out, "matches")["match_id"].to_pylist()) == list(range(LONG_MATCHES))


@pytest.mark.slow
def test_a_parent_killed_with_sigkill_takes_its_workers_along(league, tmp_path):
    cmd, proc, _out = start_long(league, tmp_path, parts=1)
    workers = children(proc.pid)
    assert workers
    proc.kill()  # the parent alone
    proc.communicate(timeout=60)
    assert gone(workers)
    r = subprocess.run([*cmd, "--no-progress"], capture_output=True, text=True)  # the lock is free
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_a_stop_during_start_up_is_one_line_and_exit_130(league, tmp_path):
    slow = tmp_path / "slow.py"  # a bot whose module takes a while to import
    slow.write_text(
        "import time\ntime.sleep(30)\nfrom bohnarena.bohnanza import Bot\nclass B(Bot):\n    pass\n"
    )
    path = league(bots={"slow": f"{slow}:B", "planner": "planner", "random": "random"})
    _cmd, proc = start(path, tmp_path / "out")
    time.sleep(1.5)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["Interrupted; run the same command again to resume."]


@pytest.mark.slow
def test_restart_does_not_delete_a_directory_another_run_is_writing(league, tmp_path):
    cmd, proc, out = start_long(league, tmp_path, parts=1)
    try:
        r = subprocess.run([*cmd, "--restart", "--no-progress"], capture_output=True, text=True)
        assert r.returncode == 2 and "another bohnarena run is using" in r.stderr
        assert list((out / "matches").glob("part-*"))  # nothing was deleted
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 130


@pytest.mark.slow
def test_ctrl_c_at_any_moment_is_one_line_and_130(league, tmp_path):
    import random

    # (long enough that no run is done when its Ctrl-C comes: a finished
    # run's exit 0 would pass for a stop that was never made)
    path = league(deals=400, players=3, extra="[run]\nbatch_size = 4\n")
    rng = random.Random(7)
    for i in range(6):  # start-up or playing: wherever it lands
        _cmd, proc = start(path, tmp_path / f"out{i}")
        time.sleep(rng.uniform(0.2, 2.0))
        assert proc.poll() is None, "the run ended before its Ctrl-C"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        # -SIGINT: it came before Python was up to handle it (a shell shows 130 too)
        assert proc.returncode in (130, -signal.SIGINT), err
        assert "Traceback" not in err
        if proc.returncode == 130:
            assert len(err.strip().splitlines()) == 1 and "resume" in err


def _report_signals(queue):
    """(In a forked worker, before any initializer.) Its handlers, by name."""
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)]
    queue.put([h.name if isinstance(h, signal.Handlers) else "the run's" for h in handlers])


def test_a_worker_has_a_workers_signals_from_its_first_line():
    """A Ctrl-C, or the SIGTERM a stopping run sends its workers, that
    reaches a worker before the pool's initializer runs ends it quietly:
    not through the run's handler, which raised and printed a traceback
    ("Process _QuietForkProcess-1: ... Stopped: 15")."""
    from bohnarena.run.execution import _QuietForkContext

    context = _QuietForkContext()
    queue = context.SimpleQueue()
    previous = signal.signal(signal.SIGTERM, lambda *_: None)  # the run's, inherited by a fork
    try:
        worker = context.Process(target=_report_signals, args=(queue,))
        worker.start()
        found = queue.get()
        worker.join(10)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert found == ["SIG_IGN", "SIG_IGN", "SIG_DFL"] and worker.exitcode == 0


def test_a_stop_lost_in_a_callback_is_delivered_again():
    # A Ctrl-C that lands in a callback Python cannot raise from (an import
    # lock's weakref, a __del__) was printed as "Exception ignored" and lost:
    # the run went on and ended with exit 0 and a traceback on stderr.
    script = (
        "from bohnarena.core.stopping import redeliver_lost_stops\n"
        "redeliver_lost_stops()\n"
        "class Lock:\n"
        "    def __del__(self):\n"
        "        raise KeyboardInterrupt\n"
        "try:\n"
        "    Lock()\n"
        "    sum(range(10**6))\n"
        "    print('went on')\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped')\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.stdout.strip() == "stopped" and "Traceback" not in r.stderr, r.stderr
