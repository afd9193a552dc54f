"""Where batches run. A backend hands out ``concurrent.futures`` executors;
the runner only submits tasks and reads futures, so another backend (a
cluster) plugs in beside the local process pool."""

from __future__ import annotations

import logging
import mmap
import multiprocessing
import multiprocessing.util
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from ..core.errors import BohnarenaError, UsageError
from ..core.stopping import die_with_parent, private_memory
from ..external.endpoint import close_sandboxes
from ..referee import pulse
from ..store.logbook import warm_up
from .worker import HandOver

log = logging.getLogger("bohnarena.run.execution")
T = TypeVar("T")


class Backend(Protocol):
    #: How many tasks run at once (the runner keeps about twice that in flight).
    workers: int
    #: How a batch's logs reach the run (see :data:`~.worker.HandOver`).
    hand_over: HandOver
    #: The largest default batch (matches per task).
    max_batch: int
    #: Loggers of the library it runs on: while a run is on, their records
    #: (tracebacks too) go to the run log, not to the organiser's terminal.
    loggers: tuple[str, ...]

    def executor(self) -> Executor:
        """A fresh executor; called again after the previous one broke."""
        ...

    def check(self) -> None:
        """Raise :class:`BackendLost` once the workers are out of reach for good."""
        ...

    def on_every_worker(self, fn: Callable[..., T], *args: Any) -> dict[str, T]:
        """``fn(*args)`` on every worker of another machine, by its address
        (none: the workers are this machine's, as the caller's checks are)."""
        ...

    def close(self, now: bool = False) -> None:
        """Release the workers; ``now``: without waiting for running tasks."""
        ...


class LocalPool:
    """Worker processes on this machine.

    Uses the ``fork`` start method, which multiprocessing-logging needs to
    carry worker log records to the run log. A worker that dies breaks the
    pool: its futures raise ``BrokenProcessPool`` instead of hanging. A
    worker that hangs (its pulse stopped while it plays: see pulse.py) is
    stopped by :meth:`check`, which breaks the pool the same way.
    """

    loggers: tuple[str, ...] = ()
    max_batch = 50  # a batch's records stay in the worker until it is logged: this bounds them

    def __init__(self, workers: int = 0, private: bool = False) -> None:
        """``private``: the workers' memory is not readable by other
        processes of the user (a league with ``process`` bots: they run as
        that user; see :func:`~bohnarena.core.stopping.private_memory`)."""
        cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        cores = len(cpus) if cpus else os.cpu_count() or 1
        self.workers = workers or cores
        # Building and writing a logged batch's tables is a third of its
        # work (four planners): fewer workers than cores leave this process a
        # core to do that on, beside them; with a worker on every core, each
        # writes its own.
        self.hand_over: HandOver = "files" if self.workers >= cores else "records"
        self.private = private
        self._pool: ProcessPoolExecutor | None = None
        self._listeners: list[pulse.Listener] = []

    def executor(self) -> Executor:
        self.close()
        warm_up()  # forked workers inherit loaded Arrow kernels
        context = _QuietForkContext()
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        shared = mmap.mmap(-1, pulse.SIZE * self.workers)  # shared with the forked workers
        slots = [
            memoryview(shared)[i * pulse.SIZE : (i + 1) * pulse.SIZE] for i in range(self.workers)
        ]
        self._listeners = [pulse.Listener(pulse.Pulse(slot)) for slot in slots]
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(context.Value("i", 0), cpus, self.workers, slots, self.private),
        )
        return self._pool

    def check(self) -> None:
        """Never lost (a worker that dies breaks the pool's futures); a
        worker silent for longer than its batch's limits allow is stopped,
        which breaks them the same way."""
        pool = self._pool
        workers = getattr(pool, "_processes", None) or {}
        now = time.monotonic()
        for listener in self._listeners:
            pid = listener.pulse.cells[pulse.PID]
            if listener.stalled(now) and pid in workers:
                log.warning(
                    "a worker went silent playing match %s; it is stopped",
                    listener.pulse.match,
                )
                os.kill(pid, signal.SIGKILL)

    def on_every_worker(self, fn: Callable[..., T], *args: Any) -> dict[str, T]:
        return {}  # its workers are forks of this process: what it loads, they load

    def close(self, now: bool = False) -> None:
        """Shut the pool down; ``now`` stops the workers mid-batch (after Ctrl-C)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if now:
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=not now, cancel_futures=True)
        if now:
            # Let the pool's manager thread see its dead workers out before
            # the interpreter exits: Python 3.11's exit hook wakes that thread
            # through a pipe it may be closing (a traceback on Ctrl-C;
            # CPython gh-105829). Bounded: an exit never hangs on it.
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(CLOSE_SECONDS)


class _QuietForkProcess(multiprocessing.context.ForkProcess):
    """A worker whose signals are a worker's from its first line: a Ctrl-C
    or a SIGTERM (the parent's terminate() after a Ctrl-C) that came before
    the pool's initializer ran printed "Process _QuietForkProcess-N:" and a
    traceback."""

    def _bootstrap(self, parent_sentinel: Any = None) -> int:
        _worker_signals()
        return super()._bootstrap(parent_sentinel)  # type: ignore[misc]


def _worker_signals() -> None:
    # Ctrl-C and a closed terminal reach the whole process group; the parent
    # alone decides what stops. SIGTERM (the parent's terminate(), or a
    # scheduler's kill of the group) ends a worker quietly: the handler it
    # inherited from the parent would raise Stopped into the pool's code.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class _QuietForkContext(multiprocessing.context.ForkContext):
    Process = _QuietForkProcess


def _start_worker(
    counter: Any, cpus: list[int], workers: int, slots: list[memoryview], private: bool
) -> None:
    die_with_parent()  # (its signals were set as it started: _QuietForkProcess)
    if private:  # it holds matches (hands, seeds) that bots of the same user must not read
        private_memory()
    # A pool worker ends without atexit: its sandboxes (and their cgroups) go here.
    multiprocessing.util.Finalize(None, close_sandboxes, exitpriority=10)
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    pulse.adopt(pulse.Pulse(slots[index % len(slots)]))  # the parent listens there
    if cpus and workers <= len(cpus):
        # A core of its own: its out-of-process bots inherit it, and a
        # request to a bot on the same core is answered without a wake-up
        # across cores (several times faster; benchmarks/sandbox_bench.py).
        os.sched_setaffinity(0, {cpus[index % len(cpus)]})


#: How long a Dask client waits to reach its scheduler, at the start and
#: again after losing it (then it closes itself and the run stops).
RECONNECT_SECONDS = 5.0
#: How long a Dask scheduler may be out of reach before the run stops, should
#: the client not give up by itself.
LOST_SECONDS = 20.0
#: The longest a backend's shutdown may hold up the end of a run.
CLOSE_SECONDS = 5.0


class BackendLost(BohnarenaError):
    """The cluster is gone: the run stops (what is finished stays saved)."""


class DaskBackend:
    """Batches on a Dask cluster: the scheduler at ``address``, or a
    LocalCluster on this machine. Needs the ``dask`` extra. Workers send
    their tables back unless they share the results directory's disk
    (``shares_disk``: a LocalCluster does; say so for a cluster with a
    shared file system). A lost worker's tasks are retried elsewhere by Dask."""

    max_batch = 200  # each task also costs a scheduler round trip: fewer, larger tasks
    loggers: tuple[str, ...] = ("distributed",)  # a lost scheduler is logged with tracebacks

    def __init__(
        self,
        address: str | None = None,
        workers: int = 0,
        shares_disk: bool | None = None,
        processes: bool = True,
        **cluster: Any,
    ) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError(
                "the dask backend needs the dask extra: "
                "pip install -e '.[dask]' (or pip install 'bohnarena[dask]')"
            ) from None
        self._cluster = None
        try:
            if address is None:
                self._cluster = LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=processes,
                    dashboard_address=None,
                    **cluster,
                )
                self.client = Client(self._cluster)
            else:
                self.client = Client(address, timeout=RECONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {e}") from None
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        self._down_since: float | None = None
        self._where = f" at {address}" if address else ""
        shared = (address is None) if shares_disk is None else shares_disk
        self.hand_over: HandOver = "files" if shared else "tables"

    def executor(self) -> Executor:
        return self.client.get_executor(pure=False)

    def check(self) -> None:
        """Raise BackendLost once the client has given up reconnecting to the
        scheduler (it closes itself after its timeout), or when the scheduler
        has been out of reach for LOST_SECONDS all the same."""
        status = self.client.status
        if status == "running":
            self._down_since = None
            return
        now = time.monotonic()
        self._down_since = self._down_since or now
        gave_up = status in ("closing", "closed")  # after RECONNECT_SECONDS
        if gave_up or now - self._down_since > LOST_SECONDS:
            waited = RECONNECT_SECONDS if gave_up else LOST_SECONDS
            raise BackendLost(
                f"lost the Dask scheduler{self._where}: no answer for {waited:g} s; "
                "what was finished is saved: run the same command again to resume"
            )

    def on_every_worker(self, fn: Callable[..., T], *args: Any) -> dict[str, T]:
        """``fn(*args)`` on every worker, by worker address."""
        result: dict[str, T] = self.client.run(fn, *args)
        return result

    def close(self, now: bool = False) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close(timeout=CLOSE_SECONDS)  # a lost scheduler cannot hold us up
            except (OSError, TimeoutError):
                pass
            self.client = None  # type: ignore[assignment, unused-ignore]
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
