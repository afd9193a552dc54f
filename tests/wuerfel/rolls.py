"""Counts physically impossible rolls in played matches: a roll that the
dice still in hand cannot show, given the dice set aside before it. Works
from the records alone (varieties, never die numbers), so it checks the
engine rather than repeating it.

    python -m tests.wuerfel.rolls --turns 10000
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from bohnarena.wuerfel.match import Match
from bohnarena.wuerfel.reconstruct import DieKind, hands_after
from bohnarena.wuerfel.rules import RuleSet, ruleset
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot


def die_kinds(rules: RuleSet) -> list[DieKind]:
    names, faces = rules.varieties, rules.faces
    kinds: dict[tuple[str, ...], int] = {}
    for die in faces:
        key = tuple(names[f] for f in die)
        kinds[key] = kinds.get(key, 0) + 1
    return list(kinds.items())


def impossible_rolls(records: Sequence[tuple[Any, ...]], rules: RuleSet) -> tuple[int, int]:
    """(turns, turns holding an impossible roll) in one match's records."""
    kinds, names = die_kinds(rules), rules.varieties
    turns = bad = 0
    hands: set[tuple[int, ...]] = set()
    roll: list[str] | None = None
    for rec in [*records, ("turn",)]:
        if rec[0] in ("turn", "set_aside") and roll is not None:
            kept = [names[v] for v in rec[2]] if rec[0] == "set_aside" else []
            spec = {"dice": len(roll), "shows": roll, "exactly": {}, "kept": kept}
            hands = {h for hand in hands for h in hands_after(hand, kinds, spec)}
            roll = None
            if not hands:
                bad += 1
        if rec[0] == "turn":
            turns += 1
            hands = {tuple(n for _, n in kinds)}
        elif rec[0] == "rolled":
            roll = [names[v] for v in rec[2]]
    return turns - 1, bad  # the last "turn" is the sentinel


def sample(turns: int, players: int = 3, seed: int = 0) -> tuple[int, int]:
    """Plays matches of the shipped bots until ``turns`` turns are played."""
    rules = ruleset("standard", players)
    played = bad = 0
    while played < turns:
        bots = [GreedyDiceBot(), *(RandomDiceBot() for _ in range(players - 1))]
        match = Match(rules, seed, bots)
        match.play()
        n, b = impossible_rolls(match.records, rules)
        played, bad, seed = played + n, bad + b, seed + 1
    return played, bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    played, bad = sample(args.turns, args.players)
    print(f"{bad} of {played} turns hold an impossible roll")


if __name__ == "__main__":
    main()
