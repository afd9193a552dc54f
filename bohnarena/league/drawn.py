"""Drawn tables: what a newcomer plays once its full round-robin is too big
(docs/ladder.md, "Matchmaking that scales").

A league with ``full_tables = T`` gives each new bot the full round-robin
(every table of it and ``players - 1`` others) while that is at most T
tables per deal. Beyond, the newcomer plays ``deals`` deals, deal d at one
table of its own: itself at table position 0 and ``players - 1``
opponents drawn from the field (every other bot of the league as it is
then), each table played under every seating like any other.

The opponents are dealt from passes over the field, each pass a fresh
shuffle seeded by the league's master seed and the newcomer's name (for a
ladder, its version hash): a table takes the next opponents of the stream,
and one already at that table (only where two passes meet) waits for the
next table. So every pass meets every opponent once before any is met
again: over D deals each opponent is met ``floor(k)`` or ``ceil(k)`` times,
k = D (players - 1) / (field size), never twice at one table; every
seating of a table is played, so the newcomer (and each opponent) sits in
every seat equally often; the same seed, name and field draw the same
tables, whoever runs it and however often.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from math import comb

from ..core.seeding import derive_seed


def full_size(bots: int, players: int) -> int:
    """Tables per deal of a newcomer's full round-robin among ``bots``."""
    return comb(bots - 1, players - 1) if bots > players else 1


def _stream(field: Sequence[str], seed: int) -> Iterator[str]:
    """The field in passes, each a fresh seeded shuffle."""
    rng = random.Random(seed)
    while True:
        order = list(field)
        rng.shuffle(order)
        yield from order


def drawn_tables(
    newcomer: str, field: Sequence[str], players: int, deals: int, master: int
) -> list[tuple[str, ...]]:
    """The newcomer's table for each deal (see the module docstring);
    ``field``: the other bots, in league order, at least ``players - 1``."""
    wanted = players - 1
    assert len(field) >= wanted, "a field too small for drawn tables plays the full round-robin"
    stream = _stream(sorted(field), derive_seed(master, "draw", newcomer))
    waiting: list[str] = []  # met again where two passes meet: the next table's
    out = []
    for _ in range(deals):
        table, waiting = waiting[:wanted], waiting[wanted:]  # (distinct: one pass's)
        while len(table) < wanted:
            pick = next(stream)
            if pick in table:
                waiting.append(pick)
            else:
                table.append(pick)
        out.append((newcomer, *table))
    return out
