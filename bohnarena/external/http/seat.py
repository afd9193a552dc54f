"""A seat whose bot is a web service (any game with a wire module): the
messages of the JSON-lines protocol, one HTTP POST each (docs/http-bots.md).

The seat is a :class:`~bohnarena.external.remote.RemoteSeat`: the same messages, deadlines
from the same time bank, the same default answer after a fault, think
time kept the same way. What differs is what a fault costs. A process that
faults is gone; a service is not: the match goes on asking it (on a fresh
connection where the last one was left in doubt), every fault counted
toward ``max_faults`` and its time toward the time bank. A service that
cannot be reached (no start, or :data:`MAX_CONNECTION_FAULTS` connections
refused, dropped or cut short in a match: ``crash`` faults) forfeits the
match, so an outage costs that bot's matches, quickly, and nobody else's;
and after :data:`~.transport.DOWN_AFTER` failed connections in a row a
worker leaves the service alone for a rest, so each of its later matches
costs one refused start, not a connect timeout.

Concurrency: a worker plays one match at a time and asks one seat at a
time, so a service gets at most one request at a time from each worker
process (each Dask worker thread), and a run sends it at most as many at
once as it has workers. No request waits for another's: a wait would be
charged to a seat's time bank.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.entry import BotEntry
from ...core.errors import BotLoadError
from ...core.game import get_game
from ...core.services import Service, parse_url, token
from ...core.wire import wire_of
from ...referee.limits import Limits
from ..channel import CRASH, START, BotFault, Conversation
from ..remote import RemoteSeat

if TYPE_CHECKING:
    from .transport import HttpChannel

#: Connection faults (``crash``: refused, dropped, cut short) in one match
#: after which the seat forfeits it.
MAX_CONNECTION_FAULTS = 3
EXTRA = "pip install 'bohnarena[http]'"


def http_seat(
    game: str, entry: BotEntry, limits: Limits | None = None, log: Path | None = None
) -> HttpSeat:
    """The seat of a league bot served over HTTP (``log`` is unused: a
    service's output is its own)."""
    assert entry.service is not None
    wire = get_game(game).wire
    if wire is None:
        raise BotLoadError(f"bot {entry.name!r}: {game} bots run in process only (it has no wire)")
    try:
        import httpcore  # noqa: F401  (the http extra)
    except ImportError:
        raise BotLoadError(
            f"bot {entry.name!r} is served over HTTP, which needs the http extra: {EXTRA}"
        ) from None
    lim = limits or Limits()
    return HttpSeat(wire_of(wire), HttpEndpoint(entry.service, lim), lim)


class HttpEndpoint:
    """The service of one league bot: a channel (its connection) a match."""

    keeps = False  # a match's connection ends with it
    trouble: str | None = None  # nothing runs here whose ending could go wrong

    def keep(self, channel: Conversation) -> None:
        raise NotImplementedError("an HTTP endpoint keeps nothing (keeps is False)")

    def __init__(self, service: Service, limits: Limits) -> None:
        self.service, self.limits = service, limits
        self.url = parse_url(service.url)
        self.versions: set[str] = set()  # the HTTP versions it answered in

    def open(self) -> HttpChannel:
        from .transport import HttpChannel

        try:
            secret = token(self.service)
        except BotLoadError as e:
            raise BotFault(START, str(e)) from None
        return HttpChannel(
            self.url,
            secret,
            self.service.allow_private,
            self.limits.output_kb * 1024,
            self.limits.decision_seconds,  # connecting takes no thinking: one decision at most
            self.versions,
        )

    def close(self, settle: float = 0.0) -> str | None:
        return None  # nothing runs here: the channel closed its connection


class HttpSeat(RemoteSeat):
    """A :class:`RemoteSeat` whose faults do not end its bot (see the module)."""

    def __init__(self, wire: Any, endpoint: HttpEndpoint, limits: Limits) -> None:
        super().__init__(wire, endpoint, limits)
        self.connection_faults = 0  # this match's
        self._starting = False

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        self.connection_faults, self._starting = 0, True
        try:
            return super().start(seat, rules, seed)
        finally:
            self._starting = False

    def _request(self, msg: dict[str, Any], seconds: float, counted: bool = True) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            return super()._request(msg, seconds, counted)
        except BotFault:
            if counted:  # a fault's time is the bot's too (a process's fault ends its match)
                took = time.perf_counter() - start
                self.spent += took
                self.times.append(took)
            raise

    def _lose(self, fault: BotFault) -> str:
        if self._starting:  # the service does not know this match: it is asked nothing more
            return super()._lose(fault)
        if fault.kind == CRASH:
            self.connection_faults += 1
        return str(fault)

    def forfeits(self, faults: int) -> bool:
        return super().forfeits(faults) or self.connection_faults >= MAX_CONNECTION_FAULTS
