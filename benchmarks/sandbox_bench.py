"""What the sandbox costs: the quickstart league and check-bot, with every
bot in process, as a process, and sandboxed; medians of wall time and the
ratio to in process; and what one match's start costs a sandboxed bot.

    python benchmarks/sandbox_bench.py [--repeat 3] [--league tournaments/quickstart.toml]
        [--modes inprocess,sandbox] [--starts 50]

Each figure is the wall time of the real command (``bohnarena run``,
``bohnarena check-bot``) in a fresh interpreter, start-up included, as a
user would time it. The machine is noisy: compare ratios from one run.
The start of a match (a child forked, the bot imported in it, the ``start``
exchange) is timed alone too, as a median of ``--starts`` starts of the
``--bot`` in one sandbox: the part of a match the sandbox adds.
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


#: Times the starts of one sandboxed bot's matches (run in the tree benchmarked).
STARTS = """
import statistics, sys, time
from bohnarena.core.game import get_game
from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import remote_seat
from bohnarena.external.endpoint import close_sandboxes

spec, n = sys.argv[1], int(sys.argv[2])
game = get_game("bohnanza")
rules = game.rules(game.editions()[0], 4, {})
seat = remote_seat(game.name, BotEntry("b", spec=spec, isolation="sandbox"))
times = []
for i in range(n + 1):  # the first start starts the sandbox too: left out
    start = time.perf_counter()
    fault = seat.start(0, rules, i)
    times.append(time.perf_counter() - start)
    assert fault is None, fault
    seat.close()
close_sandboxes()
print(statistics.median(times[1:]))
"""


def start_seconds(bot: str, n: int) -> float:
    done = subprocess.run(
        [sys.executable, "-c", STARTS, bot, str(n)], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"timing {bot}'s starts failed:\n{done.stderr}")
    return float(done.stdout)


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
    ap.add_argument(
        "--modes",
        default="inprocess,process,sandbox",
        help="which isolations to time, comma-separated (inprocess, the base, always)",
    )
    ap.add_argument("--starts", type=int, default=50, help="match starts timed (0: none)")
    args = ap.parse_args()
    modes = ["inprocess"] + [m for m in args.modes.split(",") if m and m != "inprocess"]
    if not shutil.which("bwrap") and "sandbox" in modes:
        modes.remove("sandbox")
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
    if "sandbox" in modes and args.starts:
        took = start_seconds(args.bot, args.starts)
        print(
            f"a match's start, sandboxed {args.bot}, median of {args.starts}: {took * 1e3:.1f} ms"
        )
    for what, times in results.items():
        base = times["inprocess"]
        print(f"{what} ({args.league if what == 'league' else args.bot}), median of {args.repeat}:")
        for mode, t in times.items():
            print(f"  {mode:<10} {t:7.2f} s   {t / base:5.2f}x in process")


if __name__ == "__main__":
    main()
