"""Where batches run. A backend hands out ``concurrent.futures`` executors;
the runner only submits tasks and reads futures, so another backend (a
cluster) plugs in beside the local process pool."""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Protocol

from .logbook import warm_up


class Backend(Protocol):
    #: How many tasks run at once (the runner keeps about twice that in flight).
    workers: int
    #: Workers can write into the results directory (they then write their
    #: own Parquet parts; otherwise they send tables back).
    shares_disk: bool

    def executor(self) -> Executor:
        """A fresh executor; called again after the previous one broke."""
        ...

    def close(self, now: bool = False) -> None:
        """Release the workers; ``now``: without waiting for running tasks."""
        ...


class LocalPool:
    """Worker processes on this machine.

    Uses the ``fork`` start method, which multiprocessing-logging needs to
    carry worker log records to the run log. A worker that dies breaks the
    pool: its futures raise ``BrokenProcessPool`` instead of hanging.
    """

    shares_disk = True

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None

    def executor(self) -> Executor:
        self.close()
        warm_up()  # forked workers inherit loaded Arrow kernels
        self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                         mp_context=multiprocessing.get_context("fork"),
                                         initializer=_ignore_interrupts)
        return self._pool

    def close(self, now: bool = False) -> None:
        """Shut the pool down; ``now`` stops the workers mid-batch (after Ctrl-C)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if now:
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=not now, cancel_futures=True)


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
