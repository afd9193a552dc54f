"""What logging moves costs a worker, in instructions: a count that the
machine's other load does not move (unlike CPU time on a shared machine).

    python benchmarks/log_instructions.py                  # this tree, 2 batches
    python benchmarks/log_instructions.py --tree A --tree B   # trees side by side
                                       # (trees with records handed over: issue 23)

Plays ``--batches`` batches of 50 matches of four planners in one process
(the worker's ``play_batch``) and pickles each result as a pool's worker
sends it, each run under valgrind's cachegrind, in each of :data:`MODES`:
with a worker on every core (each writes its own Parquet files) and with
fewer (a worker hands its records over, and the run, on a core of its own,
builds and writes the tables), moves logged or not; and once none. A
batch's instructions are the run's less the one with none (the imports,
and one batch of each kind played first, so that all are warm). The run's
share of a batch handed over is counted apart: it is spent on another core
than the worker's.
The bots have no time limits (under valgrind a limit would cut answers
short, differently run to run), hashing is seeded, and numpy and Arrow use
one thread: the counts repeat to a few parts in 10,000. Needs valgrind;
each run takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Run under valgrind: the league file, the mode (one of MODES) and ``batches``.
PLAY = """
import pickle, signal, sys, tempfile
from itertools import islice
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
import pyarrow as pa
from bohnarena.league.file import load_league
from bohnarena.league.schedule import schedule
from bohnarena.referee.limits import Limits
from bohnarena.run import worker
from bohnarena.store.directory import RunDir
from bohnarena.store.logbook import warm_up
pa.set_memory_pool(pa.system_memory_pool())  # as a run sets it
# Valgrind may deliver the watchdog's last tick after the batch put the
# handler back: ignored, not the default's death.
signal.signal(signal.SIGALRM, signal.SIG_IGN)
league, mode, k = load_league(sys.argv[1]), sys.argv[2], int(sys.argv[3])
tmp = Path(tempfile.mkdtemp())
specs = list(islice(schedule(list(league.bots), 4, 500, league.seed), 50 * (k + 2)))
for table in ("matches", "moves", "timing"):
    (tmp / "out" / table).mkdir(parents=True)
unlimited = Limits(decision_seconds=1e5, match_seconds=1e6)
def task(i, logged, hand_over):
    return worker.BatchTask(league.game, league.edition, 4, league.rules, league.bots,
                            tuple(specs[50 * i : 50 * i + 50]), logged, str(tmp / "out"),
                            unlimited, hand_over=hand_over)
def play(i, logged, hand_over, run):
    sent = ForkingPickler.dumps(worker.play_batch(task(i, logged, hand_over)))  # as sent
    if run:  # what the run does with a batch sent back
        r = worker.built(pickle.loads(sent))
        RunDir(tmp / "out").commit(50 * i, 50 * i + 49, r.matches, r.moves, r.timing)
warm_up()
play(k, True, "files", False)
play(k + 1, True, "records", True)
play(k, False, "records", True)
logged = mode in ("files", "records", "run")
for i in range(k):
    play(i, logged, "files" if mode in ("files", "unlogged files") else "records", mode == "run")
"""
#: A worker on every core: moves not logged, and logged, the worker writing
#: its files; fewer workers than cores: moves not logged (the matches sent
#: back), and logged, handed over as "records" (the worker's share); and the
#: run's share too (the tables built and written).
MODES = ("unlogged files", "files", "unlogged records", "records", "run")

#: Hashing seeded; numpy's BLAS and Arrow's pool (OMP_NUM_THREADS) one thread.
QUIET = {
    "PYTHONHASHSEED": "0",
    **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"),
}


LEAGUE = (
    'name = "log"\nedition = "classic"\nplayers = 4\ndeals = 500\nseed = 1\n[bots]\n'
    + "".join(f'p{i} = "planner"\n' for i in range(4))
)


def instructions(tree: Path, league: Path, mode: str, batches: int) -> int:
    env = {**os.environ, **QUIET, "PYTHONPATH": str(tree)}
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*command, sys.executable, "-c", PLAY, str(league), mode, str(batches)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
    return int(found[1].replace(",", ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, default=2, help="batches of 50 matches a run")
    p.add_argument(
        "--tree", type=Path, action="append", help="a bohnarena tree to count (repeatable)"
    )
    a = p.parse_args()
    if shutil.which("valgrind") is None:
        p.error("needs valgrind (Debian: apt-get install valgrind)")
    for tree in a.tree or []:
        if not (tree / "bohnarena" / "__init__.py").is_file():
            p.error(f"--tree {tree}: not a bohnarena tree (no bohnarena/__init__.py)")
    with tempfile.TemporaryDirectory() as tmp:
        league = Path(tmp) / "log.toml"
        league.write_text(LEAGUE)
        for tree in a.tree or [Path(__file__).resolve().parent.parent]:
            count(tree, league, a.batches)


def count(tree: Path, league: Path, batches: int) -> None:
    none = instructions(tree, league, "unlogged records", 0)
    counts = {m: (instructions(tree, league, m, batches) - none) / batches for m in MODES}

    def logged(mode: str, off: str) -> str:
        on, base = counts[mode], counts[off]
        return f"{on / 1e6:.0f} M, {base / 1e6:.0f} M not logged: logging {(on - base) / on:.0%}"

    print(
        f"{tree}: a batch of 50 matches of four planners, in a worker's instructions;"
        f" the worker writes its files: {logged('files', 'unlogged files')};"
        f" handed over as records: {logged('records', 'unlogged records')}, and the run"
        f" builds and writes the tables in {(counts['run'] - counts['records']) / 1e6:.0f} M",
        flush=True,
    )


if __name__ == "__main__":
    main()
