"""Shared test marks and helpers."""

import shutil

import pyarrow.parquet as pq
import pytest

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
