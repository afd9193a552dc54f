"""Builds the shipped harvest deck (data/harvest_cards.toml), a
reconstruction: the printed card list is not public.

    python -m bohnarena.wuerfel.make_deck > bohnarena/wuerfel/data/harvest_cards.toml

Each card gets six orders of the kinds the rule text describes, drawn from
bands of falling first-roll chance (so difficulty rises up the card), and is
kept only if no set of seven dice meets more than three orders in a row
while some set meets three (the printed design rule).
"""

from __future__ import annotations

import random
import sys

from .orders import first_roll_chance, most_met_in_a_row, parse
from .rules import dice_faces, variety_ids

CARDS = 60
BANDS = [(0.55, 0.95), (0.35, 0.75), (0.20, 0.55), (0.10, 0.40), (0.04, 0.25), (0.005, 0.15)]


def candidates(rng: random.Random, names: list[str]) -> str:
    kind = rng.choice(
        [
            "beans",
            "beans",
            "beans",
            "either",
            "different",
            "kind",
            "house",
            "combo",
            "none",
            "triples",
            "pairs",
        ]
    )
    pick = lambda k: rng.sample(names, k)  # noqa: E731
    if kind == "beans":
        chosen = rng.choices(names, k=rng.randint(2, 5))
        counts: dict[str, int] = {}
        for n in chosen:
            counts[n] = counts.get(n, 0) + 1
        return " ".join(f"{n}:{k}" if k > 1 else n for n, k in sorted(counts.items()))
    if kind == "either":
        a, b = pick(2)
        k = rng.randint(2, 3)
        return f"{a}:{k} | {b}:{k}"
    if kind == "different":
        return f"different:{rng.randint(4, 6)}"
    if kind == "kind":
        return f"kind:{rng.randint(3, 5)}"
    if kind == "house":
        return f"house:3+2 {pick(1)[0]}"
    if kind == "combo":
        a, b = pick(2)
        return f"combo:{rng.randint(3, 6)} {a}+{b}"
    if kind == "none":
        return f"none:{pick(1)[0]}"
    if kind == "triples":
        return "triples:2"
    return "pairs:3"


def build(seed: int = 1) -> list[list[tuple[str, float]]]:
    rng = random.Random(seed)
    ids = variety_ids()
    names = list(ids)
    faces = dice_faces()
    pool: dict[str, float] = {}
    while len(pool) < 600:
        text = candidates(rng, names)
        if text not in pool:
            pool[text] = first_roll_chance(parse(text, ids), faces)
    deck = []
    while len(deck) < CARDS:
        card = []
        for lo, hi in BANDS:
            band = [t for t, p in pool.items() if lo <= p <= hi and t not in card]
            card.append(rng.choice(band))
        card.sort(key=lambda t: -pool[t])
        orders = [parse(t, ids) for t in card]
        if most_met_in_a_row(orders, faces) == 3:
            deck.append([(t, pool[t]) for t in card])
    return deck


def main() -> None:
    out = sys.stdout
    out.write(
        "# The harvest deck of the dice game: a RECONSTRUCTION (the printed cards are\n"
        "# not public), made by `python -m bohnarena.wuerfel.make_deck` from the order\n"
        "# kinds the rule text describes. Orders are fulfilled bottom (first) to top.\n"
        "# `chance` is each order's exact first-roll chance in percent, as printed on\n"
        "# real cards; rules.check_deck (run by the tests) recomputes and checks it.\n"
        "# Replace this file with the real deck if you own the game.\n"
    )
    for i, card in enumerate(build()):
        out.write(f"\n[[card]]  # {i}\n")
        out.write("orders = [" + ", ".join(f'"{t}"' for t, _ in card) + "]\n")
        out.write("chance = [" + ", ".join(f"{100 * p:.0f}" for _, p in card) + "]\n")


if __name__ == "__main__":
    main()
