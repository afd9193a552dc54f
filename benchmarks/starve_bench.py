"""CPU starvation from the sandbox (issue 43, hole 6): a sandboxed command
bot (tests/hostile/hog.py) that forks busy processes, each in a session of
its own, beside an honest bot (tests/hostile/thinker.py; in process, or
sandboxed with ``--honest sandbox``) that thinks ``--think`` seconds of CPU
in each planting under a ``--limit``-second decision limit, and a random
bot. Reports the honest bot's faults (timeouts: it has no other way to
fault; sandboxed, a timeout ends its match, a forfeit) in ``--matches``
matches, with the sandbox's CPU weight contained (this code) and not
(``uncontained``: the cgroup CPU weight turned off, as before issue 43),
alternately, ``--repeat`` times each.

    python benchmarks/starve_bench.py [--matches 3] [--processes 30] [--think 0.1]
        [--limit 1.0] [--repeat 1] [--modes uncontained,contained] [--honest inprocess]

Run as root on a machine whose cgroup ``cpu`` hierarchy may be written;
elsewhere both modes are uncontained (the run warns). One worker, on one
core of its own as every worker is: the hog's processes share that core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"


def league(path: Path, args: argparse.Namespace) -> Path:
    hog = ["python3", str(HOSTILE / "hog.py"), str(args.processes), "600"]
    text = (
        f'name = "starve"\nedition = "classic"\nplayers = 3\ndeals = {args.matches // 3}\n'
        f"seed = 7\n[limits]\ndecision_seconds = {args.limit}\n"
        f'[bots]\nhog = {{ command = {json.dumps(hog)}, isolation = "sandbox" }}\n'
        f'honest = {{ spec = "{HOSTILE / "thinker.py"}:Thinks", isolation = "{args.honest}" }}\n'
        'random = "random"\n'
    )
    (path / "league.toml").write_text(text)
    return path / "league.toml"


def honest_faults(out: Path) -> int:
    rows = pq.read_table(out / "matches").to_pylist()
    return sum(row["faults"][row["seats"].index("honest")] for row in rows)


def one(mode: str, args: argparse.Namespace) -> tuple[int, float]:
    import bohnarena.external.sandbox.cgroups as cgroups
    from bohnarena.run.dispatch import run_league

    contained = getattr(cgroups, "cpu_contained", None)  # (None: the code before it)
    if mode == "uncontained":  # the workers are forked: they inherit this
        cgroups.cpu_contained = lambda: False  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = league(Path(tmp), args)
            start = time.perf_counter()
            summary = run_league(path, Path(tmp) / "out", workers=1, progress=False)
            took = time.perf_counter() - start
            assert summary.complete, summary
            return honest_faults(Path(tmp) / "out"), took
    finally:
        cgroups.cpu_contained = contained  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=3, help="a multiple of 3 (deals of 3 seatings)"
    )
    parser.add_argument("--processes", type=int, default=30)
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--limit", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--modes", default="uncontained,contained")
    parser.add_argument(
        "--honest", default="inprocess", help="the honest bot's isolation (inprocess, sandbox)"
    )
    args = parser.parse_args()
    if args.matches % 3:
        sys.exit("--matches: a multiple of 3")
    os.environ["THINKER_SECONDS"] = str(args.think)  # tests/hostile/thinker.py reads it
    import bohnarena.external.sandbox.cgroups as cgroups

    weighs = getattr(cgroups, "cpu_contained", lambda: False)()
    print(f"a sandbox's CPU weight follows its turns here: {'yes' if weighs else 'NO'}")
    print(
        f"{args.processes} busy processes; honest bot ({args.honest}) thinks {args.think} s, "
        f"limit {args.limit} s"
    )
    for r in range(args.repeat):
        for mode in args.modes.split(","):
            faults, took = one(mode, args)
            print(
                f"{mode:>12} #{r + 1}: honest bot's timeouts in {args.matches} matches: "
                f"{faults:3d}  ({took:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
