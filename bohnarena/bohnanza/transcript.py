"""Readable transcripts of a match, rendered from its records (and, during a
replay, from the table as it stood)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.botapi import FAULT_CHARS, NOTE_CHARS, SAY_CHARS
from ..core.untrusted import one_line
from .records import as_dict
from .rules import varieties

SOURCES = {0: "from hand", 1: "from trade area"}


def bean(v: int | None) -> str:
    return "?" if v is None or v < 0 else varieties()[v].name


def beans(cards: Sequence[int]) -> str:
    return ", ".join(bean(c) for c in cards) if cards else "nothing"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class Narrator:
    """Says what a record means, in the game's words. Decisions are silent:
    they show through the events they cause."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        who = self.who
        # None: nothing worth a line (an empty "kept")
        self.say: dict[str, Callable[[dict[str, Any]], str | None]] = {
            "dealt": lambda r: f"{who(r['seat'])} is dealt {beans(r['cards'])}",
            "turn": lambda r: f"\n== Turn {r['n']}: {who(r['seat'])} is active ==",
            "planted": lambda r: (
                f"  {who(r['seat'])} plants {bean(r['card'])} "
                f"{SOURCES[r['n']]} in field {r['field']}"
            ),
            "revealed": lambda r: f"  reveals {bean(r['card'])}",
            "drew": lambda r: f"  draws {bean(r['card'])}",
            "exhausted": lambda r: f"  -- the draw pile runs out for the {ordinal(r['n'])} time --",
            "reshuffled": lambda r: (
                f"  -- the discard pile is shuffled into a new draw pile of {r['n']} --"
            ),
            "harvested": lambda r: (
                f"  {who(r['seat'])} harvests field {r['field']}: {r['n']} "
                f"{bean(r['card'])} -> {r['coins']} coin(s), "
                f"{r['n'] - r['coins']} to the discard pile"
            ),
            "bought_field": lambda r: (
                f"  {who(r['seat'])} buys a third field for {r['coins']} coins "
                f"({beans(r['cards'])})"
            ),
            "offered": lambda r: (
                f"  {who(r['seat'])} offers {beans(r['cards'])} for "
                f"{beans(r['want'])} to {who(r['to'])}"
            ),
            # table talk: a bot's text, escaped again (a log may come from anywhere)
            "said": lambda r: f'  {who(r["seat"])} says: "{one_line(r["text"], SAY_CHARS)}"',
            "declined": lambda r: f"    {who(r['seat'])} declines",
            "traded": lambda r: (
                f"    TRADE: {who(r['seat'])} gives {beans(r['cards'])}, "
                f"{who(r['to'])} gives {beans(r['want'])}"
            ),
            "kept": lambda r: f"  keeps {beans(r['cards'])} to plant" if r["cards"] else None,
            "draft_card": lambda r: f"  Jumping Bean draft: draws {bean(r['card'])}",
            "picked": lambda r: (
                f"    {who(r['seat'])} picks {bean(r['card'])} and "
                + (f"plants it in field {r['field']}" if r["field"] >= 0 else "discards it")
            ),
            "draft_coin": lambda r: (
                f"    the last card ({bean(r['card'])}) goes to {who(r['seat'])}'s coin pile"
            ),
            # (a log may come from anywhere: a bot's text is escaped again)
            "note": lambda r: f"    ({who(r['seat'])} notes: {one_line(r['note'], NOTE_CHARS)})",
            "fault": lambda r: (
                f"  FAULT {who(r['seat'])} in {r['decision']}: " + one_line(r["text"], FAULT_CHARS)
            ),
            "forfeit": lambda r: (
                f"  {who(r['seat'])} FORFEITS: default answers from now on, ranked last"
            ),
            "final_harvest": lambda r: "\n== The game ends: every field is harvested ==",
            "ended": lambda r: (
                "\n== Final coins: "
                + ", ".join(f"{who(s)} {c}" for s, c in enumerate(r["values"]))
                + " =="
            ),
        }

    def who(self, seat: int) -> str:
        """A seat by number and bot (by number alone where no names are
        given: a check of the log); -1 is everyone."""
        if seat < 0:
            return "everyone"
        named = seat < len(self.names) and self.names[seat]
        return f"seat {seat} ({self.names[seat]})" if named else f"seat {seat}"

    def describe(self, rec: Sequence[Any]) -> str | None:
        fmt = self.say.get(rec[0])
        return None if fmt is None else fmt(as_dict(rec))

    def table(self, state: dict[str, Any]) -> list[str]:
        """The table as it stands (see replay.state), one line per seat."""
        pile = f"draw pile {state['draw_pile']}"
        if state.get("draw_pile_top") is not None:
            pile += f" (top: {bean(state['draw_pile_top'])})"
        lines = [
            f"  [{pile}, discard pile {len(state['discard'])}, "
            f"exhausted {state['exhaustions']}x"
            + (f", revealed {beans(state['revealed'])}" if state["revealed"] else "")
            + "]"
        ]
        for s in state["seats"]:
            hand = (
                f"hand {beans(s['hand'])}"
                if s["hand"] is not None
                else f"{s['hand_size']} cards in hand"
            )
            fields = " | ".join(f"{n} {bean(v)}" if n else "empty" for v, n in s["fields"])
            extra = f"; trade area {beans(s['trade_area'])}" if s["trade_area"] else ""
            lines.append(
                f"  [{self.who(s['seat'])}: {s['coins']} coins; fields {fields}; {hand}{extra}]"
            )
        return lines
