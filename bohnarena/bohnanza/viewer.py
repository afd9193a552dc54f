"""The card game's table as the viewer page draws it (see
:mod:`bohnarena.viewer.film`): built from the table its replay builds,
move by move, with the engine's own beanometer and protection rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.text import plural
from ..viewer import film
from ..viewer.film import Frame, Move, Viewer, Zone
from .records import as_dict
from .replay import REPLAYER
from .rules import RuleSet
from .table import FINAL_PHASE, Table
from .transcript import Narrator, bean

PHASES = {
    1: "planting from the hand",
    2: "trading",
    3: "planting traded cards",
    4: "drawing",
}
TAGS = {
    "turn": "turn",
    "revealed": "draw",
    "drew": "draw",
    "harvested": "harvest",
    "bought_field": "harvest",
    "offered": "offer",
    "said": "talk",
    "declined": "offer",
    "traded": "trade",
    "exhausted": "shuffle",
    "reshuffled": "shuffle",
    "draft_card": "draft",
    "picked": "draft",
    "draft_coin": "draft",
    "note": "note",
    "fault": "fault",
    "forfeit": "fault",
    "final_harvest": "end",
    "ended": "end",
}
#: Offers, what was said with them, and trades shown on the table (the latest of the turn).
RECENT = 8
#: Decision values that name a variety (the others are fields, counts or
#: card references: positions in a hand).
VARIETIES = {"card", "want"}


class Painter:
    """Draws one match's table after each move (see :class:`film.Painter`)."""

    def __init__(self, rules: RuleSet, names: Sequence[str]) -> None:
        self.rules = rules
        self.names = names
        self.narrator = Narrator(names)
        self.trading: list[int] = []  # this turn's offers and trades (move numbers)
        self.referee = film.Referee(len(names), self.narrator.describe)
        self.phase = 0  # (the table's phase is the last turn's until a phase begins)

    def move(self, i: int, rec: tuple[Any, ...]) -> Move:
        line = self.narrator.describe(rec)
        if line is not None:
            return Move(line.strip().strip("=").strip(), TAGS.get(rec[0], "event"), rec[1])
        return Move(self._quiet(rec), "quiet", rec[1])

    def _quiet(self, rec: tuple[Any, ...]) -> str:
        """A line for a record the transcript passes over."""
        who = self.narrator.who(rec[1])
        kind = rec[0]
        if kind == "seat":
            return f"{who} answers {rec[2].replace(',', ', ') or 'nothing itself'}"
        if kind == "phase":
            return f"{who} begins phase {rec[2]}: {PHASES.get(rec[2], '')}"
        if kind == "kept":
            return f"{who} keeps none of the revealed cards"

        def name(key: str, v: Any) -> str:
            if key not in VARIETIES:
                return str(v)
            return bean(v) if isinstance(v, int) else "(" + ", ".join(map(bean, v)) + ")"

        return film.answer_text(who, as_dict(rec), name)

    def frame(self, i: int, rec: tuple[Any, ...], t: Table) -> Frame:
        kind = rec[0]
        if kind == "turn":
            self.trading, self.phase = [], 0
        elif kind == "phase":
            self.phase = rec[2]
        elif kind == "final_harvest":
            self.phase = FINAL_PHASE
        elif kind in ("said", "offered", "declined", "traded"):
            self.trading.append(i)
        self.referee.see(i, rec)
        who = [rec[1]] if rec[1] >= 0 else []
        if kind in ("offered", "declined", "traded") and rec[2] >= 0:
            who.append(rec[2])
        paid = {}  # a harvest, marked on its seat at its move
        if kind == "harvested":
            _, seat, _, card, n, coins = rec
            paid[seat] = f"harvested {n} {bean(card)}: {plural(coins, 'coin')}"
        return Frame(
            t.turn,
            self._head(t),
            self._table(t),
            tuple(self._seat(t, s, paid.get(s)) for s in range(t.players)),
            tuple(who),
        )

    def _head(self, t: Table) -> str:
        if self.referee.over:
            return "The game is over"
        if not t.turn:
            return "The deal"
        if self.phase == FINAL_PHASE:
            return "The game ends: every field is harvested"
        phase = f", phase {self.phase} ({PHASES[self.phase]})" if self.phase else ""
        return f"Turn {t.turn}{phase}: {self.narrator.who(t.active)} is active"

    def _table(self, t: Table) -> tuple[Zone, ...]:
        runs = self.rules.exhaustions
        zones = [
            film.value(
                "draw_pile",
                "Draw pile",
                plural(len(t.deck), "card"),
                f"ran out {t.exhaustions} of {runs} times",
            ),
            film.value(
                "discard",
                "Discard pile",
                plural(len(t.discard), "card"),
                f"top: {bean(t.discard[-1])}" if t.discard else "",
            ),
            film.cards("revealed", "Face-up cards (phase 2)", map(bean, t.revealed)),
            film.lines("trading", "Offers and trades this turn", self._trading()),
        ]
        for k, draft in enumerate(t.drafts):
            zones.append(film.cards(f"draft{k}", "Jumping Bean draft", map(bean, draft)))
        return tuple(zones)

    def _trading(self) -> list[str | int]:
        """The turn's last offers and trades, as move numbers (the page
        shows their lines); a turn can have dozens, the move list has all."""
        earlier = len(self.trading) - RECENT
        if earlier <= 0:
            return list(self.trading)
        return [f"({earlier} earlier: see the moves)", *self.trading[-RECENT:]]

    def _seat(self, t: Table, s: int, paid: str | None = None) -> tuple[Zone, ...]:
        allowed = t.harvestable(s)
        fields: list[tuple[str, int | None, str]] = []
        for f, (v, n) in enumerate(t.fields[s]):
            if not n:
                fields.append(("empty", None, ""))
                continue
            pays = t.coins_for(v, n)
            note = f"a harvest pays {plural(pays, 'coin')}"
            if f not in allowed:
                note += " (protected now)"
            fields.append((bean(v), n, note))
        zones = [
            self.referee.badges(s, s == t.active and t.turn > 0, *filter(None, [paid])),
            film.value("coins", "Coins", len(t.coins[s])),
            film.slots("fields", "Fields", fields),
            film.cards("hand", "Hand (front card first)", map(bean, t.hands[s]), secret=True),
            film.cards("trade_area", "Trade area", map(bean, t.trade[s])),
        ]
        return (*zones, *self.referee.note(s))


VIEWER = Viewer(REPLAYER.replay, Painter)
