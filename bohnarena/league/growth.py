"""Leagues that grow (docs/leagues.md, "Growing a league").

A results directory keeps, in run.json's ``generations``, the history of
its league file: the bots (in file order) and the deal count of each file
it was played under. Generation 0's match ids are the league's schedule
(schedule.py). Each later generation appends, after the last id, the
matches its file adds and no earlier one had: for each deal (ascending),
each of its tables (in its format's order) that had not played that deal
yet, every seating; so a table always holds a prefix of the deals. A
match's seed follows from its deal alone, and what it plays from its seed
and seats, so a match is the same whichever generation scheduled it.

The standings are the matches of the league as it is now: those of its
current tables with a deal below its current deal count. A bot removed
takes its tables out of them; their matches stay on disk.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..core.errors import UsageError
from .drawn import drawn_tables, full_size
from .file import League, parse_league
from .schedule import Block, Schedule, format_tables
from .schedule import seatings as seating_list


class GrowthError(UsageError):
    """A league file that cannot grow the results it is run against."""


@dataclass(frozen=True)
class Generation:
    bots: tuple[str, ...]
    deals: int

    @classmethod
    def of(cls, league: League) -> Generation:
        return cls(tuple(league.bots), league.deals)


def history(meta: Mapping[str, Any], first: League) -> list[Generation]:
    """The generations run.json records; a run.json from before leagues
    grew has none: its league file (``first``) is generation 0."""
    kept = meta.get("generations")
    if not kept:
        return [Generation.of(first)]
    try:
        return [Generation(tuple(g["bots"]), int(g["deals"])) for g in kept]
    except (TypeError, KeyError, ValueError):
        raise GrowthError("run.json's generations are not a list of bots and deals") from None


def grown(past: Sequence[Generation], league: League) -> list[Generation]:
    """``past`` with ``league`` as its newest generation (unchanged when it
    already is). The bots kept must keep their order: it sets every
    table's seating order, so a reordered league would replay everything."""
    now = Generation.of(league)
    if past and past[-1] == now:
        return list(past)
    for g in past:
        kept = set(g.bots) & set(now.bots)
        before = [b for b in g.bots if b in kept]
        after = [b for b in now.bots if b in kept]
        if before != after:
            a, b = next((x, y) for x, y in zip(before, after, strict=True) if x != y)
            raise GrowthError(
                f"the league file lists bot {b!r} before {a!r}, its results the other way "
                "round: a league's bot order sets its tables' seating order, so keep the "
                "bots it had in their order (new bots may go anywhere)"
            )
    return [*past, now]


def extended(
    current: Sequence[int], played: dict[int, int], deals: int, first: int, seatings: int
) -> Iterator[Block]:
    """The blocks that bring each of ``current`` (table indices) to ``deals``
    deals, from id ``first``: for each deal it lacks (ascending), each
    table still lacking it; ``played`` (a table's deals so far) updated."""
    edges = sorted({min(played.get(t, 0), deals) for t in current} | {deals})
    for low, high in pairwise(edges):
        at = tuple(t for t in current if played.get(t, 0) <= low)
        block = Block(first, range(low, high), at, seatings)
        first += block.size
        yield block
    for t in current:
        played[t] = max(played.get(t, 0), deals)


def schedule_of(league: League, seed: int, generations: Sequence[Generation]) -> Schedule:
    """The schedule of ``generations`` (the last one: the league now)."""
    if league.full_tables is not None:
        return Schedule(**drawn_shape(league, seed, generations))
    players, seatings = league.players, seating_list(league.players, league.seatings)

    def tables_of(g: Generation) -> list[tuple[str, ...]]:
        return format_tables(list(g.bots), players, league.format, league.hero, league.challenger)

    tables: dict[tuple[str, ...], int] = {}
    played: dict[int, int] = {}  # a table's deals so far (always a prefix)
    blocks: list[Block] = []
    spans: list[range] = []
    first = 0
    current: list[int] = []
    for g in generations:
        current = [tables.setdefault(t, len(tables)) for t in tables_of(g)]
        start = first
        for block in extended(current, played, g.deals, first, len(seatings)):
            blocks.append(block)
            first += block.size
        spans.append(range(start, first))
    whole = len(generations) == 1
    return Schedule(
        tuple(tables),
        players,
        generations[-1].deals,
        seed,
        league.seatings,
        () if whole else tuple(blocks),
        None if whole else frozenset(current),
        tuple(spans),
        league.fresh_decks,
    )


def drawn_shape(league: League, seed: int, generations: Sequence[Generation]) -> dict[str, Any]:
    """The schedule of a league with ``full_tables`` (drawn.py): each
    generation keeps the tables of the last whose bots all stay, extends
    its full tables to its deals as above, then adds its new bots' tables:
    the round-robin tables that hold one while its full round-robin is at
    most ``full_tables`` tables a deal, else its drawn tables (table d
    plays deal d only). Nothing is enumerated beyond what is played.
    Returns the schedule's arguments (``seed`` is the draw's too)."""
    assert league.full_tables is not None
    players, seatings = league.players, len(seating_list(league.players, league.seatings))
    tables: list[tuple[str, ...]] = []
    index: dict[tuple[str, ...], int] = {}  # the full tables, by their bots
    played: dict[int, int] = {}  # a full table's deals so far (a prefix)
    seen: set[str] = set()
    current: list[int] = []
    blocks: list[Block] = []
    spans: list[range] = []
    first = 0

    def add(block: Block) -> None:
        nonlocal first
        blocks.append(block)
        first += block.size

    present: set[str] = set()
    for g in generations:
        start, bots = first, set(g.bots)
        new = [b for b in g.bots if b not in seen]
        back = bots - present - set(new)  # left the league once, and back (a ladder's reinstated)
        seen.update(new)
        present = bots
        filler = format_tables(list(g.bots), players)[0] if len(bots) < players else None
        # (a table of repeated bots stands while the league is that small)
        current = [t for t in current if bots.issuperset(tables[t]) and _stays(tables[t], filler)]
        if back:  # its tables stand again wherever all their bots are back
            kept = set(current)
            current += [
                t
                for t, table in enumerate(tables)
                if t not in kept
                and back.intersection(table)
                and bots.issuperset(table)
                and _stays(table, filler)
            ]
        drawn: dict[int, list[int]] = {}  # deal -> its drawn tables
        if full_size(len(g.bots), players) <= league.full_tables:
            fresh = set(new) | back
            for table in format_tables(list(g.bots), players):
                if fresh.intersection(table) and table not in index:
                    index[table] = len(tables)
                    current.append(len(tables))
                    tables.append(table)
        else:
            for b in new:
                field = [o for o in g.bots if o != b]
                for deal, table in enumerate(drawn_tables(b, field, players, g.deals, seed)):
                    drawn.setdefault(deal, []).append(len(tables))
                    current.append(len(tables))
                    tables.append(table)
        full = [t for t in current if index.get(tables[t]) == t]
        for block in extended(full, played, g.deals, first, seatings):
            add(block)
        for deal, them in sorted(drawn.items()):
            add(Block(first, range(deal, deal + 1), tuple(them), seatings))
        spans.append(range(start, first))
    return {
        "tables": tuple(tables),
        "players": players,
        "deals": generations[-1].deals,
        "seed": seed,
        "seating_kind": league.seatings,
        "blocks": tuple(blocks),
        "standing": frozenset(current),
        "spans": tuple(spans),
        "fresh_decks": league.fresh_decks,
    }


def _stays(table: tuple[str, ...], filler: tuple[str, ...] | None) -> bool:
    return len(set(table)) == len(table) or table == filler


def generations_json(schedule: Schedule, generations: Sequence[Generation]) -> list[dict[str, Any]]:
    """run.json's ``generations``: each one's bots and deals, and (for the
    reader's convenience, derived) its first match id and match count."""
    return [
        {"bots": list(g.bots), "deals": g.deals, "first_id": s.start, "matches": len(s)}
        for g, s in zip(generations, schedule.spans, strict=True)
    ]


#: What a league keeps as it grows: (attribute, what it is called).
KEPT = (
    ("game", "game"),
    ("edition", "edition"),
    ("players", "players per table"),
    ("seed", "seed"),
    ("rules", "rules"),
    ("format", "format"),
    ("hero", "hero"),
    ("challenger", "challenger"),
    ("seatings", "seatings"),
    ("limits", "limits"),
    ("full_tables", "full_tables"),
    ("fresh_decks", "fresh_decks"),
)


def parsed(text: str, where: str) -> League:
    """A league file's text parsed as written (commands unresolved: the
    frozen copy and the file being run are compared as text)."""
    try:
        return parse_league(tomllib.loads(text), text, where)
    except tomllib.TOMLDecodeError as e:
        raise GrowthError(f"{where} is not valid TOML: {e}") from None


def _change(before: Any, after: Any) -> str:
    """A change, short: its values, or the keys of a table that differ."""
    if all(v is None or isinstance(v, int | str) for v in (before, after)):
        return f"from {before} to {after}"
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        return ", ".join(keys)
    return "changed"


def check_growth(old: League, new: League) -> None:
    """Refuse, with the reason, a league file that changes what its results
    were played under: only bots and deals may change."""
    for key, what in KEPT:
        before, after = getattr(old, key), getattr(new, key)
        if before != after:
            shown = _change(before, after)
            raise GrowthError(
                f"the league's {what} changed since its results began ({shown}): a league "
                "grows by bots and deals only: use --restart to discard the results, or "
                "--out for another directory"
            )
    for name in sorted(set(old.bots) & set(new.bots)):
        if old.bots[name] != new.bots[name]:
            raise GrowthError(
                f"bot {name!r} is not the one its results were played by (its spec, "
                "command, isolation, dir or packages changed); give the new one another "
                "name, or use --restart to discard the results"
            )
