"""The benchmark scripts run (a few games each): a benchmark that breaks
silently measures nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def _strength(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "beancounter_strength.py"), *args],
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_beancounter_strength_sets_options_and_refuses_bad_ones() -> None:
    ok = _strength("--matches", "1", "--no-search", "--set", "begs=0", "--set", "max_seconds=0.5")
    assert ok.returncode == 0 and "win share" in ok.stdout
    assert "searched (more than one candidate) 0," in ok.stdout  # --no-search
    for bad, says in (
        ("begs=notaliteral", "not a Python literal"),
        ("begs=(", "not a Python literal"),
        ("__init__=1", "no option"),
        ("nonesuch=1", "no option"),
        ("playouts='x'", "playouts is a int"),
    ):
        r = _strength("--matches", "1", "--set", bad)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, bad


@pytest.mark.slow
def test_grow_bench_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(BENCH / "grow_bench.py"), "--deals", "1", "--workers", "1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "135 played     360 before" in out and "rank over all 495 matches" in out
    assert "parent" in out.splitlines()[1] and out.splitlines()[1].endswith("; 135 rated")


@pytest.mark.slow
def test_league_bench_standings_runs() -> None:
    out = subprocess.run(
        [
            *(sys.executable, str(BENCH / "league_bench.py"), "--standings", "--only", "1:nomoves"),
            *("--deals", "1", "--repeat", "1", "--bot", "random"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "standings' own cost" in out and "standings live" in out


@pytest.mark.slow  # (150 matches of planners)
def test_log_instructions_plays_what_it_counts(tmp_path) -> None:
    """The play log_instructions.py counts under valgrind runs (here
    without it): a batch in each mode, after the warm ones."""
    sys.path.insert(0, str(BENCH))
    try:
        import log_instructions as bench
    finally:
        sys.path.remove(str(BENCH))
    league = tmp_path / "log.toml"
    league.write_text(bench.LEAGUE)
    for mode in bench.MODES:
        subprocess.run([sys.executable, "-c", bench.PLAY, str(league), mode, "1"], check=True)


@pytest.mark.slow
def test_verify_bench_runs() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "verify_bench.py"),
            *("--deals", "2", "--played", "8", "--repeat", "1", "-j", "1"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "120 matches synthesized" in out and "every check but the log replay" in out
    assert "verify on 120 matches: about" in out


@pytest.mark.slow
def test_site_bench_runs() -> None:
    from tests.site.conftest import MISSING

    if MISSING:
        pytest.skip(f"needs the site extra: pip install '.[site]' ({', '.join(MISSING)})")
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "site_bench.py"),
            *("--entries", "5", "--clients", "1,2", "--requests", "6", "--seconds", "5"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "5 entries played" in out
    for mode in ("idle:", "during a run:"):
        (shown,) = [i for i, line in enumerate(out.splitlines()) if line.startswith(mode)]
        rows = out.splitlines()[shown + 1 : shown + 4]
        assert [r.split()[0] for r in rows] == ["standings", "entry", "viewer"], out
        assert all(r.count("clients") == 2 and "/s" in r for r in rows), out
