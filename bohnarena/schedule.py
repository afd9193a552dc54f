"""The round-robin schedule with duplicate deals.

* **Tables**: every combination of ``players`` bots out of the league's bots,
  in league order. With fewer bots than seats there is one table, the bots
  repeated in league order until every seat is filled (A, B, A, B for two
  bots at four seats).
* **Deals**: each table plays ``deals`` deals.
* **Rotations**: each deal is played once under every rotation of the
  seating (rotation r puts table seat i in seat (i + r) mod players), so
  every bot plays every seat of the same shuffled deck.

A match is identified by ``(table, deal, rotation)``; its integer id is
``(deal * tables + table) * players + rotation``: deal-major, so that any
stretch of ids (what TrueSkill saw last, what an interrupted run finished)
covers every table alike. Its seed is
``derive_seed(master seed, "deal", deal)``: the same deck for every table and
rotation of a deal (that is what makes the deals duplicate), never dependent
on worker count or the order matches run in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from .seeding import derive_seed


@dataclass(frozen=True, slots=True)
class MatchSpec:
    id: int
    table: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[str, ...]  # bot name in each seat; seat 0 starts


def tables(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    if len(bots) < players:
        return [tuple(bots[i % len(bots)] for i in range(players))]
    return list(combinations(bots, players))


def deal_seed(master: int, deal: int) -> int:
    return derive_seed(master, "deal", deal)


def schedule(
    bots: Sequence[str], players: int, deals: int, master_seed: int
) -> Iterator[MatchSpec]:
    """Every match of the league, in id order."""
    all_tables = tables(bots, players)
    match_id = 0
    for d in range(deals):
        seed = deal_seed(master_seed, d)
        for t, table in enumerate(all_tables):
            for r in range(players):
                seats = tuple(table[(s - r) % players] for s in range(players))
                yield MatchSpec(match_id, t, d, r, seed, seats)
                match_id += 1


def spec_of(
    match_id: int, all_tables: Sequence[tuple[str, ...]], players: int, master_seed: int
) -> MatchSpec:
    """The match with id ``match_id`` (the inverse of the id rule above);
    ``all_tables`` is :func:`tables`' answer, computed once by the caller."""
    rotation = match_id % players
    deal, table = divmod(match_id // players, len(all_tables))
    seats = tuple(all_tables[table][(s - rotation) % players] for s in range(players))
    return MatchSpec(match_id, table, deal, rotation, deal_seed(master_seed, deal), seats)


def match_count(bots: Sequence[str], players: int, deals: int) -> int:
    return len(tables(bots, players)) * deals * players
