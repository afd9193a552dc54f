"""The engine against a bare game loop, measured in the same run: four
``planner`` bots (classic, 4 players) through the whole engine (referee,
checks, records) against ``bare_loop.py``, a minimal pure-Python Bohnanza
loop with trivial bots (the yardstick of issue 16; a copy of it lives next
to this file).

    python benchmarks/engine_vs_bare.py                  # 7 rounds, 400 + 2,000 games each
    python benchmarks/engine_vs_bare.py --rounds 11 --bot planner
    python benchmarks/engine_vs_bare.py --split     # where the engine's time goes

Each round times both, one after the other (alternating which goes first),
on the same seeds every round; prints the median games/s of each and the
median of the per-round ratios (bare / engine: how many times slower the
engine is). Times are this process's CPU time (``time.process_time``), so
that other processes on a shared machine disturb them less; still, only
the ratio means anything across runs.

``--split`` also times two stripped matches on the same seeds, to show
where a match's time goes: the rules alone (the game's state answered from
a list of the bots' answers, recorded beforehand: no bots, no referee), and
the rules with the bots called straight from the state (no referee: no
checks, faults or notes). What is left of the whole match is the referee's,
and the setup of seats.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bohnarena.bohnanza import RuleSet
from bohnarena.bohnanza.state import State
from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot

HERE = Path(__file__).resolve().parent


def load_bare(path: Path) -> Callable[[int], Any]:
    """``play(seed)`` of the bare loop file at ``path``."""
    spec = importlib.util.spec_from_file_location("bare_loop", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.play  # type: ignore[no-any-return]


def rate(play: Callable[[int], Any], games: int, seed: int) -> float:
    """Games per CPU second playing seeds ``seed`` .. ``seed + games - 1``."""
    gc.collect()
    start = time.process_time()
    for s in range(seed, seed + games):
        play(s)
    return games / (time.process_time() - start)


def stripped(rules: RuleSet, cls: type, seeds: range) -> tuple[Callable[[int], Any], ...]:
    """``(bots, rules)``: a match with the bots called straight from the
    state, and one answered from the answers those bots gave."""
    answers: dict[int, list[Any]] = {}

    def bots(seed: int) -> State:
        state = State(rules, seed)
        players = [cls() for _ in range(rules.players)]
        for s, bot in enumerate(players):
            bot.start(s, rules, random.Random(s))
        views = [state.view(s) for s in range(rules.players)]
        kept = answers.setdefault(seed, [])

        def answer(seat: int, kind: str, args: tuple[Any, ...]) -> tuple[Any, str, Any]:
            kept.append(a := getattr(players[seat], kind)(views[seat], *args))
            return a, "bot", None

        state.asks = [bot.decisions(rules) for bot in players]
        state.seated()
        state.answerer = answer
        state.start()
        return state

    def canned(seed: int) -> State:
        state = State(rules, seed)
        given = iter(answers[seed]).__next__
        state.asks = [cls().decisions(rules)] * rules.players
        state.seated()
        state.answerer = lambda seat, kind, args: (given(), "bot", None)
        state.start()
        return state

    for seed in seeds:  # the answers canned() plays: the same matches
        if bots(seed).records != canned(seed).records:
            raise AssertionError(f"seed {seed}: the canned answers play another match")
    return bots, canned


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bot", default="planner", help="the engine's four bots (default planner)")
    ap.add_argument("--edition", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=400, help="engine games a round")
    ap.add_argument("--bare-games", type=int, default=2000, help="bare loop games a round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--bare", type=Path, default=HERE / "bare_loop.py", help="the yardstick (a play(seed))"
    )
    ap.add_argument(
        "--split",
        action="store_true",
        help="also time the rules alone, and the rules with bots but no referee",
    )
    args = ap.parse_args()

    game = get_game("bohnanza")
    rules = game.rules(args.edition, args.players, {})
    cls = load_bot(args.bot, game.bot_base)
    bare = load_bare(args.bare)

    def engine(seed: int) -> Any:
        return game.play(rules, seed, [cls() for _ in range(args.players)])

    def bare_game(seed: int) -> Any:
        return bare(seed, args.players)

    # One warm-up game each (imports, caches), then the timed rounds.
    engine(args.seed)
    bare_game(args.seed)
    seeds = range(args.seed, args.seed + args.games)
    parts = stripped(rules, cls, seeds) if args.split else ()
    engines, bares, ratios = [], [], []
    splits: list[list[float]] = [[] for _ in parts]
    for r in range(args.rounds):
        if r % 2:
            e = rate(engine, args.games, args.seed)
            b = rate(bare_game, args.bare_games, args.seed)
        else:
            b = rate(bare_game, args.bare_games, args.seed)
            e = rate(engine, args.games, args.seed)
        engines.append(e)
        bares.append(b)
        ratios.append(b / e)
        line = f"round {r + 1}: engine {e:7,.0f} games/s, bare {b:7,.0f} games/s, ratio {b / e:.2f}"
        for part, times in zip(parts, splits, strict=True):
            times.append(b / rate(part, args.games, args.seed))
        if parts:
            line += f" (bots, no referee {splits[0][-1]:.2f}; rules alone {splits[1][-1]:.2f})"
        print(line)
    print(
        f"{args.bot} x{args.players}, {args.edition}: engine {statistics.median(engines):,.0f}"
        f" games/s, bare loop {statistics.median(bares):,.0f} games/s; engine is"
        f" {statistics.median(ratios):.2f}x the bare loop (median of {args.rounds} rounds;"
        f" ratios {min(ratios):.2f}-{max(ratios):.2f})"
    )
    if parts:
        whole, bots, alone = (statistics.median(x) for x in (ratios, *splits))
        print(
            f"of which, in bare loops: rules alone (answers given, records kept) {alone:.2f},"
            f" the bots {bots - alone:.2f}, the referee and seating {whole - bots:.2f}"
        )


if __name__ == "__main__":
    sys.exit(main())
