"""A person at a ``play`` table (``--human SEAT``, or ``human`` among the
bots): a text seat reading the terminal (docs/text-seats.md)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..core.botapi import Seat
from ..core.errors import UsageError
from ..core.game import Game
from ..core.textplay import text_layer
from ..referee.textseat import HumanSeat, LineReader
from .group import echo

#: The bot spec of a person.
HUMAN = "human"


def seated(bots: Sequence[str], humans: Sequence[int]) -> tuple[str, ...]:
    """``bots`` with a person at each seat of ``humans`` (seat numbers of
    the whole table, the bots filling the rest in order)."""
    players = len(bots) + len(humans)
    out: list[str] = list(bots)
    for seat in sorted(set(humans)):
        if not 0 <= seat < players:
            raise UsageError(f"--human {seat}: the table has seats 0 to {players - 1}")
        out.insert(seat, HUMAN)
    if len(set(humans)) != len(humans):
        raise UsageError("--human: a seat is given twice")
    return tuple(out)


def human_seat(game: Game, names: Sequence[str], seconds: float | None) -> Seat:
    """A person reading this terminal, told what the seat saw happen
    between decisions, the seats by number and bot."""
    layer = text_layer(game)
    if layer is None:
        raise UsageError(f"game {game.name!r} has no text seats: a person cannot play it")
    if seconds is not None and seconds <= 0:
        raise UsageError(f"--human-seconds must be above 0, not {seconds:g}")
    return HumanSeat(
        layer,
        game.decisions,
        write=echo,
        reader=LineReader(sys.stdin.fileno()),
        seconds=seconds,
        names=names,
    )
