"""Decision times of the abacus beside the bean counter's (issue 29): both at
one table with a trader and a planner (classic, 4 players), every searched
decision timed in this process's CPU time (a shared machine's load
disturbs it less than the clock on the wall).

    python benchmarks/abacus_time.py               # 3 matches
    python benchmarks/abacus_time.py --matches 10
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bohnarena.bohnanza import play_match, ruleset
from bohnarena_bots.abacus import AbacusBot
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.searcher import BeanCounterBot
from bohnarena_bots.trader import TraderBot


def timed(cls: type[BeanCounterBot], times: list[float]) -> type[BeanCounterBot]:
    """``cls`` with every decision it searches timed into ``times``."""

    class Timed(cls):  # type: ignore[valid-type,misc]
        def _best(self, *args: Any) -> Any:
            began = time.process_time()
            answer = super()._best(*args)
            times.append(time.process_time() - began)
            return answer

    return Timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    times: dict[str, list[float]] = {"abacus": [], "beancounter": []}
    abacus, counter = timed(AbacusBot, times["abacus"]), timed(BeanCounterBot, times["beancounter"])
    rules = ruleset("classic", 4)
    for m in range(args.matches):
        bots = [abacus(), counter(), TraderBot(), PlannerBot()]
        k = m % 4  # seats rotate
        play_match(rules, args.seed + m, bots[k:] + bots[:k])
    for name, ts in times.items():
        ts.sort()
        print(
            f"{name}: {len(ts)} searched decisions, median {statistics.median(ts) * 1e3:.1f} ms,"
            f" 90th percentile {ts[len(ts) * 9 // 10] * 1e3:.1f} ms, max {ts[-1] * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()
