"""League schedules: tables, duplicate deals and seatings (docs/leagues.md).

* **Tables** depend on the format:

  - ``round-robin``: every combination of ``players`` bots out of the
    league's bots, in league order;
  - ``gauntlet``: the hero plus every combination of ``players - 1``
    opponents from the field (every other bot), the hero at table position 0;
  - ``paired`` (what ``bohnarena compare`` runs): the gauntlet's tables of
    the hero, each followed by the same table with the challenger in the
    hero's place, so both meet the same opponents in the same seats.

  With fewer bots (or opponents) than places there is one combination, the
  bots repeated in league order until every place is filled (A, B, A, B for
  two bots at four seats).
* **Deals**: each table plays ``deals`` deals.
* **Seatings**: each deal is played once under every seating of the table:
  ``rotations`` (seating r puts table position i in seat (i + r) mod
  players) or ``permutations`` (every ordering of the table, in
  lexicographic order: seat s gets table position ``perm[s]``).

A match is identified by ``(table, deal, seating)``; its integer id is
``(deal * tables + table) * seatings + seating``: deal-major, so that any
stretch of ids (what TrueSkill saw last, what an interrupted run finished)
covers every table alike, and a deal's matches are consecutive. Its seed is
``derive_seed(master seed, "deal", deal)``: the same deck for every table and
seating of a deal (that is what makes the deals duplicate), never dependent
on worker count or the order matches run in. The seating index is stored in
the matches table's ``rotation`` column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import factorial

from ..core.seeding import derive_seed

FORMATS = ("round-robin", "gauntlet", "paired")
SEATINGS = ("rotations", "permutations")


@dataclass(frozen=True, slots=True)
class MatchSpec:
    id: int
    table: int
    deal: int
    rotation: int  # the seating index (a rotation, or the index of a permutation)
    seed: int
    seats: tuple[str, ...]  # bot name in each seat; seat 0 starts


def tables(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every combination of ``players`` of ``bots``, or ``bots`` repeated to fill one table."""
    if len(bots) < players:
        return [tuple(bots[i % len(bots)] for i in range(players))]
    return list(combinations(bots, players))


def format_tables(
    bots: Sequence[str],
    players: int,
    format: str = "round-robin",
    hero: str | None = None,
    challenger: str | None = None,
) -> list[tuple[str, ...]]:
    """The tables of a format, in schedule order (see the module docstring)."""
    if format == "round-robin":
        return tables(bots, players)
    assert hero is not None, "the league checks a gauntlet has a hero"
    field = [b for b in bots if b not in (hero, challenger)]
    opponents = tables(field, players - 1)
    if format == "gauntlet":
        return [(hero, *o) for o in opponents]
    assert format == "paired" and challenger is not None
    return [(x, *o) for o in opponents for x in (hero, challenger)]


def nth_permutation(n: int, k: int) -> tuple[int, ...]:
    """The k-th permutation of range(n) in lexicographic order (itertools order)."""
    items = list(range(n))
    out = []
    for i in range(n, 0, -1):
        j, k = divmod(k, factorial(i - 1))
        out.append(items.pop(j))
    return tuple(out)


def seatings(players: int, kind: str = "rotations") -> list[tuple[int, ...]]:
    """Each seating as the table position sitting in each seat."""
    if kind == "rotations":
        return [tuple((s - r) % players for s in range(players)) for r in range(players)]
    assert kind == "permutations"
    return [nth_permutation(players, k) for k in range(factorial(players))]


def deal_seed(master: int, deal: int) -> int:
    return derive_seed(master, "deal", deal)


@dataclass(frozen=True)
class Schedule:
    """Every match of a league, computable one id at a time."""

    tables: tuple[tuple[str, ...], ...]
    players: int
    deals: int
    seed: int
    seating_kind: str = "rotations"

    @cached_property
    def seatings(self) -> list[tuple[int, ...]]:
        return seatings(self.players, self.seating_kind)

    @property
    def per_deal(self) -> int:
        """Matches per deal (a deal's matches have consecutive ids)."""
        return len(self.tables) * len(self.seatings)

    def __len__(self) -> int:
        return self.per_deal * self.deals

    def spec(self, match_id: int) -> MatchSpec:
        """The match with id ``match_id`` (the inverse of the id rule above)."""
        n = len(self.seatings)
        deal, table = divmod(match_id // n, len(self.tables))
        seating = match_id % n
        at = self.tables[table]
        seats = tuple(at[p] for p in self.seatings[seating])
        return MatchSpec(match_id, table, deal, seating, deal_seed(self.seed, deal), seats)

    def __iter__(self) -> Iterator[MatchSpec]:
        return (self.spec(i) for i in range(len(self)))


def schedule(
    bots: Sequence[str], players: int, deals: int, master_seed: int
) -> Iterator[MatchSpec]:
    """Every match of a round-robin league with rotations, in id order."""
    return iter(Schedule(tuple(tables(bots, players)), players, deals, master_seed))


def match_count(bots: Sequence[str], players: int, deals: int) -> int:
    return len(tables(bots, players)) * deals * players
