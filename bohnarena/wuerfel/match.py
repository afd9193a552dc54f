"""A match of the dice game: the referee answers every decision the game's
:class:`~.state.State` stops at (the rules are in :mod:`.state`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..core.botapi import Seat
from ..core.game import MatchResult
from ..referee.seats import BotSeat
from .bot import Bot, DiceView
from .rules import RuleSet
from .state import MAX_TURNS, State
from .table import DECISIONS, Table

__all__ = ["DECISIONS", "MAX_TURNS", "Match", "Table"]


class Match:
    def __init__(
        self, rules: RuleSet, seed: int, players: Sequence[Bot | Seat], inline: bool = True
    ) -> None:
        """Each player is a Bot (run in this process, unlimited) or a ready
        Seat. ``inline``: seats answer as the rules reach their decisions;
        else the state stops at each (the same match either way)."""
        self.rules, self.seed, self.inline = rules, seed, inline
        self.state = State(rules, seed, [frozenset()] * rules.players)
        self.table = self.state.table
        seats = [BotSeat(p, DECISIONS) if isinstance(p, Bot) else p for p in players]
        self.referee = self.state.referee_for(seats, DiceView)

    @property
    def records(self) -> list[tuple[Any, ...]]:
        return self.table.records

    def play(self) -> MatchResult:
        self.referee.seat_all(self.rules, self.seed)
        if self.inline:
            self.state.answerer = self.referee.answer
        self.state.start(list(self.state.asks))
        self.referee.run(self.state)
        result = self.state.result
        assert result is not None, "the referee stopped before the match ended"
        result = replace(result, faults=tuple(self.referee.faults))
        self.referee.end_all(result)
        return result

    # -- for rule tests: a turn or a window of a table set up by hand ----------
    def play_turn(self) -> list[int]:
        """Play the active player's turn (``table.active``); returns the
        seats that reached the target (empty: the match goes on)."""
        self.state.pause_after(self.state.push_turn)
        self.referee.run(self.state)
        return self.state.winners

    def fulfil_window(self, seat: int, dice: tuple[int, ...]) -> None:
        self.state.pause_after(lambda: self.state.push_window(seat, dice))
        self.referee.run(self.state)

    def reached_target(self) -> list[int]:
        return self.state.reached_target()

    def finish(self, winners: list[int]) -> MatchResult:
        return replace(self.state.finish(winners), faults=tuple(self.referee.faults))
