"""Shared test marks and helpers."""

import os
import shutil
import signal

import pyarrow.parquet as pq
import pytest

from tests.support.leagues import league, long_league  # noqa: F401 (fixtures for every folder)

# A suite started where Ctrl-C is ignored (a shell's background job: bash
# starts those with SIGINT ignored, and exec keeps it so) still tests
# Ctrl-C as a terminal delivers it, here and in what the tests start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: Tests that run a bot in the bubblewrap sandbox; they skip, saying why, where it is missing.
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="needs bubblewrap (Debian package bubblewrap)"
)
#: Marks for a test that plays sandboxed bots: it needs bubblewrap, and a
#: sandbox costs seconds, so it is left out of the quick loop.
SANDBOX_MARKS = [needs_bwrap, pytest.mark.slow]


def sandboxed(test):
    """Decorator form of :data:`SANDBOX_MARKS`."""
    return pytest.mark.slow(needs_bwrap(test))


def faults_by_bot(out):
    """Faults per league bot name over a results directory's matches."""
    faults = {}
    for row in pq.read_table(out / "matches").to_pylist():
        for seat, bot in enumerate(row["seats"]):
            faults[bot] = faults.get(bot, 0) + row["faults"][seat]
    return faults


_PYTEST_PID = os.getpid()


def pytest_runtest_logreport(report):
    """A process forked by a test must never return into pytest (it would
    run the rest of the suite a second time, beside the real one): such a
    process says which test it escaped from and exits at once."""
    if os.getpid() != _PYTEST_PID:
        os.write(2, f"\nA forked child escaped into pytest from {report.nodeid}\n".encode())
        os._exit(70)
