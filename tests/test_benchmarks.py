"""The benchmark scripts run (a few games each): a benchmark that breaks
silently measures nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def test_engine_vs_bare_split_runs() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "engine_vs_bare.py"),
            *("--rounds", "1", "--games", "5", "--bare-games", "5", "--split"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "engine is" in out
    assert "rules alone" in out and "the referee and seating" in out
