"""The Dask backend, shards and merge."""

import json
import logging
import sys

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.errors import UsageError
from bohnarena.run.dispatch import run_league
from bohnarena.run.execution import BackendLost, DaskBackend

from .test_run import content


@pytest.mark.slow
def test_dask_backend_gives_the_same_matches_moves_and_ranking(league, tmp_path):
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    local = run_league(path, tmp_path / "local", workers=2, progress=False)
    for shared in (True, False):  # workers write parts, or send tables back
        out = tmp_path / f"dask-{shared}"
        backend = DaskBackend(workers=2, shares_disk=shared, processes=False)
        remote = run_league(path, out, progress=False, backend=backend)
        assert remote.complete
        a, b = content(tmp_path / "local"), content(out)
        assert a[0].equals(b[0]) and a[1].equals(b[1])
        assert remote.ranking.rows() == local.ranking.rows()


@pytest.mark.slow
def test_shards_merged_equal_the_whole(league, tmp_path):
    path = league(deals=5)
    run_league(path, tmp_path / "whole", workers=2, progress=False)
    shards = []
    for k in (1, 2, 3):
        out = tmp_path / f"s{k}"
        r = CliRunner().invoke(
            cli, ["run", str(path), "--out", str(out), "--shard", f"{k}/3", "--no-progress"]
        )
        assert r.exit_code == 0, r.output
        shards.append(str(out))
    sizes = [pq.read_table(f"{s}/matches").num_rows for s in shards]
    assert sizes == [5, 5, 5]  # disjoint slices of the 15 matches
    r = CliRunner().invoke(cli, ["merge", str(tmp_path / "merged"), *shards])
    assert r.exit_code == 0 and "merged 15 of 15 matches" in r.output
    a, b = content(tmp_path / "merged"), content(tmp_path / "whole")
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert (tmp_path / "merged" / "ranking.csv").read_text() == (
        tmp_path / "whole" / "ranking.csv"
    ).read_text()
    again = CliRunner().invoke(cli, ["merge", str(tmp_path / "twice"), shards[0], shards[0]])
    assert again.exit_code == 2 and "more than one directory" in again.output


@pytest.mark.slow
def test_merge_refuses_different_leagues(league, tmp_path):
    a = league(name="a", deals=1)
    b = league(name="b", deals=1, seed=99)
    run_league(a, tmp_path / "a", workers=1, progress=False)
    run_league(b, tmp_path / "b", workers=1, progress=False)
    r = CliRunner().invoke(
        cli, ["merge", str(tmp_path / "m"), str(tmp_path / "a"), str(tmp_path / "b")]
    )
    assert r.exit_code == 2 and "different league" in r.output


def test_bad_shard_and_shard_mismatch(league, tmp_path):
    path = league(deals=1)
    for bad in ("0/3", "4/3", "x", "1-3"):
        r = CliRunner().invoke(
            cli, ["run", str(path), "--shard", bad, "--out", str(tmp_path / "o")]
        )
        assert r.exit_code == 2 and "--shard takes K/N" in r.output
    run_league(path, tmp_path / "o", workers=1, progress=False, shard=(1, 2))
    r = CliRunner().invoke(cli, ["run", str(path), "--shard", "2/2", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "holds shard 1/2" in r.output


def test_missing_dask_extra_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(UsageError, match=r"pip install -e '\.\[dask\]'"):
        DaskBackend()


@pytest.mark.slow
def test_bad_scheduler_address(league):
    r = CliRunner().invoke(
        cli,
        [
            "run",
            str(league(deals=1)),
            "--backend",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:1",
            "--no-progress",
        ],
    )
    assert r.exit_code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in r.output
    assert len(r.output.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_bot_missing_on_the_workers_names_the_worker(league, tmp_path, monkeypatch):
    # A module that imports here but not on the workers (as if not installed there).
    pkg = tmp_path / "parent_only"
    pkg.mkdir()
    (pkg / "onlyhere.py").write_text(
        "import os\nif os.environ.get('ON_A_WORKER'):\n"
        "    raise ImportError('not installed here')\n"
        "from bohnarena.bohnanza import Bot\nclass Here(Bot):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(pkg))
    path = league(bots={"here": "onlyhere:Here", "planner": "planner", "random": "random"})
    backend = DaskBackend(workers=1, processes=True, env={"ON_A_WORKER": "1"})
    with pytest.raises(UsageError, match=r"worker tcp://\S+ cannot load bot 'here'"):
        run_league(path, tmp_path / "o", progress=False, backend=backend)


@pytest.mark.slow
def test_on_dask_a_hung_in_process_bot_is_still_stopped(tmp_path):
    """Dask runs tasks in threads, where the watchdog's signal never arrives:
    such a batch is played in a process of its own."""
    path = tmp_path / "hung.toml"
    path.write_text(
        'name = "hung"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 2\n'
        "[limits]\ndecision_seconds = 0.2\nmax_faults = 2\n"
        '[bots]\nhung = "tests/hostile/bots.py:SleepsForever"\n'
        'planner = "planner"\nrandom = "random"\n'
    )
    backend = DaskBackend(workers=1, processes=False)
    summary = run_league(path, tmp_path / "out", progress=False, backend=backend)
    assert summary.complete and summary.played == 3
    rows = pq.read_table(tmp_path / "out" / "matches").to_pylist()
    assert all(r["faults"][r["seats"].index("hung")] > 0 for r in rows)


@pytest.mark.slow
def test_a_refused_merge_leaves_nothing_behind(league, tmp_path):
    path = league(deals=2)
    run_league(path, tmp_path / "s1", workers=1, progress=False, shard=(1, 2))
    run_league(path, tmp_path / "whole", workers=1, progress=False)  # overlaps shard 1
    out = tmp_path / "m"
    r = CliRunner().invoke(cli, ["merge", str(out), str(tmp_path / "s1"), str(tmp_path / "whole")])
    assert r.exit_code == 2 and "more than one directory" in r.output
    assert not out.exists() and not list(tmp_path.glob(".m.merging-*"))
    ok = CliRunner().invoke(cli, ["merge", str(out), str(tmp_path / "whole")])
    assert ok.exit_code == 0 and (out / "run.json").is_file()
    assert not list(tmp_path.glob(".m.merging-*"))


@pytest.mark.slow
def test_a_lost_dask_scheduler_ends_the_run_in_bounded_time(league, tmp_path):
    import signal
    import subprocess
    import time

    sched_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        ["dask", "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        deadline = time.time() + 60
        address = None
        while address is None and time.time() < deadline:  # written a moment after it appears
            time.sleep(0.2)
            try:
                address = json.loads(sched_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                pass
        assert address is not None
        worker = subprocess.Popen(
            ["dask", "worker", address, "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        path = league(deals=400, players=3, extra="[run]\nbatch_size = 3\n")
        out = tmp_path / "out"
        run = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bohnarena",
                "run",
                str(path),
                "--out",
                str(out),
                "--backend",
                "dask",
                "--scheduler",
                address,
                "--no-progress",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        while time.time() < deadline and len(list((out / "matches").glob("part-*"))) < 2:
            time.sleep(0.1)
        scheduler.send_signal(signal.SIGKILL)
        lost = time.time()
        _, err = run.communicate(timeout=120)
        assert time.time() - lost < 60
        assert run.returncode == 1 and "lost the Dask scheduler" in err
        assert "Traceback" not in err and "distributed." not in err  # those are in run.log
        assert "run the same command again to resume" in err
        assert len(list((out / "matches").glob("part-*"))) > 0
    finally:
        for p in (scheduler, worker):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


class Spun(BaseException):
    """A fake cluster's way out of a dispatcher that resends without end."""


class FlakyCluster:
    """A cluster backend whose scheduler drops the first ``drops`` tasks (as
    a Dask client cancels every future when it loses its scheduler) and, once
    ``closed``, refuses work as a closed client does."""

    workers, hand_over, max_batch = 2, "files", 3
    loggers = ()

    def __init__(self, drops: int, closed_after: int | None = None, refuses: bool = True) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.drops, self.closed_after, self.sent = drops, closed_after, 0
        self.refuses = refuses  # once closed: refuse work (else cancel all of it)
        self.pool = ThreadPoolExecutor(1)
        self.status = "running"

    def on_every_worker(self, fn, *args):
        return {}  # a fake: no worker of its own to check

    def executor(self):
        cluster = self

        class Executor:
            def submit(self, fn, *args):
                from concurrent.futures import Future

                if cluster.sent > 200:
                    raise Spun  # resent without end: nobody asked whether it is gone
                if cluster.status == "closed" and cluster.refuses:
                    raise RuntimeError("Client is closed. Can't send update-graph message.")
                cluster.sent += 1
                if cluster.sent == cluster.closed_after:
                    cluster.status = "closed"
                if cluster.drops > 0 or cluster.status == "closed":
                    cluster.drops -= 1
                    future: Future = Future()
                    future.cancel()
                    future.set_running_or_notify_cancel()
                    return future
                return cluster.pool.submit(fn, *args)

        return Executor()

    def check(self) -> None:
        if self.status == "closed":
            raise BackendLost("lost the Dask scheduler: run the same command again to resume")

    def close(self, now: bool = False) -> None:
        self.pool.shutdown(wait=not now, cancel_futures=True)


@pytest.mark.slow
def test_tasks_a_cluster_drops_are_played_again_and_not_charged(league, tmp_path):
    path = league(deals=2, extra="[run]\nbatch_size = 3\n")
    local = run_league(path, tmp_path / "local", workers=1, progress=False)
    summary = run_league(path, tmp_path / "o", progress=False, backend=FlakyCluster(drops=6))
    assert summary.complete and not summary.errors and summary.played == local.played
    a, b = content(tmp_path / "local"), content(tmp_path / "o")
    assert a[0].equals(b[0]) and a[1].equals(b[1])


@pytest.mark.parametrize("refuses", [True, False])
@pytest.mark.slow
def test_a_closed_cluster_client_stops_the_run_with_one_line(league, tmp_path, refuses):
    path = league(deals=4, extra="[run]\nbatch_size = 3\n")
    out = tmp_path / "o"
    cluster = FlakyCluster(drops=0, closed_after=3, refuses=refuses)
    with pytest.raises(BackendLost, match="run the same command again"):
        run_league(path, out, progress=False, backend=cluster)
    errors = out / "errors.json"
    assert not errors.exists() or json.loads(errors.read_text()) == []  # nothing charged


class ChattyCluster(FlakyCluster):
    """A cluster whose library logs its losses with tracebacks to stderr, as
    distributed does (the client's reconnect, then its closing)."""

    loggers = ("chattylib",)

    def check(self) -> None:
        try:
            super().check()
        except BackendLost:
            try:
                raise OSError("comm closed")
            except OSError:
                logging.getLogger("chattylib.batched").info("comm closed", exc_info=True)
            raise

    def close(self, now: bool = False) -> None:
        logging.getLogger("chattylib.client").error("failed to reconnect, closing client")
        super().close(now)


@pytest.mark.slow
def test_a_cluster_librarys_logs_go_to_the_run_log_not_the_terminal(league, tmp_path, capfd):
    own = logging.StreamHandler(sys.stderr)
    library, client = logging.getLogger("chattylib"), logging.getLogger("chattylib.client")
    library.handlers, client.handlers = [own], [own]
    library.setLevel(logging.INFO)
    library.propagate = client.propagate = False
    try:
        out = tmp_path / "o"
        cluster = ChattyCluster(drops=0, closed_after=3)
        with pytest.raises(BackendLost):
            run_league(league(deals=4, extra="[run]\nbatch_size = 3\n"), out, backend=cluster)
        err = capfd.readouterr().err
        assert "Traceback" not in err and "closing client" not in err
        log = (out / "run.log").read_text()
        assert "Traceback" in log and "OSError: comm closed" in log
        assert "failed to reconnect, closing client" in log
        assert library.handlers == [own] and client.handlers == [own]  # put back after the run
    finally:
        library.handlers = client.handlers = []


def test_the_dask_backend_gives_up_when_its_client_does_or_after_lost_seconds(monkeypatch):
    from types import SimpleNamespace

    from bohnarena.run import execution

    backend = DaskBackend.__new__(DaskBackend)  # (no cluster: only check() is tried)
    backend.client, backend._down_since, backend._where = SimpleNamespace(), None, " at X"
    clock = [100.0]
    monkeypatch.setattr(execution.time, "monotonic", lambda: clock[0])
    for status in ("running", "connecting"):
        backend.client.status = status
        backend.check()  # up, or reconnecting within LOST_SECONDS
    clock[0] += execution.LOST_SECONDS + 1
    with pytest.raises(BackendLost, match="at X: no answer for 20 s"):
        backend.check()
    backend.client.status, backend._down_since = "running", None
    backend.check()
    for status in ("closing", "closed"):  # the client gave up reconnecting: at once
        backend.client.status, backend._down_since = status, None
        with pytest.raises(BackendLost, match="no answer for 5 s; what was finished is saved"):
            backend.check()
