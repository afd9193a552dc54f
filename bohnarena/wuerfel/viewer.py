"""The dice game's table as the viewer page draws it (see
:mod:`bohnarena.viewer.film`): built from the table its replay builds,
move by move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.text import plural
from ..viewer import film
from ..viewer.film import Frame, Move, Viewer, Zone
from .game import _REPLAYER as REPLAYER
from .game import _Narrator as Narrator
from .game import as_dict
from .rules import PAYOUT, RuleSet
from .table import STEPS, Table

TAGS = {
    "turn": "turn",
    "rolled": "draw",
    "set_aside": "event",
    "fulfilled": "harvest",
    "redeemed": "harvest",
    "drew": "draw",
    "overview": "shuffle",
    "note": "note",
    "fault": "fault",
    "forfeit": "fault",
    "ended": "end",
}


class Painter:
    """Draws one match's table after each move (see :class:`film.Painter`)."""

    def __init__(self, rules: RuleSet, names: Sequence[str]) -> None:
        self.rules = rules
        self.narrator = Narrator(names)
        self.roll: tuple[int, ...] = ()  # the dice last rolled this turn
        self.referee = film.Referee(len(names), self.narrator.describe)

    def beans(self, dice: Sequence[int]) -> list[str]:
        return self.narrator.beans(dice).split(", ") if dice else []

    def move(self, i: int, rec: tuple[Any, ...]) -> Move:
        line = self.narrator.describe(rec)
        if line is not None:
            return Move(line.strip().strip("=").strip(), TAGS.get(rec[0], "event"), rec[1])
        who = self.narrator.who(rec[1])
        if rec[0] == "seat":
            return Move(
                f"{who} answers {rec[2].replace(',', ', ') or 'nothing itself'}", "quiet", rec[1]
            )
        values = as_dict(rec)
        if rec[0] == "harvest":
            values["n"] = STEPS.get(values["n"]) or "done"
        return Move(film.answer_text(who, values), "quiet", rec[1])

    def frame(self, i: int, rec: tuple[Any, ...], t: Table) -> Frame:
        kind = rec[0]
        if kind == "turn":
            self.roll = ()
        elif kind == "rolled":
            self.roll = tuple(rec[2])
        self.referee.see(i, rec)
        head = (
            "The game is over"
            if self.referee.over
            else f"Turn {t.turn}: {self.narrator.who(t.active)} rolls"
            if t.turn
            else "The deal"
        )
        table = (
            film.value("draw_pile", "Draw pile", plural(len(t.deck), "harvest card")),
            film.cards("roll", "Last roll", self.beans(self.roll)),
            film.cards("bean_field", "Bean field (dice set aside)", self.beans(t.field)),
            film.value("dice", "Dice left to roll", len(t.hand) if t.turn else 0),
        )
        who = (rec[1],) if rec[1] >= 0 else ()
        return Frame(t.turn, head, table, tuple(self._seat(t, s) for s in range(t.players)), who)

    def _seat(self, t: Table, s: int) -> tuple[Zone, ...]:
        turned = ("overview card turned",) if t.overview_turned[s] else ()
        card, covered = t.active_card[s], t.covered[s]
        zones = [
            self.referee.badges(s, s == t.active and t.turn > 0, *turned),
            film.value("coins", "Coins", t.coins[s], plural(len(t.coin_cards[s]), "coin card")),
        ]
        if card >= 0:
            orders = [
                (o.text, None, "fulfilled" if k < covered else "open")
                for k, o in enumerate(t.rules.deck[card])
            ]
            redeem = (
                f"; redeemed now it pays {plural(PAYOUT[covered], 'coin')}" if covered >= 3 else ""
            )
            sub = f"{covered} of 6 orders fulfilled, bottom first{redeem}"
            zones.append(film.slots("harvest_card", f"Harvest card {card}", orders, sub))
        cover = t.cover_card[s]
        zones.append(
            film.value(
                "cover",
                "Covering card",
                f"card {cover}" if cover >= 0 else "none",
                "" if cover >= 0 else "the draw pile ran dry",
            )
        )
        return (*zones, *self.referee.note(s))


VIEWER = Viewer(REPLAYER.replay, Painter)
