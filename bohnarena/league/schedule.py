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
covers every table alike, and a deal's matches are consecutive. A league
that grew (growth.py) appends blocks of such ids after the last one; each
block is deal-major over its own deals and tables. Its seed is
``derive_seed(master seed, "deal", deal)``: the same deck for every table and
seating of a deal (that is what makes the deals duplicate), never dependent
on worker count or the order matches run in. The seating index is stored in
the matches table's ``rotation`` column.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, pairwise
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


def deal_seed(master: int, deal: int, generation: int = 0) -> int:
    """The seed a deal's deck is shuffled with: the same for every match of
    the deal, or (``generation`` from 1, a league with ``fresh_decks``) for
    every match of the deal that generation added."""
    if generation:
        return derive_seed(master, "deal", generation, deal)
    return derive_seed(master, "deal", deal)


@dataclass(frozen=True, slots=True)
class Block:
    """Matches with consecutive ids from ``first``: for each deal of
    ``deals`` (ascending), each table of ``tables`` (indices into the
    schedule's tables, in order), every seating."""

    first: int
    deals: range
    tables: tuple[int, ...]
    seatings: int

    @property
    def size(self) -> int:
        return len(self.deals) * len(self.tables) * self.seatings

    def locate(self, match_id: int) -> tuple[int, int, int]:
        """(table index, deal, seating) of an id of this block."""
        k = match_id - self.first
        deal, at = divmod(k // self.seatings, len(self.tables))
        return self.tables[at], self.deals[deal], k % self.seatings


@dataclass(frozen=True)
class Schedule:
    """Every match of a league, computable one id at a time.

    ``tables``: every table the league ever had, in order of first
    appearance; ``blocks``: the id blocks (none given: one block, the
    ``deals`` deals of every table); ``standing``: the indices of the tables
    of the league as it is now (None: all), whose matches with a deal below
    ``deals`` make its standings; ``spans``: each generation's ids;
    ``fresh_decks``: each generation's matches dealt from decks of its own
    (the first generation's are those of a league that never grew)."""

    tables: tuple[tuple[str, ...], ...]
    players: int
    deals: int
    seed: int
    seating_kind: str = "rotations"
    blocks: tuple[Block, ...] = ()
    standing: frozenset[int] | None = None
    spans: tuple[range, ...] = field(default=())
    fresh_decks: bool = False

    def __post_init__(self) -> None:
        if not self.blocks:
            whole = Block(0, range(self.deals), tuple(range(len(self.tables))), len(self.seatings))
            object.__setattr__(self, "blocks", (whole,))
        if not self.spans:
            object.__setattr__(self, "spans", (range(len(self)),))

    @cached_property
    def seatings(self) -> list[tuple[int, ...]]:
        return seatings(self.players, self.seating_kind)

    @cached_property
    def _firsts(self) -> list[int]:
        return [b.first for b in self.blocks]

    @property
    def per_deal(self) -> int:
        """Matches per deal of the league as it is now (a deal's matches
        have consecutive ids within each block)."""
        tables = len(self.tables) if self.standing is None else len(self.standing)
        return tables * len(self.seatings)

    @property
    def deal_major(self) -> bool:
        """Whether the ids run deal by deal over the whole league (one
        block, or blocks of later deals only)."""
        return all(a.deals.stop <= b.deals.start for a, b in pairwise(self.blocks))

    def __len__(self) -> int:
        last = self.blocks[-1]
        return last.first + last.size

    def locate(self, match_id: int) -> tuple[int, int, int]:
        """(table index, deal, seating) of the match with id ``match_id``."""
        block = self.blocks[bisect_right(self._firsts, match_id) - 1 if len(self.blocks) > 1 else 0]
        return block.locate(match_id)

    def spec(self, match_id: int) -> MatchSpec:
        """The match with id ``match_id`` (the inverse of the id rule above)."""
        table, deal, seating = self.locate(match_id)
        at = self.tables[table]
        seats = tuple(at[p] for p in self.seatings[seating])
        seed = deal_seed(self.seed, deal, self.generation(match_id) if self.fresh_decks else 0)
        return MatchSpec(match_id, table, deal, seating, seed, seats)

    def generation(self, match_id: int) -> int:
        """The generation (from 0) whose growth added the match ``match_id``."""
        return max(bisect_right(self._span_starts, match_id) - 1, 0)

    @cached_property
    def _span_starts(self) -> list[int]:
        return [span.start for span in self.spans]

    def stands(self, table: int, deal: int, *_: int) -> bool:
        """Whether the match of ``table`` and ``deal`` is one of the league
        as it is now: its standings count it."""
        return deal < self.deals and (self.standing is None or table in self.standing)

    def standing_ids(self, spans: Iterable[range] | None = None) -> frozenset[int]:
        """The ids (of ``spans``; None: all) whose matches are the league's
        as it is now."""
        ids = (i for span in (self.spans if spans is None else spans) for i in span)
        return frozenset(i for i in ids if self.stands(*self.locate(i)))

    def __iter__(self) -> Iterator[MatchSpec]:
        return (self.spec(i) for i in range(len(self)))


def schedule(
    bots: Sequence[str], players: int, deals: int, master_seed: int
) -> Iterator[MatchSpec]:
    """Every match of a round-robin league with rotations, in id order."""
    return iter(Schedule(tuple(tables(bots, players)), players, deals, master_seed))


def match_count(bots: Sequence[str], players: int, deals: int) -> int:
    return len(tables(bots, players)) * deals * players
