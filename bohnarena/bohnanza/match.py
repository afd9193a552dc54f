"""A match between seats: the referee answers every decision the game's
:class:`~.state.State` stops at (when seats are asked: see :mod:`.state`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..core.botapi import Seat
from ..core.game import MatchResult
from ..referee.seats import BotSeat
from .bot import Bot
from .decisions import DECISIONS
from .rules import RuleSet
from .state import State
from .table import GameOver
from .view import SeatView


class Match:
    def __init__(
        self,
        rules: RuleSet,
        seed: int,
        players: Sequence[Bot | Seat],
        new_state: Callable[[RuleSet, int, list[frozenset[str]]], State] = State,
        inline: bool = True,
    ) -> None:
        """Each player is a Bot (run in this process, unlimited) or a ready
        Seat. ``new_state``: the rules played (a variant of :class:`State`).
        ``inline``: seats in this process answer as the rules reach their
        decisions; else the state stops at each, as for seats out of process
        (the same match either way)."""
        self.rules, self.seed, self.inline = rules, seed, inline
        self.state = new_state(rules, seed, [frozenset()] * rules.players)
        self.table = self.state.table
        seats = [BotSeat(p, DECISIONS) if isinstance(p, Bot) else p for p in players]
        self.referee = self.state.referee_for(seats, SeatView)

    @property
    def seats(self) -> list[Seat]:
        return self.referee.seats

    @property
    def records(self) -> list[tuple[Any, ...]]:
        return self.table.records

    @property
    def faults(self) -> list[int]:
        return self.referee.faults

    def seat_all(self) -> None:
        self.referee.seat_all(self.rules, self.seed)
        self.state.seated([s.asks for s in self.seats])

    def play(self) -> MatchResult:
        self.seat_all()
        if self.inline and not any(s.pairs for s in self.seats):
            # Bots in this process: answered as the rules reach them (no stops)
            self.state.answerer = self.referee.answer
        self.state.start()
        self.referee.run(self.state)
        result = self.state.result
        assert result is not None, "the referee stopped before the match ended"
        result = replace(result, faults=tuple(self.faults))
        self.referee.end_all(result)
        return result

    # -- for rule tests: one turn of a table set up by hand -------------------
    def deal(self) -> None:
        self.state.deal()

    def finish(self) -> MatchResult:
        return replace(self.state.finish(), faults=tuple(self.faults))

    def play_turn(self) -> None:
        """Play the active player's turn (``table.active``); raises
        :class:`GameOver` when the game ends in it (after the final harvest)."""
        state = self.state
        state.pause_after(state.push_turn_phases)
        self.referee.run(state)
        if state.result is not None:
            raise GameOver


def play_match(
    rules: RuleSet, seed: int, players: Sequence[Bot | Seat]
) -> tuple[MatchResult, list[tuple[Any, ...]]]:
    """Play one match; each player is a Bot (run in this process, unlimited)
    or a ready Seat. Returns the result and the record stream."""
    match = Match(rules, seed, players)
    return match.play(), match.records
