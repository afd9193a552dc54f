"""What a run costs after its last match, what `rank` costs on the finished
directory, and what logging moves costs (issue 23, part 2).

    python benchmarks/tail_bench.py                     # 10,000 matches
    python benchmarks/tail_bench.py --deals 25000       # the issue's 100,000 matches
    python benchmarks/tail_bench.py --log-cost          # 2,000 matches of four planners at -j 1

The league is the issue's: planner, planner, trader and random at tables of
four. Prints the play time, the tail (compaction, ranking files, report:
from the last match to the end of `run`, in wall time and in the run's CPU
time, which a shared machine's other load disturbs far less), `rank` and `report` on the
directory afterwards with their peak memory (each in a fresh process).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LEAGUE = """name = "tail"
edition = "classic"
players = 4
deals = {deals}
seed = 1
{run}
[bots]
{bots}
"""

MIXED = 'p1 = "planner"\np2 = "planner"\ntrader = "trader"\nrandom = "random"\n'
PLANNERS = "".join(f'p{i} = "planner"\n' for i in range(4))

#: Run in a fresh process: the run (with its report, as the command line
#: writes it), timed from the last match to the end.
RUN = """
import json, resource, sys, time
from bohnarena.run.dispatch import run_league
from bohnarena.report.html import write_report
from bohnarena.cli.matches import watch  # the viewer pages the report links, as `run` writes them
def cpu():  # this process and its reaped children (the pool's workers)
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(r.ru_utime + r.ru_stime for r in usage)
league, out, workers, moves = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
last = [0.0, 0.0]  # when the last match reached the run in order: wall, this process's CPU
def follow(row):
    last[:] = time.perf_counter(), time.process_time()
start, cpu_start = time.perf_counter(), cpu()
summary = run_league(league, out, workers=workers, progress=False, moves=moves, follow=follow)
ran, cpu_run = time.perf_counter(), cpu() - cpu_start
if moves:
    write_report(out, results=getattr(summary, "results", None), watch=watch)
end = time.perf_counter()
print(json.dumps({"play": summary.play_seconds, "run": ran - start, "total": end - start,
                  "tail": end - last[0], "tail_cpu": time.process_time() - last[1],
                  "report": end - ran, "cpu": cpu_run}))
"""

#: A command's wall time, CPU time and peak memory (ru_maxrss of the child, MB).
TIMED = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
took = time.perf_counter() - start
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(took, child.ru_utime + child.ru_stime, child.ru_maxrss / 1024)
"""


def write(tmp: Path, deals: int, bots: str, run: str = "") -> Path:
    path = tmp / "tail.toml"
    path.write_text(LEAGUE.format(deals=deals, bots=bots, run=run))
    return path


def play(league: Path, out: Path, workers: int, moves: bool = True) -> dict[str, float]:
    args = [sys.executable, "-c", RUN, str(league), str(out), str(workers), str(int(moves))]
    done = subprocess.run(args, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def timed(*command: str) -> str:
    """``command``'s wall time, CPU time and peak memory, as a phrase."""
    out = subprocess.run([sys.executable, "-c", TIMED, *command], check=True, capture_output=True)
    took, cpu, mb = (float(x) for x in out.stdout.split())
    return f"{took:.1f} s ({cpu:.1f} s of CPU), peak {mb:.0f} MB"


def tail(deals: int, workers: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        league = write(Path(tmp), deals, MIXED)
        out = Path(tmp) / "out"
        f = play(league, out, workers)
        matches = deals * 4
        print(
            f"{matches:,} matches at -j {workers}: play {f['play']:.1f} s; after the last "
            f"match: {f['tail']:.1f} s, {f['tail_cpu']:.1f} s of the run's CPU (ranking "
            f"files and compaction {f['run'] - f['play']:.1f} s, report {f['report']:.1f} s "
            f"with its {len(list(out.glob('watch/*.html')))} viewer pages)"
        )
        bohnarena = [sys.executable, "-m", "bohnarena"]
        print(f"rank: {timed(*bohnarena, 'rank', str(out))}")
        print(f"report: {timed(*bohnarena, 'report', str(out))}")
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
        print(f"results directory: {size:.0f} MB")


def log_cost(deals: int, repeat: int) -> None:
    """Wall time, and the CPU time of the run's processes (parent and
    workers), which another load on a shared machine disturbs far less."""
    with tempfile.TemporaryDirectory() as tmp:
        league = write(Path(tmp), deals, PLANNERS)
        times: dict[tuple[bool, str], list[float]] = {}
        for i in range(repeat):
            for moves in (True, False):  # alternated: the machine's noise hits both
                out = Path(tmp) / f"out{i}{moves}"
                f = play(league, out, 1, moves)
                for key in ("run", "cpu"):
                    times.setdefault((moves, key), []).append(f[key])
        for key, what in (("run", "wall time"), ("cpu", "CPU time")):
            on, off = (statistics.median(times[moves, key]) for moves in (True, False))
            print(
                f"{deals * 4:,} matches of four planners at -j 1 ({what}, median of "
                f"{repeat}): moves logged {on:.2f} s, not logged {off:.2f} s: logging is "
                f"{(on - off) / on:.0%} of the run"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=2500, help="deals (4 matches each)")
    p.add_argument("-j", "--workers", type=int, default=2)
    p.add_argument("--log-cost", action="store_true", help="the cost of logging moves instead")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    if a.log_cost:
        log_cost(500 if a.deals == 2500 else a.deals, a.repeat)
    else:
        tail(a.deals, a.workers)


if __name__ == "__main__":
    main()
