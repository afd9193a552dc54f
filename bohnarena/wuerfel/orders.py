"""Harvest-card orders of the dice game: parsing, checking a set of dice,
and the exact chance of meeting an order with one roll of all seven dice.

An order is written as text (the deck file uses it):

=================================  ==========================================
``soy:2 blue snap``                these beans (2 Soy, 1 Blue, 1 Snap)
``red:2 | china:2``                either set of beans
``different:6``                    n different varieties
``kind:4``                         n of one variety
``house:3+2 soy``                  3 of one variety and 2 of another; one is Soy
``combo:5 blue+snap``              n dice showing either variety, in any mix
``none:blue``                      all seven dice, none showing that variety
``triples:2``                      two varieties with 3 dice each
``pairs:3``                        three varieties with 2 dice each
=================================  ==========================================
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

DICE = 7


@dataclass(frozen=True)
class Order:
    text: str
    kind: str
    beans: tuple[tuple[int, int], ...] = ()  # (variety, count) needs
    alt: tuple[tuple[int, int], ...] = ()  # the other set ("either")
    n: int = 0
    m: int = 0
    variety: int = -1  # the variety a house must use, or that "none" forbids
    pair: tuple[int, int] = (-1, -1)  # combo varieties

    def met(self, dice: Mapping[int, int]) -> bool:
        """Whether ``dice`` (variety -> count) fulfil the order."""
        c = dice
        if self.kind == "beans":
            return all(c.get(v, 0) >= k for v, k in self.beans)
        if self.kind == "either":
            return all(c.get(v, 0) >= k for v, k in self.beans) or all(
                c.get(v, 0) >= k for v, k in self.alt
            )
        counts = sorted((k for k in c.values() if k), reverse=True)
        if self.kind == "different":
            return len(counts) >= self.n
        if self.kind == "kind":
            return bool(counts) and counts[0] >= self.n
        if self.kind == "house":
            return any(
                c.get(a, 0) >= self.n
                and c.get(b, 0) >= self.m
                and a != b
                and self.variety in (a, b)
                for a in c
                for b in c
            )
        if self.kind == "combo":
            return c.get(self.pair[0], 0) + c.get(self.pair[1], 0) >= self.n
        if self.kind == "none":
            return sum(c.values()) == DICE and c.get(self.variety, 0) == 0
        if self.kind == "triples":
            return sum(1 for k in counts if k >= 3) >= self.n
        if self.kind == "pairs":
            return sum(1 for k in counts if k >= 2) >= self.n
        raise ValueError(self.kind)

    def deficit(self, dice: Mapping[int, int]) -> int:
        """A lower bound on how many more dice the order needs (0: met);
        large when it can no longer be met with these dice."""
        c = dice
        if self.met(c):
            return 0
        counts = [*sorted((k for k in c.values() if k), reverse=True), 0, 0, 0]
        if self.kind == "beans":
            return sum(max(0, k - c.get(v, 0)) for v, k in self.beans)
        if self.kind == "either":
            return min(
                sum(max(0, k - c.get(v, 0)) for v, k in need) for need in (self.beans, self.alt)
            )
        if self.kind == "different":
            return self.n - sum(1 for k in counts if k)
        if self.kind == "kind":
            return self.n - counts[0]
        if self.kind == "house":
            own = c.get(self.variety, 0)
            other = max([k for v, k in c.items() if v != self.variety] + [0])
            return min(
                max(0, self.n - own) + max(0, self.m - other),
                max(0, self.m - own) + max(0, self.n - other),
            )
        if self.kind == "combo":
            return self.n - c.get(self.pair[0], 0) - c.get(self.pair[1], 0)
        if self.kind == "none":
            return DICE + 1 if c.get(self.variety, 0) else DICE - sum(c.values())
        need = 3 if self.kind == "triples" else 2
        return sum(max(0, need - k) for k in counts[: self.n])


def met_in_a_row(orders: Sequence[Order], dice: Sequence[int]) -> int:
    """How many of ``orders``, in a row from the first, ``dice`` (varieties) meet."""
    have = Counter(dice)
    n = 0
    for order in orders:
        if not order.met(have):
            break
        n += 1
    return n


def parse(text: str, ids: Mapping[str, int]) -> Order:
    def beans(part: str) -> tuple[tuple[int, int], ...]:
        out: Counter[int] = Counter()
        for token in part.split():
            name, _, k = token.partition(":")
            out[ids[name]] += int(k or 1)
        return tuple(sorted(out.items()))

    head, _, rest = text.partition(":")
    try:
        if "|" in text:
            a, b = text.split("|")
            return Order(text, "either", beans(a), beans(b))
        if head in ("different", "kind", "triples", "pairs"):
            return Order(text, head, n=int(rest))
        if head == "house":
            sizes, variety = rest.split()
            n, m = sizes.split("+")
            return Order(text, "house", n=int(n), m=int(m), variety=ids[variety])
        if head == "combo":
            n, pair = rest.split()
            a, b = pair.split("+")
            return Order(text, "combo", n=int(n), pair=(ids[a], ids[b]))
        if head == "none":
            return Order(text, "none", variety=ids[rest.strip()])
        return Order(text, "beans", beans(text))
    except (KeyError, ValueError) as e:
        raise ValueError(f"cannot read order {text!r}: {e}") from None


@cache
def outcomes(
    faces: tuple[tuple[int, ...], ...],
) -> tuple[tuple[tuple[tuple[int, int], ...], float], ...]:
    """Every result of rolling one die of each face list, as (sorted
    (variety, count) pairs, probability), exact: results are merged by the
    multiset of varieties they show."""
    dist: dict[tuple[tuple[int, int], ...], float] = {(): 1.0}
    for die in faces:
        nxt: dict[tuple[tuple[int, int], ...], float] = {}
        for key, p in dist.items():
            for face in die:
                c = Counter(dict(key))
                c[face] += 1
                k = tuple(sorted(c.items()))
                nxt[k] = nxt.get(k, 0.0) + p / len(die)
        dist = nxt
    return tuple(dist.items())


def first_roll_chance(order: Order, faces: Sequence[Sequence[int]]) -> float:
    """The chance that one roll of all the dice fulfils ``order`` (the number
    printed beside the order on a real card)."""
    return _chance(order, tuple(map(tuple, faces)))


@cache
def _chance(order: Order, faces: tuple[tuple[int, ...], ...]) -> float:
    return sum(p for key, p in outcomes(faces) if order.met(dict(key)))


def most_met_in_a_row(orders: Sequence[Order], faces: Sequence[Sequence[int]]) -> int:
    """The most consecutive orders of a card any one set of seven dice meets
    (the printed design rule says three at most, and three at least once)."""
    best = 0
    for key, _ in outcomes(tuple(map(tuple, faces))):
        dice = dict(key)
        run = 0
        for o in orders:
            run = run + 1 if o.met(dice) else 0
            best = max(best, run)
    return best
