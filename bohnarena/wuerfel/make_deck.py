"""Builds the shipped harvest deck (data/harvest_cards.toml), a
reconstruction: the printed card list is not public.

    python -m bohnarena.wuerfel.make_deck > bohnarena/wuerfel/data/harvest_cards.toml

The text has 61 harvest cards of six orders each. Every order kind the text
names appears, in the shares of SHARES (of all 366 orders); each card's
six orders are drawn from bands of falling first-roll chance (so difficulty
rises up the card), and a card is kept only if no set of seven dice meets
more than three orders in a row while some set meets three (the printed
design rule).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable

from .orders import first_roll_chance, most_met_in_a_row, parse
from .rules import dice_faces, variety_ids

CARDS = 61  # "Contents: 61 harvest cards"
ORDERS = 6
BANDS = [(0.55, 0.95), (0.35, 0.75), (0.20, 0.55), (0.10, 0.40), (0.04, 0.25), (0.005, 0.15)]

#: Each order kind the text names, and its share of the deck's orders. Plain
#: beans lead (the text's first example); every special order of the text's
#: list ("There is also a range of special orders") follows.
SHARES = {
    "beans": 0.34,  # "Two Soy Beans, one Blue Bean, and one Snap Bean"
    "either": 0.12,  # "Two Red Beans or two China Beans"
    "combo": 0.12,  # "Any combination of both varieties ... totaling five dice"
    "different": 0.08,  # "Six different varieties"
    "kind": 0.08,  # "Four of a kind of any one bean variety"
    "none": 0.08,  # "None of the seven dice may show a Blue Bean"
    "pairs": 0.08,  # "Three pairs of three different ... varieties"
    "house": 0.06,  # "Three dice of one variety and two dice of another ... the Soy Bean"
    "triples": 0.04,  # "Two three-of-a-kinds of two different ... varieties"
}


def kind_of(text: str) -> str:
    """The order kind of an order text (orders.py syntax)."""
    if "|" in text:
        return "either"
    head = text.split(":", 1)[0]
    return head if head in SHARES else "beans"


def _beans(rng: random.Random, names: list[str]) -> str:
    counts = Counter(rng.choices(names, k=rng.randint(2, 5)))
    return " ".join(f"{n}:{k}" if k > 1 else n for n, k in sorted(counts.items()))


def _either(rng: random.Random, names: list[str]) -> str:
    a, b = rng.sample(names, 2)
    k = rng.randint(2, 3)
    return f"{a}:{k} | {b}:{k}"


def _combo(rng: random.Random, names: list[str]) -> str:
    a, b = rng.sample(names, 2)
    return f"combo:{rng.randint(3, 6)} {a}+{b}"


MAKERS: dict[str, Callable[[random.Random, list[str]], str]] = {
    "beans": _beans,
    "either": _either,
    "combo": _combo,
    "different": lambda rng, names: f"different:{rng.randint(4, 6)}",
    "kind": lambda rng, names: f"kind:{rng.randint(3, 5)}",
    "none": lambda rng, names: f"none:{rng.choice(names)}",
    "pairs": lambda rng, names: "pairs:3",
    "house": lambda rng, names: f"house:3+2 {rng.choice(names)}",
    "triples": lambda rng, names: "triples:2",
}


def build(seed: int = 1) -> list[list[tuple[str, float]]]:
    rng = random.Random(seed)
    ids = variety_ids()
    names = list(ids)
    faces = dice_faces()
    pool: dict[str, dict[str, float]] = {kind: {} for kind in SHARES}
    for kind, make in MAKERS.items():
        for _ in range(200):
            text = make(rng, names)
            pool[kind].setdefault(text, first_roll_chance(parse(text, ids), faces))
    # Orders of each kind still to place: drawing by what is left keeps the
    # deck's shares close to SHARES.
    left = {kind: round(share * CARDS * ORDERS) for kind, share in SHARES.items()}
    deck: list[list[tuple[str, float]]] = []
    while len(deck) < CARDS:
        card: list[tuple[str, float]] = []
        for lo, hi in BANDS:
            fits = {
                kind: [t for t, p in texts.items() if lo <= p <= hi and t not in dict(card)]
                for kind, texts in pool.items()
            }
            kinds = [k for k, texts in fits.items() if texts and left[k] > 0] or [
                k for k, texts in fits.items() if texts
            ]
            kind = rng.choices(kinds, weights=[max(left[k], 0.5) for k in kinds])[0]
            text = rng.choice(fits[kind])
            card.append((text, pool[kind][text]))
        card.sort(key=lambda order: -order[1])
        if most_met_in_a_row([parse(t, ids) for t, _ in card], faces) == 3:
            deck.append(card)
            for text, _ in card:
                left[kind_of(text)] -= 1
    return deck


def main() -> None:
    deck = build()
    made = Counter(kind_of(t) for card in deck for t, _ in card)
    out = sys.stdout
    out.write(
        "# The harvest deck of the dice game: a RECONSTRUCTION (the printed cards are\n"
        "# not public), made by `python -m bohnarena.wuerfel.make_deck` from the order\n"
        "# kinds the rule text names. Orders are fulfilled bottom (first) to top.\n"
        "# `chance` is each order's exact first-roll chance in percent, as printed on\n"
        "# real cards; rules.check_deck (run by the tests) recomputes and checks it.\n"
        "# Replace this file with the real deck if you own the game.\n"
        f"# {len(deck)} cards; orders by kind: "
        + ", ".join(f"{k} {made[k]}" for k in SHARES)
        + "\n"
    )
    for i, card in enumerate(deck):
        out.write(f"\n[[card]]  # {i}\n")
        out.write("orders = [" + ", ".join(f'"{t}"' for t, _ in card) + "]\n")
        out.write("chance = [" + ", ".join(f"{100 * p:.0f}" for _, p in card) + "]\n")


if __name__ == "__main__":
    main()
