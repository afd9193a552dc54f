"""How strong the bean counter (bots/searcher.py) is, and how long it thinks.

    nice -n 5 python benchmarks/beancounter_strength.py --matches 200

plays classic 4-player matches of beancounter against trader, planner and
random, the seats rotated over each deal (match ``m`` plays deal ``m // 4``
in rotation ``m % 4``), and prints the bean counter's win share (a tie for
first splits the win), its mean place and coins, and the wall time of its
decisions (median, 99th percentile, worst). ``--edition``/``--players``
play other tables (the opponents repeat in order). ``--playouts``,
``--horizon`` and ``--deals`` override the search budget, to tune it;
``--set NAME=VALUE`` any other option (``--set begs=0``), and
``--no-search`` plays its heuristics alone (fast, to screen them).

The Rio Grande league of every shipped bot is a league file:

    bohnarena run tournaments/search-riogrande.toml -j 1 --no-moves
    bohnarena rank results/search-riogrande
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
from typing import Any, ClassVar

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.core.plugins import load_bot
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.searcher import BeanCounterBot


class Timed(BeanCounterBot):
    """The bean counter, its decisions timed (but windows with no field to
    buy, answered at once)."""

    times: ClassVar[list[float]] = []

    def _search(self, *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return super()._search(*args)
        finally:
            self.times.append(time.perf_counter() - t)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--edition", default="classic")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=0, help="first deal's seed")
    p.add_argument("--playouts", type=int, help="rollouts a decision")
    p.add_argument("--horizon", type=int, help="rounds a rollout plays (0: to the end)")
    p.add_argument("--deals", type=int, help="least samples a decision")
    p.add_argument("--trader", default="trader", help="the trader's bot spec (another version)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a bean counter option (a Python literal of its type), e.g. --set begs=0",
    )
    p.add_argument("--no-search", action="store_true", help="its heuristics alone")
    a = p.parse_args()
    for option in a.set:
        name, _, text = option.partition("=")
        old = vars(BeanCounterBot).get(name, ...) if not name.startswith("_") else ...
        if old is ... or callable(old):
            p.error(f"no option {name!r} (the class attributes of BeanCounterBot)")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            p.error(f"--set {option}: not a Python literal")
        if old is not None and not isinstance(value, type(old)):
            p.error(f"--set {option}: {name} is a {type(old).__name__}")
        setattr(Timed, name, value)
    if a.no_search:
        Timed.searched = frozenset()
    if a.playouts is not None:
        Timed.playouts = a.playouts
    if a.horizon is not None:
        Timed.horizon_rounds = a.horizon
    if a.deals is not None:
        Timed.min_deals = a.deals
    trader = load_bot(a.trader, Bot)
    rules = ruleset(a.edition, a.players)
    n = a.players
    wins = places = coins = 0.0
    searched = capped = 0
    started = time.perf_counter()
    for m in range(a.matches):
        deal, rot = divmod(m, n)
        others: list[Bot] = [trader(), PlannerBot(), RandomBot()]
        bots: list[Bot] = [others[i % 3] if i else Timed() for i in range(n)]
        for i in range(1, n):  # a fresh object per seat
            bots[i] = type(bots[i])()
        bots = bots[n - rot :] + bots[: n - rot]  # the bean counter sits in seat rot
        result, _ = play_match(rules, a.seed + deal, bots)
        assert not any(result.faults), result.faults
        me = bots[rot]
        assert isinstance(me, Timed)
        searched, capped = searched + me.searches, capped + me.capped
        if rot in result.winners:
            wins += 1 / len(result.winners)
        places += result.ranks[rot]
        coins += result.coins[rot]
        if (m + 1) % 20 == 0:
            print(f"  {m + 1} matches: win share {wins / (m + 1):.3f}", flush=True)
    k = a.matches
    t = sorted(Timed.times)
    print(f"{a.edition} {n}p, beancounter vs {a.trader}, planner, random; {k} matches")
    print(f"win share {wins / k:.3f} (1/{n} = {1 / n:.3f}); mean place {places / k:.2f}")
    print(f"mean coins {coins / k:.1f}; {time.perf_counter() - started:.0f} s")
    print(
        f"decisions timed: {len(t)}; median {1000 * statistics.median(t):.1f} ms, "
        f"99th percentile {1000 * t[int(0.99 * (len(t) - 1))]:.1f} ms, worst {1000 * t[-1]:.1f} ms"
    )
    print(
        f"searched (more than one candidate) {searched}, "
        f"cut short by the clock {capped} ({capped / max(searched, 1):.1%})"
    )


if __name__ == "__main__":
    main()
