"""League throughput and memory: matches per second by worker count and
with move logging on or off, and peak resident memory of the parent and of
the workers.

    python benchmarks/league_bench.py                      # the default suite
    python benchmarks/league_bench.py --deals 25000 --only 2:moves   # a 100,000-match league
    python benchmarks/league_bench.py --standings --only 2:nomoves   # cost of live standings

Prints one line per configuration (median of --repeat runs).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tqdm import tqdm

from bohnarena.rating.skill import Rater
from bohnarena.run.dispatch import run_league
from bohnarena.run.execution import DaskBackend
from bohnarena.run.standings import REFRESH_SECONDS, Standings

LEAGUE = """name = "bench"
edition = "classic"
players = 4
deals = {deals}
seed = 1

[bots]
a = "{bot}"
b = "{bot}"
c = "{bot}"
d = "{bot}"
"""


class MemorySampler(threading.Thread):
    """Peak proportional set size (PSS) of this process and its children:
    shared pages (forked workers share the parent's) are counted once."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_total = self.peak_parent = 0.0
        self.stop = threading.Event()

    @staticmethod
    def pss_mb(pid: int) -> float:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    @staticmethod
    def children(pid: int) -> list[int]:
        out = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                out += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        return out

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.2):
            parent = self.pss_mb(me)
            total = parent + sum(self.pss_mb(c) for c in self.children(me))
            self.peak_parent = max(self.peak_parent, parent)
            self.peak_total = max(self.peak_total, total)


def once(
    league: Path,
    workers: int,
    moves: bool,
    backend: str = "local",
    batch: int = 0,
    standings: str = "log",
) -> tuple[float, float]:
    """Matches per second while playing, and over the whole run (ranking included).
    ``standings``: "off" (none), "log" (a line every N matches: a run without
    a terminal), "live" (also the table under a progress bar, drawn to /dev/null)."""
    if batch:
        text = league.read_text()
        league.write_text(text.split("[run]")[0].rstrip() + f"\n[run]\nbatch_size = {batch}\n")
    with tempfile.TemporaryDirectory() as out:
        pool = DaskBackend(workers=workers) if backend == "dask" else None
        start = time.perf_counter()
        with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
            s = run_league(
                league,
                out,
                workers=workers,
                moves=moves,
                progress=standings == "live",
                backend=pool,
                standings_every=0 if standings == "off" else None,
            )
        elapsed = time.perf_counter() - start
    assert s.complete
    return s.played / s.play_seconds, s.played / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--deals", type=int, default=500, help="deals (matches = 4 x deals)")
    ap.add_argument("--bot", default="planner")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="one configuration, WORKERS:moves|nomoves")
    ap.add_argument(
        "--backend",
        choices=["local", "dask"],
        default="local",
        help="dask: a LocalCluster of WORKERS processes (cluster start-up excluded)",
    )
    ap.add_argument("--batch", type=int, default=0, help="matches per task (0: automatic)")
    ap.add_argument(
        "--standings",
        action="store_true",
        help="the cost of standings while a run plays: off, log lines, live table, interleaved",
    )
    args = ap.parse_args()
    if args.standings:
        return standings_cost(args)
    configs = [(1, True), (2, True), (1, False), (2, False)]
    if args.only:
        w, m = args.only.split(":")
        configs = [(int(w), m == "moves")]
    sampler = MemorySampler()
    sampler.start()
    with tempfile.TemporaryDirectory() as d:
        league = Path(d) / "bench.toml"
        league.write_text(LEAGUE.format(deals=args.deals, bot=args.bot))
        rates = {}
        for workers, moves in configs:
            runs = [
                once(league, workers, moves, args.backend, args.batch) for _ in range(args.repeat)
            ]
            rates[(workers, moves)] = statistics.median(r[0] for r in runs)
            total = statistics.median(r[1] for r in runs)
            print(
                f"workers={workers} moves={'on ' if moves else 'off'} {4 * args.deals} matches: "
                f"{rates[(workers, moves)]:7.0f} matches/s playing, {total:7.0f} overall "
                f"(with ranking and compaction; median of {args.repeat})",
                flush=True,
            )
    if (1, True) in rates and (2, True) in rates:
        print(
            f"speed-up 2 workers / 1 worker (moves on): {rates[(2, True)] / rates[(1, True)]:.2f}x"
        )
    if (2, True) in rates and (2, False) in rates:
        print(f"cost of move logging (2 workers): {1 - rates[(2, True)] / rates[(2, False)]:.1%}")
    sampler.stop.set()
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"peak memory: parent {sampler.peak_parent:.0f} MB PSS ({me:.0f} MB RSS); parent and "
        f"workers together {sampler.peak_total:.0f} MB PSS (largest worker RSS {kids:.0f} MB)"
    )


def parent_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def standings_unit_costs(bots: int = 8, n: int = 200_000) -> tuple[float, float]:
    """Seconds a :meth:`Standings.rated` call costs (no line due, no redraw
    due) and a redraw of the live table (to /dev/null), timed alone."""
    rater = Rater([f"bot{i}" for i in range(bots)])
    standings = Standings(rater, 10**9, 0)
    with open(os.devnull, "w") as null:
        bar = tqdm(total=n, file=null, disable=False)
        standings.under(bar)
        standings.due = float("inf")
        start = time.perf_counter()
        for i in range(n):
            rater.count = i + 1
            standings.rated()
        per_match = (time.perf_counter() - start) / n
        start = time.perf_counter()
        for _ in range(200):
            standings.draw()
        per_draw = (time.perf_counter() - start) / 200
        standings.close()
        bar.close()
    return per_match, per_draw


def standings_cost(args: argparse.Namespace) -> None:
    """Matches per second with standings off, in the log, and live under a
    bar, the three interleaved run by run (each first in turn) so drift hits
    them alike; and the
    parent's CPU time (where the standings are kept and drawn), which a
    shared machine disturbs far less than the wall clock."""
    w, m = (args.only or "2:nomoves").split(":")
    modes = ("off", "log", "live")
    with tempfile.TemporaryDirectory() as d:
        league = Path(d) / "bench.toml"
        league.write_text(LEAGUE.format(deals=args.deals, bot=args.bot))
        rates: dict[str, list[float]] = {mode: [] for mode in modes}
        cpu: dict[str, list[float]] = {mode: [] for mode in modes}
        once(
            league, int(w), m == "moves", standings="off"
        )  # warm-up (imports, caches): not counted
        for k in range(args.repeat):
            for mode in modes[k % 3 :] + modes[: k % 3]:  # each first in turn
                before = parent_cpu()
                rates[mode].append(once(league, int(w), m == "moves", standings=mode)[1])
                cpu[mode].append(parent_cpu() - before)
    per_match, per_draw = standings_unit_costs()
    print(
        f"standings' own cost: {per_match * 1e9:.0f} ns a match rated, {per_draw * 1e3:.2f} ms a "
        f"redraw (at most {1 / REFRESH_SECONDS:.0f} a second: "
        f"{per_draw / REFRESH_SECONDS:.3%} of the parent's time at most)"
    )
    base, base_cpu = statistics.median(rates["off"]), statistics.median(cpu["off"])
    for mode in modes:
        rate, used = statistics.median(rates[mode]), statistics.median(cpu[mode])
        print(
            f"standings {mode:<4} workers={w} {4 * args.deals} matches: {rate:7.0f} matches/s "
            f"overall ({1 - rate / base:+.2%} slower than off; runs {min(rates[mode]):.0f}-"
            f"{max(rates[mode]):.0f}), parent CPU {used:.2f} s "
            f"({used - base_cpu:+.3f} s; median of {args.repeat})"
        )


if __name__ == "__main__":
    sys.exit(main())
