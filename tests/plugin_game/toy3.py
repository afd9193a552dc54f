"""Three cards: a toy game installed as a plugin (tests/core/test_games.py).

Cards 1, 2 and 3 lie face up in a shuffled row; players take one in turn
until the row is empty, and score its value in coins. It implements
:class:`bohnarena.core.game.Game` with nothing but the public seam.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from bohnarena.core.botapi import BotBase, Seat, ViewBase
from bohnarena.core.errors import IllegalAnswer, RulesError
from bohnarena.core.game import Config, Decision, Game, MatchResult, Record
from bohnarena.core.seeding import derive_seed
from bohnarena.referee.replaylog import Replayer
from bohnarena.referee.seats import BotSeat, Referee

LAYOUT: dict[str, tuple[str, ...]] = {
    "seat": ("text",),
    "row": ("cards",),
    "turn": ("n",),
    "take": ("n",),  # the position in the row
    "fault": ("decision", "text"),
    "forfeit": (),
    "ended": ("cards",),
}
COLUMNS = {"cards": "ints", "n": "int", "decision": "str", "text": "str"}


@dataclass(frozen=True)
class Rules:
    edition: str
    players: int

    def options(self) -> dict[str, Any]:
        return asdict(self)


class ToyBot(BotBase):
    game: ClassVar[str] = "toy3"
    DECISIONS = ("take",)

    def take(self, view: ToyView) -> int:
        """The position in ``view.row`` of the card to take (default: the first)."""
        return 0


class GreedyBot(ToyBot):
    name = "toy-greedy"

    def take(self, view: ToyView) -> int:
        return view.row.index(max(view.row))


class RandomBot(ToyBot):
    name = "toy-random"

    def take(self, view: ToyView) -> int:
        return self.rng.randrange(len(view.row))


class ToyView(ViewBase):
    __slots__ = ()

    @property
    def row(self) -> tuple[int, ...]:
        return tuple(self._table.row)


class Table:
    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules, self.players = rules, rules.players
        self.row = [1, 2, 3]
        random.Random(derive_seed(seed, "row")).shuffle(self.row)
        self.coins = [0] * rules.players
        self.active = self.turn = 0
        self.records: list[Record] = []
        self.record: Callable[[Record], None] = self.records.append  # replay swaps it


def _take(t: Table, seat: int, x: Any) -> int:
    if type(x) is not int or not 0 <= x < len(t.row):
        raise IllegalAnswer(f"take a position 0-{len(t.row) - 1}")
    return x


DECISIONS = {"take": Decision("take", _take, lambda a, args: (a,), lambda v: v[0], lambda view: 0)}


class State:
    """The match stopped at a decision (``pending``), or over (``result``):
    the referee and replay both play it (see bohnarena/referee/replaylog.py)."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.table = Table(rules, seed)
        self.asks: list[frozenset[str]] = [frozenset(DECISIONS)] * rules.players
        self.forfeited: set[int] = set()
        self.pending: tuple[int, str, tuple[Any, ...]] | None = None
        self.then = None  # no window pairs with a decision in this game
        self.result: MatchResult | None = None

    def view(self, seat: int) -> ToyView:
        return ToyView(self.table, seat)

    def start(self, declared: Sequence[frozenset[str]] | None = None) -> None:
        self.table.record(("row", -1, tuple(self.table.row)))
        self._run()

    def check(self, answer: Any) -> int:
        assert self.pending is not None
        return _take(self.table, self.pending[0], answer)

    def resume(self, answer: int, how: str = "bot", note: str | None = None) -> None:
        assert self.pending is not None
        seat, self.pending = self.pending[0], None
        self.table.record(("take", seat, answer))
        self._take(seat, answer)

    def _take(self, seat: int, at: int) -> None:
        t = self.table
        t.coins[seat] += t.row.pop(at)
        self._run()

    def _run(self) -> None:
        """The next turn: stop for a seat that answers, or play the default."""
        t = self.table
        if not t.row:
            coins = tuple(t.coins)
            t.record(("ended", -1, coins))
            ranks = tuple(1 + sum(c > coins[s] for c in coins) for s in range(t.players))
            winners = tuple(s for s in range(t.players) if ranks[s] == 1)
            self.result = MatchResult(coins, ranks, winners, t.turn, ())
            return
        t.active, t.turn = t.turn % t.players, t.turn + 1
        t.record(("turn", t.active, t.turn))
        if "take" in self.asks[t.active]:
            self.pending = (t.active, "take", ())
        else:  # a default is played, and not recorded
            self._take(t.active, DECISIONS["take"].default(self.view(t.active)))


class Match:
    def __init__(self, rules: Rules, seed: int, players: Sequence[ToyBot | Seat]) -> None:
        seats = [BotSeat(p, DECISIONS) if isinstance(p, ToyBot) else p for p in players]
        self.rules, self.seed, self.state = rules, seed, State(rules, seed)
        self.table = self.state.table
        self.referee = Referee(seats, DECISIONS, self.table, ToyView, asks=self.state.asks)
        self.state.forfeited = self.referee.forfeited

    def play(self) -> MatchResult:
        self.referee.seat_all(self.rules, self.seed)
        self.state.start()
        self.referee.run(self.state)
        assert self.state.result is not None
        result = replace(self.state.result, faults=tuple(self.referee.faults))
        self.referee.end_all(result)
        return result


def as_dict(rec: Sequence[Any]) -> dict[str, Any]:
    return {"kind": rec[0], "seat": rec[1], **dict(zip(LAYOUT[rec[0]], rec[2:], strict=True))}


def state(t: Table, seat: int | None = None) -> dict[str, Any]:
    return {"turn": t.turn, "active": t.active, "row": list(t.row), "coins": list(t.coins)}


class Narrator:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = names

    def describe(self, rec: Sequence[Any]) -> str | None:
        if rec[0] == "take":
            return f"  {self.names[rec[1]]} takes card {rec[2]} of the row"
        if rec[0] == "ended":
            return f"Final coins: {list(rec[2])}"
        return None

    def table(self, state: dict[str, Any]) -> list[str]:
        return [f"  [row {state['row']}, coins {state['coins']}]"]


_REPLAYER = Replayer(State, DECISIONS, state, as_dict, Narrator)


class ThreeCards:
    name = "toy3"
    title = "Three cards"
    version = 1
    layout = LAYOUT
    columns = COLUMNS
    bot_base = ToyBot
    decisions = DECISIONS
    wire = None  # no JSON protocol: its bots run in process only
    shipped_bots = ("toy-greedy", "toy-random")

    def editions(self) -> list[str]:
        return ["standard"]

    def player_counts(self, edition: str) -> list[int]:
        return [2, 3]

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> Rules:
        if edition != "standard" or players not in (2, 3) or options:
            raise RulesError("three cards: edition standard, 2 or 3 players, no options")
        return Rules(edition, players)

    def conformance_configs(self) -> list[Config]:
        return [("standard", p, {}) for p in (2, 3)]

    def play(
        self, rules: Rules, seed: int, players: Sequence[Any]
    ) -> tuple[MatchResult, list[Record]]:
        match = Match(rules, seed, players)
        return match.play(), match.table.records

    transcript = _REPLAYER.transcript
    verify = _REPLAYER.verify
    replay_lines = _REPLAYER.replay_lines
    table_at = _REPLAYER.table_at


GAME: Game = ThreeCards()
