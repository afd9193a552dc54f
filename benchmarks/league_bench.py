"""League throughput and memory: matches per second by worker count and
with move logging on or off, and peak resident memory of the parent and of
the workers.

    python benchmarks/league_bench.py                      # the default suite
    python benchmarks/league_bench.py --deals 25000 --only 2:moves   # a 100,000-match league

Prints one line per configuration (median of --repeat runs).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bohnarena.run.dispatch import run_league
from bohnarena.run.execution import DaskBackend

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
    league: Path, workers: int, moves: bool, backend: str = "local", batch: int = 0
) -> tuple[float, float]:
    """Matches per second while playing, and over the whole run (ranking included)."""
    if batch:
        text = league.read_text()
        league.write_text(text.split("[run]")[0].rstrip() + f"\n[run]\nbatch_size = {batch}\n")
    with tempfile.TemporaryDirectory() as out:
        pool = DaskBackend(workers=workers) if backend == "dask" else None
        start = time.perf_counter()
        s = run_league(league, out, workers=workers, moves=moves, progress=False, backend=pool)
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
