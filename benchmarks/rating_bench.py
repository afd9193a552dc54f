"""Rating that keeps up with the playing, and `rank` in bounded memory.

    python benchmarks/rating_bench.py                  # both parts
    python benchmarks/rating_bench.py --only run --deals 2500
    python benchmarks/rating_bench.py --only rank --matches 100000
    python benchmarks/rating_bench.py --only run --serial-too   # also rated after playing
    PYTHONPATH=/tmp/old python benchmarks/rating_bench.py --only rank   # another tree

* run: a league of 4 planners, moves off; how long a run takes after its
  last match is played (compaction and ranking: ``elapsed - play_seconds``),
  the matches per second while playing, and how long the serial pass over
  the finished directory takes (what a run that rates only at the end adds
  after its last match; bohnarena before issue 15 could not run this part:
  it failed to compact a run of several batches without moves).
* rank: a synthetic directory of MATCHES rows (one compacted part, as a
  finished run leaves it, every row the schedule's); ``bohnarena rank`` in a
  fresh process: seconds and peak resident memory.

Prints the median of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from league_bench import LEAGUE

RANK = """
import sys, time
from bohnarena.cli import main
sys.argv = ["bohnarena", "rank", sys.argv[1], "--format", "csv"]
start = time.perf_counter()
try:
    main()
except SystemExit as e:
    assert not e.code, e.code
# VmHWM, not ru_maxrss: Linux carries the parent's peak across fork and exec
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(time.perf_counter() - start, int(status.split()[0]), file=sys.stderr)
"""


def run_tail(deals: int, workers: int, serial: bool = False) -> tuple[float, float, float, float]:
    """(seconds after the last match, matches/s playing, seconds in all,
    seconds of a serial ranking pass) of one run; ``serial``: rate nothing
    while playing (a run as before issue 15, whose time in all then
    includes the serial pass)."""
    from bohnarena.league.file import load_league
    from bohnarena.rating import skill as rating
    from bohnarena.run.dispatch import run_league
    from bohnarena.run.rankfiles import write_ranking
    from bohnarena.store.directory import RunDir

    add = rating.Rater.add
    if serial:
        rating.Rater.add = lambda self, row: None  # type: ignore[method-assign]

    with tempfile.TemporaryDirectory() as d:
        league = Path(d) / "bench.toml"
        league.write_text(LEAGUE.format(deals=deals, bot="planner"))
        start = time.perf_counter()
        try:
            s = run_league(league, Path(d) / "out", workers=workers, moves=False, progress=False)
        finally:
            rating.Rater.add = add  # type: ignore[method-assign]
        elapsed = time.perf_counter() - start
        assert s.complete and s.ranking is not None
        start = time.perf_counter()
        ranked = write_ranking(RunDir(Path(d) / "out"), load_league(league))
        serial_seconds = time.perf_counter() - start
        assert serial or ranked.to_csv() == s.ranking.to_csv()
    if serial:
        elapsed += serial_seconds
    return elapsed - s.play_seconds, s.played / s.play_seconds, elapsed, serial_seconds


def synthetic_run(out: Path, matches: int) -> None:
    """A finished results directory of ``matches`` schedule-true rows."""
    from bohnarena.league.schedule import schedule
    from bohnarena.store.logbook import LOG_FORMAT, MatchRow, matches_table
    from bohnarena.store.parts import write_part

    text = LEAGUE.format(deals=matches // 4, bot="random")
    (out / "matches").mkdir(parents=True)
    (out / "moves").mkdir()
    (out / "league.toml").write_text(text)
    (out / "run.json").write_text(json.dumps({"log_format": LOG_FORMAT, "shard": None}))
    rng = random.Random(1)
    rows: list[MatchRow] = []
    for m in schedule(["a", "b", "c", "d"], 4, matches // 4, 1):  # the league's (seed 1)
        ranks = rng.sample(range(1, 5), 4)
        rows.append(
            {
                "table": m.table,
                "deal": m.deal,
                "rotation": m.rotation,
                "seed": m.seed,
                "seats": list(m.seats),
                "match_id": m.id,
                "coins": [20 - r for r in ranks],
                "ranks": ranks,
                "winners": [ranks.index(1)],
                "turns": 100,
                "faults": [0] * 4,
                "duration_s": 0.1,
            }
        )
    # as compaction writes it (row groups of 64K rows)
    write_part(out / "matches" / f"part-{0:09d}-{matches - 1:09d}.parquet", matches_table(rows))


def rank_once(out: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of `bohnarena rank` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", RANK, str(out)], capture_output=True, text=True, check=True
    )
    seconds, rss = done.stderr.split()[-2:]
    return float(seconds), int(rss) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--only", choices=["run", "rank"], default=None)
    ap.add_argument("--deals", type=int, default=2500, help="run: deals (4 matches each)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--matches", type=int, default=100_000, help="rank: rows of the directory")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--serial-too",
        action="store_true",
        help="run: also time runs that rate only after playing (interleaved)",
    )
    args = ap.parse_args()
    import bohnarena

    print(f"bohnarena from {Path(bohnarena.__file__).parent}")
    if args.only in (None, "run"):
        modes = (False, True) if args.serial_too else (False,)
        runs: dict[bool, list[tuple[float, float, float, float]]] = {m: [] for m in modes}
        for _ in range(args.repeat):  # interleaved: the machine's load drifts alike
            for m in modes:
                runs[m].append(run_tail(args.deals, args.workers, m))
        for m in modes:
            print(
                f"run ({'rated after playing' if m else 'rated while playing'}): "
                f"{4 * args.deals} matches, {args.workers} workers, moves off: "
                f"{statistics.median(r[0] for r in runs[m]):.2f} s after the last match, "
                f"{statistics.median(r[1] for r in runs[m]):.0f} matches/s playing, "
                f"{statistics.median(r[2] for r in runs[m]):.2f} s in all; a serial ranking "
                f"pass: {statistics.median(r[3] for r in runs[m]):.2f} s "
                f"(median of {args.repeat})",
                flush=True,
            )
    if args.only in (None, "rank"):
        with tempfile.TemporaryDirectory() as d:
            synthetic_run(Path(d), args.matches)
            ranks = [rank_once(Path(d)) for _ in range(args.repeat)]
        print(
            f"rank: {args.matches} matches: {statistics.median(r[0] for r in ranks):.1f} s, "
            f"peak RSS {statistics.median(r[1] for r in ranks):.0f} MB (median of {args.repeat})"
        )


if __name__ == "__main__":
    sys.exit(main())
