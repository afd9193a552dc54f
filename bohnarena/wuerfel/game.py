"""The dice game as seen by the runner and the replayer (see :class:`bohnarena.core.game.Game`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.botapi import FAULT_CHARS, NOTE_CHARS, RecordNames
from ..core.game import Capabilities, Config, Game, MatchResult, Record
from ..core.untrusted import one_line
from ..referee.replaylog import Replayer
from ..viewer.film import Viewer
from . import rules as rules_mod
from .bot import Bot
from .match import Match
from .state import State
from .table import DECISIONS, Table

EVENTS: dict[str, tuple[str, ...]] = {
    "seat": ("text",),  # decisions this seat's bot answers itself
    "dealt": ("cards",),  # the seat's active card and the card below it
    "turn": ("n",),
    "rolled": ("cards",),  # varieties shown by the dice just rolled
    "set_aside": ("cards",),  # dice the active player put on the bean field
    "fulfilled": ("card", "n"),  # order n (1 = bottom) of harvest card `card` covered
    "redeemed": ("card", "coins"),
    "drew": ("card",),  # a new covering card
    "overview": (),  # the seat turned its overview card (empty draw pile)
    "fault": ("decision", "text"),
    "forfeit": (),
    "ended": ("values",),  # final coins of every seat
}
#: A bot's note on the answer recorded right before it (``Bot.note``): the
#: log's and the organiser's; no other seat sees it.
NOTES: dict[str, tuple[str, ...]] = {"note": ("text",)}
LAYOUT: dict[str, tuple[str, ...]] = {
    **EVENTS,
    "keep": ("cards", "n"),
    "harvest": ("n",),
    **NOTES,
}
COLUMNS = {
    "card": "int",
    "n": "int",
    "coins": "int",
    "cards": "ints",
    "values": "ints",
    "decision": "str",
    "text": "str",
}


#: Records as named tuples (``Fulfilled(kind, seat, card, n)``): what
#: :attr:`DiceView.history` holds.
named = RecordNames(LAYOUT)


def as_dict(rec: Sequence[Any]) -> dict[str, Any]:
    """A record as ``{"kind", "seat", <named values>}``."""
    return {"kind": rec[0], "seat": rec[1], **dict(zip(LAYOUT[rec[0]], rec[2:], strict=False))}


def _state(t: Table, seat: int | None = None) -> dict[str, Any]:
    # Everything is public: every seat sees the whole table.
    deck = t.rules.deck
    return {
        "turn": t.turn,
        "active": t.active,
        "bean_field": list(t.field),
        "draw_pile": len(t.deck),
        "seats": [
            {
                "seat": s,
                "coins": t.coins[s],
                "card": t.active_card[s],
                "covered": t.covered[s],
                "cover_card": t.cover_card[s],
                "open_orders": [o.text for o in deck[t.active_card[s]][t.covered[s] :]]
                if t.active_card[s] >= 0
                else [],
            }
            for s in range(t.players)
        ],
    }


class _Narrator:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = names

    def who(self, s: int) -> str:
        if s < 0:
            return "the table"
        return f"seat {s} ({self.names[s]})" if s < len(self.names) else f"seat {s}"

    @staticmethod
    def beans(dice: Sequence[int]) -> str:
        names = rules_mod.variety_ids()
        by_id = {i: n.capitalize() for n, i in names.items()}
        return ", ".join(by_id[d] for d in dice) if dice else "nothing"

    def describe(self, rec: Sequence[Any]) -> str | None:
        kind, s = rec[0], rec[1]
        w = self.who(s)
        return {
            "dealt": lambda: f"{w} gets harvest cards {rec[2][0]} (active) and {rec[2][1]}",
            "turn": lambda: f"\n== Turn {rec[2]}: {w} rolls ==",
            "rolled": lambda: f"  rolls {self.beans(rec[2])}",
            "set_aside": lambda: f"  sets aside {self.beans(rec[2])}",
            "fulfilled": lambda: f"    {w} fulfils order {rec[3]} of card {rec[2]}",
            "redeemed": lambda: f"    {w} redeems card {rec[2]} for {rec[3]} coin(s)",
            "drew": lambda: f"    {w} draws card {rec[2]} to cover",
            "overview": lambda: (
                f"    {w} turns the overview card (5 coins; 5 coins back to the pile)"
            ),
            # (a log may come from anywhere: a bot's text is escaped again)
            "note": lambda: f"    ({w} notes: {one_line(rec[2], NOTE_CHARS)})",
            "fault": lambda: f"  FAULT {w} in {rec[2]}: {one_line(rec[3], FAULT_CHARS)}",
            "forfeit": lambda: f"  {w} FORFEITS",
            "ended": lambda: (
                "\n== Final coins: "
                + ", ".join(f"{self.who(i)} {c}" for i, c in enumerate(rec[2]))
                + " =="
            ),
        }.get(kind, lambda: None)()

    def table(self, state: dict[str, Any]) -> list[str]:
        lines = [f"  [draw pile {state['draw_pile']}]"]
        for s in state["seats"]:
            orders = "; ".join(s["open_orders"][:3]) + (" ..." if len(s["open_orders"]) > 3 else "")
            lines.append(
                f"  [{self.who(s['seat'])}: {s['coins']} coins; card {s['card']} with "
                f"{s['covered']} covered; next: {orders or '-'}]"
            )
        return lines


_REPLAYER = Replayer(State, DECISIONS, _state, as_dict, _Narrator)


def _log_names(ruleset: rules_mod.RuleSet) -> dict[str, tuple[str, ...]]:
    # the varieties on the dice (`rolled`, `set_aside`), as the transcript names them
    return {"variety": tuple(v.capitalize() for v in ruleset.varieties)}


def _viewer() -> Viewer:
    from .viewer import VIEWER  # (it imports this module)

    return VIEWER


class Wuerfel:
    name = "wuerfel"
    title = "Würfel Bohnanza"
    version = rules_mod.RULES_VERSION
    layout = LAYOUT
    columns = COLUMNS
    bot_base = Bot
    decisions = DECISIONS
    wire = "bohnarena.wuerfel.wire"
    shipped_bots = ("wuerfel-greedy", "wuerfel-random")
    capabilities = Capabilities(new_state=State, viewer=_viewer, log_names=_log_names)

    def editions(self) -> list[str]:
        return list(rules_mod.EDITIONS)

    def player_counts(self, edition: str) -> list[int]:
        return list(rules_mod.PLAYERS)

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> rules_mod.RuleSet:
        return rules_mod.ruleset(edition, players, **options)

    def conformance_configs(self) -> list[Config]:
        return [
            ("standard", p, {"early_stop": stop})
            for p in rules_mod.PLAYERS
            for stop in (True, False)
        ]

    def play(
        self, ruleset: rules_mod.RuleSet, seed: int, players: Sequence[Any]
    ) -> tuple[MatchResult, list[Record]]:
        match = Match(ruleset, seed, players)
        return match.play(), match.records

    # Everything is public in the dice game: --seat shows the same.
    transcript = _REPLAYER.transcript
    verify = _REPLAYER.verify
    replay_lines = _REPLAYER.replay_lines
    table_at = _REPLAYER.table_at


GAME: Game = Wuerfel()
