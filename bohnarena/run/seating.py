"""A seat for a league's bot, in this process or out of it (any game)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.botapi import Seat
from ..core.entry import BotEntry
from ..core.game import Game
from ..core.plugins import load_bot
from ..core.textplay import text_layer
from ..external.remote import RemoteSeat, remote_seat
from ..referee.limits import Limits, Watchdog
from ..referee.seats import BotSeat

if TYPE_CHECKING:
    from ..external.http.chat import ChatSeat


def make_seat(
    game: Game,
    entry: BotEntry,
    limits: Limits | None = None,
    watchdog: Watchdog | None = None,
    log: Path | None = None,
    timed: bool = False,
    match_id: int | None = None,
    clocked: bool = False,
) -> Seat:
    """The seat of ``entry`` at a table of ``game``: in this process, in a
    sandbox process (whose stderr goes to ``log``), a web service, or a
    language model's endpoint; ``timed`` keeps each
    decision's time (for conformance reports); ``match_id``: the league's id
    of the match, which the seat's view tells its bot; ``clocked``: the
    referee notes each answer's think time in the seat's ``clock``."""
    seat: BotSeat | RemoteSeat | ChatSeat
    if entry.chat is not None:  # a language model (docs/text-seats.md)
        from ..external.http.chat import chat_seat

        seat = chat_seat(text_layer(game), game.decisions, entry, limits or Limits())
    elif entry.isolation == "inprocess":
        assert entry.spec is not None
        # The bot is built in seat.start(), under the limits:
        # its constructor's faults are its own.
        make = load_bot(entry.spec, game.bot_base)
        seat = BotSeat(None, game.decisions, limits, watchdog, timed, make=make)
    elif entry.service is not None:  # served over HTTP
        from ..external.http.seat import http_seat

        seat = http_seat(game.name, entry, limits, log)
    else:
        seat = remote_seat(game.name, entry, limits, log)
    seat.match_id = match_id
    if clocked:
        seat.clock = []
    return seat
