"""The dice-face reconstruction: which varieties can sit on which faces,
given the public colour model and every example of the rule text
(data/text_examples.toml). docs/wuerfel.md explains the choice.

    python -m bohnarena.wuerfel.reconstruct

lists every assignment of varieties to the model's letters, which examples
each one breaks, and how many fit them all.
"""

from __future__ import annotations

import itertools
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from .orders import first_roll_chance, parse

#: A kind of die and how many of it the game has: (faces as variety names, count).
DieKind = tuple[tuple[str, ...], int]


def examples() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("data", "text_examples.toml").read_text("utf-8")
    return tomllib.loads(text)


def dice_of(mapping: Mapping[str, str], model: Mapping[str, Any]) -> list[DieKind]:
    """The white and the beige die of the model, its letters replaced by ``mapping``."""
    return [
        (tuple(mapping.get(f, f) for f in model[colour]), model[f"{colour}_dice"])
        for colour in ("white", "beige")
    ]


def hands_after(
    hand: tuple[int, ...], kinds: Sequence[DieKind], roll: Mapping[str, Any]
) -> set[tuple[int, ...]]:
    """The hands (dice left of each kind) after ``roll`` of the dice in
    ``hand``, over every way the rolled dice can show it; empty: impossible."""
    shows, kept = list(roll["shows"]), Counter(roll["kept"])
    exactly: dict[str, int] = dict(roll["exactly"])
    if sum(hand) != roll["dice"]:
        return set()
    after = set()
    # Which kind of die shows each named bean: try every choice.
    for owners in itertools.product(range(len(kinds)), repeat=len(shows)):
        used = Counter(owners)
        if any(used[k] > hand[k] or shows[i] not in kinds[k][0] for i, k in enumerate(owners)):
            continue
        # The dice not named must show something the roll leaves free.
        free = [any(f not in exactly for f in kinds[k][0]) for k in range(len(kinds))]
        if any(hand[k] > used[k] and not free[k] for k in range(len(kinds))):
            continue
        if any(Counter(shows)[v] > n for v, n in exactly.items()):
            continue
        left = list(hand)
        rest = Counter(kept)
        for i, k in enumerate(owners):
            if rest[shows[i]]:
                rest[shows[i]] -= 1
                left[k] -= 1
        after.add(tuple(left))
    return after


def turn_possible(kinds: Sequence[DieKind], rolls: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the dice can roll ``rolls`` in turn, each from the dice still in hand."""
    hands = {tuple(n for _, n in kinds)}
    for roll in rolls:
        hands = {h for hand in hands for h in hands_after(hand, kinds, roll)}
    return bool(hands)


def broken_examples(
    kinds: Sequence[DieKind], varieties: Sequence[str], data: Mapping[str, Any] | None = None
) -> list[str]:
    """The examples of the text these dice cannot show (the quote of each)."""
    data = data or examples()
    ids = {n: i for i, n in enumerate(varieties)}
    faces = tuple(tuple(ids[f] for f in faces) for faces, n in kinds for _ in range(n))
    broken = [
        f"{text}: {example['quote']}"
        for example in data["order"]
        for text in example["orders"]
        if first_roll_chance(parse(text, ids), faces) == 0
    ]
    for turn in data["turn"]:
        if not turn_possible(kinds, turn["roll"]):
            broken.append(turn["quote"])
    return broken


def assignments(data: Mapping[str, Any] | None = None) -> list[tuple[dict[str, str], list[str]]]:
    """Every mapping of the model's letters to the other five varieties, with
    the examples it breaks."""
    data = data or examples()
    model = data["model"]
    varieties = [*model["others"], "blue", "red"]
    out = []
    for perm in itertools.permutations(model["others"]):
        mapping = dict(zip(model["letters"], perm, strict=True))
        out.append((mapping, broken_examples(dice_of(mapping, model), varieties, data)))
    return out


def main() -> None:
    results = assignments()
    fitting = [m for m, broken in results if not broken]
    out = sys.stdout
    for mapping, broken in results:
        name = " ".join(f"{k}={v}" for k, v in mapping.items())
        out.write(f"{name}: {'fits' if not broken else 'breaks ' + broken[0][:60]}\n")
    out.write(f"\n{len(fitting)} of {len(results)} assignments fit every example of the text\n")


if __name__ == "__main__":
    main()
