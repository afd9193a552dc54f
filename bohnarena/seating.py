"""A seat for a league's bot, in this process or out of it (any game)."""

from __future__ import annotations

from pathlib import Path

from .game import Game
from .league import BotEntry
from .limits import Limits, Watchdog
from .plugins import load_bot
from .remote import remote_seat
from .seats import BotSeat, Seat


def make_seat(
    game: Game,
    entry: BotEntry,
    limits: Limits | None = None,
    watchdog: Watchdog | None = None,
    log: Path | None = None,
    timed: bool = False,
) -> Seat:
    """The seat of ``entry`` at a table of ``game``: in this process, or in a
    sandbox process (whose stderr goes to ``log``); ``timed`` keeps each
    decision's time (for conformance reports)."""
    if entry.isolation == "inprocess":
        assert entry.spec is not None
        # The bot is built in seat.start(), under the limits:
        # its constructor's faults are its own.
        make = load_bot(entry.spec, game.bot_base)
        return BotSeat(None, game.decisions, limits, watchdog, timed, make=make)
    return remote_seat(game.name, entry, limits, log)
