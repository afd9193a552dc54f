"""What a run costs after its last match, what `rank` costs on the finished
directory, and what logging moves costs (issue 23, part 2).

    python benchmarks/tail_bench.py                     # 10,000 matches
    python benchmarks/tail_bench.py --deals 25000       # the issue's 100,000 matches
    python benchmarks/tail_bench.py --log-cost          # 2,000 matches of four planners at -j 1
    python benchmarks/tail_bench.py --deals 6250 --keep DIR   # 25,000 matches, kept in DIR/out
    python benchmarks/tail_bench.py --from DIR/out      # its tail's pieces, rank, report again

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
from bohnarena.report.watch import write_pages as watch  # the report's viewer pages, as `run`
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

#: Run in a fresh process on a finished directory: the pieces of a run's
#: tail that can be timed again without playing (the rating is the
#: directory's, read first), each in wall and CPU time.
PIECES = """
import json, resource, sys, tempfile, time
from pathlib import Path
from bohnarena.report.watch import write_pages as watch
from bohnarena.analysis.results import read_results
from bohnarena.analysis.thinking import thinking
from bohnarena.report.html import write_report
from bohnarena.run.rankfiles import keep_curve, write_ranking
from bohnarena.store.directory import RunDir
from bohnarena.store.reading import RunReader
def cpu():
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(r.ru_utime + r.ru_stime for r in usage)
out = Path(sys.argv[1])
times = {}
def timed(name, f):
    wall, used = time.perf_counter(), cpu()
    value = f()
    times[name] = (time.perf_counter() - wall, cpu() - used)
    return value
r = timed("read the results", lambda: read_results(out))
listing = lambda: RunReader(out).listing().require()
timed("thinking from every timing file", lambda: thinking(listing(), r.matches))
store = RunDir(out)
timed("ranking files", lambda: write_ranking(store, r.league, r.ranking))
timed("rating curve", lambda: keep_curve(store, r))
with tempfile.TemporaryDirectory() as tmp:
    page = Path(tmp) / "r.html"
    timed("report without viewer pages", lambda: write_report(out, page, results=r))
    timed("viewer pages", lambda: watch(r, page))
    timed("report with them", lambda: write_report(out, page, results=r, watch=watch))
    try:  # the think times summed up as a run's workers hand them back (not timed)
        from bohnarena.analysis.thinking import Timings
    except ImportError:  # a bohnarena before them
        Timings = None
    if Timings is not None:
        r.timings = Timings(list(r.league.bots))
        r.timings.read(listing(), r.matches)
        tail = "report as the run's tail writes it"
        timed(tail, lambda: write_report(out, page, results=r, watch=watch))
print(json.dumps(times))
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


def tail(deals: int, workers: int, keep: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        where = keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        league = write(where, deals, MIXED)
        out = where / "out"
        f = play(league, out, workers)
        matches = deals * 4
        print(
            f"{matches:,} matches at -j {workers}: play {f['play']:.1f} s; after the last "
            f"match: {f['tail']:.1f} s, {f['tail_cpu']:.1f} s of the run's CPU (ranking "
            f"files and compaction {f['run'] - f['play']:.1f} s, report {f['report']:.1f} s "
            f"with its {len(list(out.glob('watch/*.html')))} viewer pages)"
        )
        directory(out)


def pieces(out: Path) -> None:
    """The tail's pieces timed again on a finished directory."""
    done = subprocess.run([sys.executable, "-c", PIECES, str(out)], check=True, capture_output=True)
    for name, (wall, cpu) in json.loads(done.stdout.strip().splitlines()[-1]).items():
        print(f"{name}: {wall:.2f} s ({cpu:.2f} s of CPU)")


def directory(out: Path) -> None:
    """`rank` and `report` on a finished results directory, each in a fresh process."""
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
    p.add_argument(
        "--keep", type=Path, help="play into this directory and keep it (league file and out/)"
    )
    p.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="play nothing: time the tail's pieces, rank and report on this results directory",
    )
    a = p.parse_args()
    if a.source is not None:
        pieces(a.source)
        directory(a.source)
    elif a.log_cost:
        log_cost(500 if a.deals == 2500 else a.deals, a.repeat)
    else:
        tail(a.deals, a.workers, a.keep)


if __name__ == "__main__":
    main()
