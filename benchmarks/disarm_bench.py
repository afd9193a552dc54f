"""What an in-process bot that silences the watchdog costs a league (issue
43): ``SilencesTheWatchdog`` (tests/hostile/bots.py) stops the watchdog's
timer, ignores SIGALRM and loops in every planting, against a planner and
a random bot. Its worker is stopped, the batch played again carefully,
the hang found again and the match played a third time with that call a
timeout and a forfeit. Reports the league's wall time beside the same
league with a random bot in its place, and the difference per match.

    python benchmarks/disarm_bench.py [--deals 1] [--limit 2.0] [--repeat 1]

Before issue 43 a worker was stopped after ``3 x limit + 5`` s of silence,
twice a match; now once its call is 1 s past its deadline without a tick.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
SILENCES = ROOT / "tests" / "hostile" / "bots.py"


def league(path: Path, deals: int, limit: float, silences: bool) -> Path:
    bot = f'{{ spec = "{SILENCES}:SilencesTheWatchdog" }}' if silences else '"random"'
    text = (
        f'name = "disarm"\nedition = "classic"\nplayers = 3\ndeals = {deals}\nseed = 3\n'
        f"[run]\nbatch_size = 1\n[limits]\ndecision_seconds = {limit}\n"
        f'[bots]\nhostile = {bot}\nplanner = "planner"\nrandom = "random"\n'
    )
    (path / "league.toml").write_text(text)
    return path / "league.toml"


def one(args: argparse.Namespace, silences: bool) -> tuple[float, int]:
    """The league's wall time, and the hostile bot's faults."""
    from bohnarena.run.dispatch import run_league

    with tempfile.TemporaryDirectory() as tmp:
        path = league(Path(tmp), args.deals, args.limit, silences)
        start = time.perf_counter()
        summary = run_league(path, Path(tmp) / "out", workers=args.workers, progress=False)
        took = time.perf_counter() - start
        assert summary.complete and not summary.errors, summary
        rows = pq.read_table(Path(tmp) / "out" / "matches").to_pylist()
        return took, sum(r["faults"][r["seats"].index("hostile")] for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1, help="deals (3 matches each)")
    parser.add_argument("--limit", type=float, default=2.0, help="decision_seconds")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    matches = 3 * args.deals
    plain, silenced = [], []
    for r in range(args.repeat):
        took, _ = one(args, silences=False)
        plain.append(took)
        took, faults = one(args, silences=True)
        silenced.append(took)
        print(
            f"#{r + 1}: {matches} matches in {plain[-1]:.1f} s with a random bot, "
            f"{took:.1f} s with one that silences the watchdog ({faults} faults)",
            flush=True,
        )
    extra = (statistics.median(silenced) - statistics.median(plain)) / matches
    print(f"decision limit {args.limit:g} s: {extra:.1f} s more per silenced match (medians)")


if __name__ == "__main__":
    main()
