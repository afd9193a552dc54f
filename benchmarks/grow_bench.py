"""What growing a league by one bot costs (issue 24): the matches the new
bot adds, and nothing for the matches already played.

    python benchmarks/grow_bench.py             # 10,080 matches, grown by 3,780
    python benchmarks/grow_bench.py --big       # 100,080 matches, grown by 37,530
    python benchmarks/grow_bench.py --fresh     # also a fresh run of the grown file

Ten planner bots at three seats (C(10, 3) = 120 tables, 3 rotations) play
the league; an eleventh joins (45 new tables). Prints, for each run, the
matches it played, its wall time, the CPU time of its workers (playing:
it follows the matches played) and of the parent (dispatch, the audit of
the matches already there, the standings' counts, TrueSkill over the new
matches: it goes on from the ratings the first run kept), the matches it
rated with TrueSkill, and what `rank` takes over the grown results. The
machine is shared: CPU seconds mean more than wall seconds here. With
--fresh, what --restart would have cost instead.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bohnarena.analysis.results import read_results
from bohnarena.rating import skill
from bohnarena.run.dispatch import RunSummary, run_league

BOTS = [f"p{i:02d}" for i in range(11)]


def league_text(bots: list[str], deals: int, moves: bool) -> str:
    lines = "\n".join(f'{b} = "planner"' for b in bots)
    return (
        f'name = "grow"\nplayers = 3\ndeals = {deals}\nseed = 1\n'
        f"[run]\nmoves = {'true' if moves else 'false'}\n[bots]\n{lines}\n"
    )


def cpu() -> tuple[float, float]:
    """CPU seconds so far of this process and of its workers (reaped)."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


Timed = tuple[RunSummary, float, float, float, int]


def timed(path: Path, out: Path, workers: int) -> Timed:
    """The run's summary, wall seconds, CPU seconds of the parent (dispatch,
    audit, rating) and of the workers (playing), and the matches it rated."""
    rated = 0
    real = skill.rate_table

    def counting(env: Any, ratings: Sequence[Any], places: Sequence[int]) -> list[Any]:
        nonlocal rated
        rated += 1
        return real(env, ratings, places)

    skill.rate_table = counting  # (the parent rates: a count in this process)
    (me, kids), start = cpu(), time.perf_counter()
    try:
        summary = run_league(path, out, workers=workers, progress=False)
    finally:
        skill.rate_table = real
    wall = time.perf_counter() - start
    me2, kids2 = cpu()
    return summary, wall, me2 - me, kids2 - kids, rated


def line(what: str, run: Timed) -> str:
    s, wall, parent, playing, rated = run
    return (
        f"{what:<22} {s.played:>7,} played {s.done_before:>7,} before {wall:6.1f} s wall; "
        f"CPU: workers {playing:6.1f} s ({1000 * playing / max(s.played, 1):4.2f} ms/match "
        f"played), parent {parent:5.1f} s; {rated:,} rated"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--big", action="store_true", help="a 100,000-match league")
    p.add_argument("--deals", type=int, help="deals (28 by default, 278 with --big)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--moves", action="store_true", help="log every move (off by default)")
    p.add_argument("--fresh", action="store_true", help="also run the grown file afresh")
    a = p.parse_args()
    deals = a.deals or (278 if a.big else 28)
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "league.toml", Path(tmp) / "results"
        path.write_text(league_text(BOTS[:10], deals, a.moves))
        base = timed(path, out, a.workers)
        print(line("a league of 10 bots", base))
        path.write_text(league_text(BOTS, deals, a.moves))
        grown = timed(path, out, a.workers)
        print(line("grown by one bot", grown))
        assert grown[0].complete and grown[0].played == 45 * 3 * deals, grown
        if a.fresh:
            print(line("the grown file afresh", timed(path, Path(tmp) / "fresh", a.workers)))
        rated = time.perf_counter()
        read_results(out)  # what rank does: every match of the standings audited, counted
        print(f"rank over all {grown[0].total:,} matches: {time.perf_counter() - rated:.1f} s")
        (out / "ratings.parquet").unlink()
        rated = time.perf_counter()
        read_results(out)  # and without the kept ratings: TrueSkill over all of them
        print(f"rank without ratings.parquet: {time.perf_counter() - rated:.1f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
