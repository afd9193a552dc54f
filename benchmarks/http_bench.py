"""What serving bots over HTTP costs: a league of 4 bots served on loopback
(bohnarena.external.http.serve, a process each) against the same 4 bots out of
process (isolation "process": a process each match behind bohnarena's
host, on pipes), the same deals; the wall time of each ``bohnarena run``,
the median think time per answer its timing files recorded, and the
difference per decision. (The host answers a harvest window and the
decision after it in one round trip, one timing row; over HTTP each is a
request of its own: the counts of answers differ, the moves do not.)

    python benchmarks/http_bench.py [--deals 5] [--repeat 3] [--workers 1]

The machine is noisy: compare the two modes of one run, medians of
``--repeat`` runs each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"planner": "planner", "trader": "trader", "random": "random", "planner2": "planner"}
HEAD = 'name = "{name}"\nedition = "classic"\nplayers = 4\ndeals = {deals}\nseed = 5\n\n[bots]\n'


def serve(spec: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bohnarena.external.http.serve", spec, "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if " at " not in line:
        sys.exit(f"the service of {spec} did not start: {line!r}")
    return proc, line.rsplit(" at ", 1)[1].strip()


def league(mode: str, deals: int, urls: dict[str, str]) -> str:
    lines = []
    for name, spec in BOTS.items():
        if mode == "http":
            lines.append(f'{name} = {{ spec = "{urls[name]}", allow_private = true }}')
        else:
            lines.append(f'{name} = {{ spec = "{spec}", isolation = "process" }}')
    return HEAD.format(name=f"bench-{mode}", deals=deals) + "\n".join(lines) + "\n"


def run(text: str, workers: int) -> tuple[float, int, float]:
    """(wall seconds, decisions, median µs per decision) of one league run."""
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "l.toml", Path(tmp) / "out"
        path.write_text(text)
        start = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bohnarena",
                "run",
                str(path),
                "--out",
                str(out),
                "-j",
                str(workers),
                "--no-report",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"the run failed:\n{done.stdout}{done.stderr}")
        micros = pq.read_table(out / "timing").column("micros").to_pylist()  # docs/logs.md
        return took, len(micros), statistics.median(micros)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    services = {name: serve(spec) for name, spec in BOTS.items()}
    try:
        urls = {name: url for name, (_, url) in services.items()}
        results = {}
        for mode in ("command", "http"):
            text = league(mode, args.deals, urls)
            runs = [run(text, args.workers) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            results[mode] = (wall, runs[0][1], statistics.median(r[2] for r in runs))
            print(
                f"{mode:8} wall {wall:7.2f} s  decisions {runs[0][1]:6d}  "
                f"median decision {results[mode][2]:8.0f} µs"
            )
        (cw, decisions, cm), (hw, _, hm) = results["command"], results["http"]
        print(
            f"http - command: {(hw - cw) / decisions * 1e6:+.0f} µs per decision of wall time, "
            f"{hm - cm:+.0f} µs median think time ({hw / cw:.2f}x the wall time)"
        )
    finally:
        for proc, _ in services.values():
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
