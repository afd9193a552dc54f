"""Random playouts of the card game's state against a bare game loop,
measured in the same run (issue 29): how many playouts a second a search
gets, as a share of ``bare_loop.py``'s whole games a second (the yardstick
of engine_vs_bare.py; a copy of it lives next to this file).

    python benchmarks/playouts_vs_bare.py                 # 7 rounds
    python benchmarks/playouts_vs_bare.py --rounds 11 --playouts 400 --mid 15

Four ways are timed, each on the same roots every round: a match's first
decision copied (``clone()``) or sampled by the seat it waits for
(``determinize(seat, rng)``), then played to the end (``playout(rng)``,
the random policy); and the same from mid-game (the first decision of turn
``--mid``, reached with random answers through ``apply``, so the root
holds a live match's records). Building the roots is not timed. Each
round times the bare loop and the four in turn (the order rotating), in
this process's CPU time; printed are the medians of the rates and of the
per-round shares (playouts/s over bare games/s: 0.5 is half as many
playouts as bare games a second). ``--checked`` times the referee's way of
playing out as well (every answer checked and recorded). The engine's own
loop is timed the same way (``--engine-games`` whole refereed matches of
four planners a round, as ``bohnarena bench`` plays them): its share of the
bare loop's games/s is the engine's ratio, in CPU time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bohnarena.bohnanza import ruleset
from bohnarena.bohnanza.state import State
from bohnarena.core.game import get_game
from bohnarena.tools.bench import STARTS, playout_roots
from bohnarena_bots.planner import PlannerBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_vs_bare import load_bare

HERE = Path(__file__).resolve().parent


def seconds(roots: list[State], start: str, checked: bool = False) -> float:
    """CPU seconds to play every root out once (see bohnarena.bench.playout_rate)."""
    began = time.process_time()
    for i, root in enumerate(roots):
        rng = random.Random(i)
        state = root.clone() if start == "clone" else root.determinize(root.pending[0], rng)
        state.playout(rng, checked=checked)
    return time.process_time() - began


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--edition", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--playouts", type=int, default=300, help="roots (playouts a way a round)")
    ap.add_argument("--bare-games", type=int, default=1000, help="bare loop games a round")
    ap.add_argument("--mid", type=int, default=15, help="mid-game roots: the turn they stop in")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--parts", type=int, default=20, help="turns a round is timed in")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checked", action="store_true", help="also the checked playout")
    ap.add_argument(
        "--engine-games", type=int, default=200, help="refereed planner matches a round"
    )
    ap.add_argument("--bare", type=Path, default=HERE / "bare_loop.py")
    args = ap.parse_args()

    rules = ruleset(args.edition, args.players)
    bare = load_bare(args.bare)
    first = playout_roots(State, rules, args.playouts, args.seed)
    mid = playout_roots(State, rules, args.playouts, args.seed, turns=args.mid)
    k = args.parts

    def share(roots: list[State], part: int) -> list[State]:
        return roots[part::k]

    ways: dict[str, Callable[[int], float]] = {}
    work: dict[str, int] = {"bare loop": args.bare_games}
    for where, roots in (("first decision", first), (f"turn {args.mid}", mid)):
        for start in STARTS:
            name = f"{start} + playout, {where}"
            ways[name] = lambda part, roots=roots, start=start: seconds(share(roots, part), start)
            work[name] = len(roots)
    if args.checked:
        name = "clone + checked playout, first decision"
        ways[name] = lambda part: seconds(share(first, part), "clone", checked=True)
        work[name] = len(first)

    if args.engine_games:
        # the engine's own loop: whole refereed matches, every answer checked and recorded
        game = get_game("bohnanza")

        def engine(part: int) -> float:
            began = time.process_time()
            for s in range(args.seed + part, args.seed + args.engine_games, k):
                game.play(rules, s, [PlannerBot() for _ in range(args.players)])
            return time.process_time() - began

        name = "engine, refereed matches of planners"
        ways[name] = engine
        work[name] = args.engine_games

    def bare_rate(part: int) -> float:
        began = time.process_time()
        for s in range(args.seed + part, args.seed + args.bare_games, k):
            bare(s, args.players)
        return time.process_time() - began

    timed = [("bare loop", bare_rate), *ways.items()]
    rates: dict[str, list[float]] = {name: [] for name, _ in timed}
    shares: dict[str, list[float]] = {name: [] for name in ways}
    print(f"load average {os.getloadavg()[0]:.2f} at the start, {os.cpu_count()} cores")
    for r in range(args.rounds):
        # in short turns (a share of the work each), so that both see the same load
        spent = {name: 0.0 for name, _ in timed}
        for part in range(args.parts):
            for name, fn in timed[part % len(timed) :] + timed[: part % len(timed)]:
                spent[name] += fn(part)
        now = {name: work[name] / spent[name] for name in spent}
        for name, value in now.items():
            rates[name].append(value)
            if name in shares:
                shares[name].append(value / now["bare loop"])
        print(
            f"round {r + 1}: bare {now['bare loop']:,.0f} games/s; "
            + "; ".join(f"{name} {now[name]:,.0f}/s" for name in ways),
            flush=True,
        )
    print(
        f"{args.edition} {args.players}p, medians of {args.rounds} rounds"
        f" (load average {os.getloadavg()[0]:.2f} at the end):"
    )
    print(f"  bare loop: {statistics.median(rates['bare loop']):,.0f} games/s")
    for name in ways:
        unit = "games" if name.startswith("engine") else "playouts"
        print(
            f"  {name}: {statistics.median(rates[name]):,.0f} {unit}/s,"
            f" {statistics.median(shares[name]):.2f} of the bare loop's games/s"
            f" (rounds {min(shares[name]):.2f}-{max(shares[name]):.2f})"
        )


if __name__ == "__main__":
    main()
