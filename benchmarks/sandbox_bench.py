"""What the sandbox costs: the quickstart league and check-bot, with every
bot in process, as a process, and sandboxed; medians of wall time and the
ratio to in process.

    python benchmarks/sandbox_bench.py [--repeat 3] [--league tournaments/quickstart.toml]

Each figure is the wall time of the real command (``bohnarena run``,
``bohnarena check-bot``) in a fresh interpreter, start-up included, as a
user would time it. The machine is noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    return took


def league_file(source: Path, isolation: str, into: Path) -> Path:
    text = source.read_text()
    if isolation != "inprocess":
        text += f'\n[run]\nisolation = "{isolation}"\n' if "[run]" not in text else ""
    path = into / f"{isolation}.toml"
    path.write_text(text)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--league", default="tournaments/quickstart.toml")
    ap.add_argument("--bot", default="trader", help="the bot check-bot checks")
    args = ap.parse_args()
    modes = (
        ["inprocess", "process", "sandbox"] if shutil.which("bwrap") else ["inprocess", "process"]
    )
    exe = [sys.executable, "-m", "bohnarena"]
    results: dict[str, dict[str, float]] = {"league": {}, "check-bot": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            league = league_file(ROOT / args.league, mode, Path(tmp))
            out = Path(tmp) / f"out-{mode}"
            results["league"][mode] = statistics.median(
                timed([*exe, "run", str(league), "-o", str(out), "--restart", "--no-progress"])
                for _ in range(args.repeat)
            )
            results["check-bot"][mode] = statistics.median(
                timed([*exe, "check-bot", args.bot, "--isolation", mode])
                for _ in range(args.repeat)
            )
    for what, times in results.items():
        base = times["inprocess"]
        print(f"{what} ({args.league if what == 'league' else args.bot}), median of {args.repeat}:")
        for mode, t in times.items():
            print(f"  {mode:<10} {t:7.2f} s   {t / base:5.2f}x in process")


if __name__ == "__main__":
    main()
