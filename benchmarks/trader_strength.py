"""How strong the shipped ``trader`` is: seeded matches against the trader as
it was before (``trader_before.py``, a verbatim copy), ``planner`` and
``random``, with the seating cycled through every distinct arrangement, so each bot
sits in every seat, and next to every other bot on either side, equally
often (a gift offered to everyone goes first to the giver's left neighbour,
so mere rotation would favour whichever bot sits left of another).

    python benchmarks/trader_strength.py                      # both tables, 408 and 420 matches
    python benchmarks/trader_strength.py --matches 1000 --seed 7
    python benchmarks/trader_strength.py --table classic      # one table only
    python benchmarks/trader_strength.py --bots trader planner random random

Tables: ``classic`` (4 players: trader, trader-before, planner, random) and
``riogrande`` (5 players: the same and a second random). Prints, per bot, its
win share (a tie of k winners gives each 1/k) and mean coins, the faults of
any seat, and the new trader's mean wall time a decision (its decision
methods timed in CPU time, ``time.process_time``, the engine's own time excluded).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot

HERE = Path(__file__).resolve().parent

TABLES = {
    "classic": ("classic", ("trader", "trader-before", "planner", "random")),
    "riogrande": ("riogrande", ("trader", "trader-before", "planner", "random", "random")),
}


def before_class() -> type:
    spec = importlib.util.spec_from_file_location("trader_before", HERE / "trader_before.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TraderBot  # type: ignore[no-any-return]


class Clock:
    """Times every decision method of one bot instance (instance attributes
    shadow the class's methods; the engine looks them up per call)."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0

    def wrap(self, bot: Any) -> Any:
        for kind in DECISION_METHODS:
            method = getattr(bot, kind)
            setattr(bot, kind, self._timed(method))
        return bot

    def _timed(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any) -> Any:
            start = time.process_time()
            try:
                return method(*args)
            finally:
                self.seconds += time.process_time() - start
                self.calls += 1

        return timed


def table(name: str, matches: int, seed: int, bots: Sequence[str] = ()) -> None:
    edition, names = TABLES[name]
    names = tuple(bots) or names
    game = get_game("bohnanza")
    players = len(names)
    rules = game.rules(edition, players, {})
    classes: dict[str, type] = {"trader-before": before_class()}
    for n in set(names) - set(classes):
        classes[n] = load_bot(n, game.bot_base)
    arrangements = sorted(set(itertools.permutations(range(players))), key=lambda p: p)
    # bots of the same name are interchangeable: one arrangement of each seating
    seen, seatings = set(), []
    for p in arrangements:
        key = tuple(names[i] for i in p)
        if key not in seen:
            seen.add(key)
            seatings.append(p)
    if matches % len(seatings):
        matches += len(seatings) - matches % len(seatings)  # every seating equally often
    labels = [
        n if names.count(n) == 1 else f"{n}{names[:i].count(n) + 1}" for i, n in enumerate(names)
    ]
    wins: dict[str, float] = defaultdict(float)
    coins: dict[str, int] = defaultdict(int)
    faults = 0
    clock = Clock()
    start = time.perf_counter()
    for m in range(matches):
        order = seatings[m % len(seatings)]  # seat -> bot index
        bots = []
        for i in order:
            bot = classes[names[i]]()
            bots.append(clock.wrap(bot) if names[i] == "trader" else bot)
        result, _ = game.play(rules, seed + m, bots)
        faults += sum(result.faults)
        for s, i in enumerate(order):
            coins[labels[i]] += result.coins[s]
            if s in result.winners:
                wins[labels[i]] += 1 / len(result.winners)
    took = time.perf_counter() - start
    seeds = f"seeds {seed}..{seed + matches - 1}"
    print(f"{name}: {edition}, {players} players, {matches} matches, {seeds}")
    print(f"  {'bot':<14} {'win share':>9} {'mean coins':>10}")
    for label in labels:
        print(f"  {label:<14} {wins[label] / matches:>9.1%} {coins[label] / matches:>10.2f}")
    print(f"  faults: {faults}; {took:.1f} s in all")
    per = clock.seconds / max(clock.calls, 1)
    print(f"  trader: {clock.calls} decisions, mean {per * 1e6:.1f} us a decision")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--matches",
        type=int,
        default=400,
        help="matches a table, rounded up to a whole number of seatings (default 400: 408 and 420)",
    )
    ap.add_argument("--seed", type=int, default=0, help="the first match's seed")
    ap.add_argument("--table", choices=[*TABLES, "all"], default="all")
    ap.add_argument("--bots", nargs="*", default=(), help="other bots at the table (by name)")
    args = ap.parse_args()
    for name in TABLES if args.table == "all" else [args.table]:
        table(name, args.matches, args.seed, args.bots)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
