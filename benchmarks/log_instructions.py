"""What logging moves costs a worker, in instructions: a count that the
machine's other load does not move (unlike CPU time on a shared machine).

    python benchmarks/log_instructions.py                  # this tree, 2 batches
    python benchmarks/log_instructions.py --tree /tmp/old --tree .   # trees side by side

Plays ``--batches`` batches of 50 matches of four planners in one process
(the worker's ``play_batch``, results spooled to a temporary directory),
moves logged or not, and once none, each run under valgrind's cachegrind;
a batch's instructions are the run's less the one with none (the imports,
and one batch of each kind played first, so that both kinds are warm).
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

#: Run under valgrind: the league file, ``moves`` ("on" or "off") and ``batches``.
PLAY = """
import signal, sys, tempfile
from itertools import islice
from pathlib import Path
import pyarrow as pa
from bohnarena.league.file import load_league
from bohnarena.league.schedule import schedule
from bohnarena.referee.limits import Limits
from bohnarena.run import worker
from bohnarena.store.logbook import warm_up
pa.set_memory_pool(pa.system_memory_pool())  # as a run sets it
# Valgrind may deliver the watchdog's last tick after the batch put the
# handler back: ignored, not the default's death.
signal.signal(signal.SIGALRM, signal.SIG_IGN)
league, moves, k = load_league(sys.argv[1]), sys.argv[2] == "on", int(sys.argv[3])
tmp = Path(tempfile.mkdtemp())
specs = list(islice(schedule(list(league.bots), 4, 500, league.seed), 50 * (k + 1)))
for table in ("matches", "moves", "timing"):
    (tmp / "out" / table).mkdir(parents=True)
unlimited = Limits(decision_seconds=1e5, match_seconds=1e6)
def task(i, logged):
    return worker.BatchTask(league.game, league.edition, 4, league.rules, league.bots,
                            tuple(specs[50 * i : 50 * i + 50]), logged, str(tmp / "out"), unlimited)
warm_up()
worker.play_batch(task(k, True))
worker.play_batch(task(k, False))
for i in range(k):
    worker.play_batch(task(i, moves))
"""

#: Hashing seeded; numpy's BLAS and Arrow's pool (OMP_NUM_THREADS) one thread.
QUIET = {
    "PYTHONHASHSEED": "0",
    **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"),
}


LEAGUE = (
    'name = "log"\nedition = "classic"\nplayers = 4\ndeals = 500\nseed = 1\n[bots]\n'
    + "".join(f'p{i} = "planner"\n' for i in range(4))
)


def instructions(tree: Path, league: Path, moves: str, batches: int) -> int:
    env = {**os.environ, **QUIET, "PYTHONPATH": str(tree)}
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*command, sys.executable, "-c", PLAY, str(league), moves, str(batches)],
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
    none = instructions(tree, league, "off", 0)
    off, on = ((instructions(tree, league, m, batches) - none) / batches for m in ("off", "on"))
    print(
        f"{tree}: a batch of 50 matches of four planners takes {on / 1e6:.0f} M "
        f"instructions with moves logged, {off / 1e6:.0f} M without: logging is "
        f"{(on - off) / 1e6:.0f} M, {(on - off) / on:.0%} of the batch",
        flush=True,
    )


if __name__ == "__main__":
    main()
