"""A readable transcript of a match, rendered from its record stream alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .records import as_dict
from .rules import varieties

SOURCES = {0: "from hand", 1: "from trade area", 2: "from the draft"}


def bean(v: int) -> str:
    return "?" if v < 0 else varieties()[v].name


def beans(cards: Sequence[int]) -> str:
    return ", ".join(bean(c) for c in cards) if cards else "nothing"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def transcript(records: Iterable[Sequence[Any]], names: Sequence[str]) -> Iterator[str]:
    """Lines describing every event; decisions show only through their effects."""

    def who(seat: int) -> str:
        return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) else "everyone"

    say: dict[str, Callable[[dict[str, Any]], str]] = {
        "dealt": lambda r: f"{who(r['seat'])} is dealt {beans(r['cards'])}",
        "turn": lambda r: f"\n== Turn {r['n']}: {who(r['seat'])} is active ==",
        "planted": lambda r: f"  {who(r['seat'])} plants {bean(r['card'])} "
                             f"{SOURCES[r['n']]} in field {r['field']}",
        "revealed": lambda r: f"  reveals {bean(r['card'])}",
        "drew": lambda r: f"  draws {bean(r['card'])}",
        "exhausted": lambda r: f"  -- the draw pile runs out for the {ordinal(r['n'])} time --",
        "reshuffled": lambda r: f"  -- the discard pile is shuffled into a new draw pile of {r['n']} --",
        "harvested": lambda r: f"  {who(r['seat'])} harvests field {r['field']}: {r['n']} "
                               f"{bean(r['card'])} -> {r['coins']} coin(s), "
                               f"{r['n'] - r['coins']} to the discard pile",
        "bought_field": lambda r: f"  {who(r['seat'])} buys a third field for {r['coins']} coins",
        "offered": lambda r: f"  {who(r['seat'])} offers {beans(r['cards'])} for "
                             f"{beans(r['want'])} to {who(r['to'])}",
        "declined": lambda r: f"    {who(r['seat'])} declines",
        "traded": lambda r: f"    TRADE: {who(r['seat'])} gives {beans(r['cards'])}, "
                            f"{who(r['to'])} gives {beans(r['want'])}",
        "kept": lambda r: f"  keeps {beans(r['cards'])} to plant",
        "drafted": lambda r: f"  Jumping Bean draft: {beans(r['cards'])}",
        "picked": lambda r: f"    {who(r['seat'])} picks {bean(r['card'])} and "
                            + (f"plants it in field {r['field']}" if r["field"] >= 0 else "discards it"),
        "draft_coin": lambda r: f"    the last card ({bean(r['card'])}) goes to "
                                f"{who(r['seat'])}'s coin pile",
        "fault": lambda r: f"  FAULT {who(r['seat'])} in {r['decision']}: {r['text']}",
        "final_harvest": lambda r: "\n== The game ends: every field is harvested ==",
        "ended": lambda r: "\n== Final harvest done. Coins: "
                           + ", ".join(f"{who(s)} {c}" for s, c in enumerate(r["values"])) + " ==",
    }
    for rec in records:
        kind = rec[0]
        fmt = say.get(kind)
        if fmt is not None:
            yield fmt(as_dict(rec))


def result_lines(coins: Sequence[int], ranks: Sequence[int], names: Sequence[str]) -> Iterator[str]:
    order = sorted(range(len(coins)), key=lambda s: (ranks[s], s))
    for s in order:
        yield f"  {ordinal(ranks[s]):>4}  seat {s}  {names[s]:<20} {coins[s]:>3} coins"
