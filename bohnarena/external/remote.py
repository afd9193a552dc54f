"""A seat whose bot runs in another process and answers over JSON lines
(any game: the game's wire module turns views and answers into JSON).

Everything that can go wrong on the way is a fault of that bot: no answer
in time (the decision's limit or what is left of its time bank), a crash, a
message too large, not JSON, not the protocol, an answer of the wrong
shape. A fault that loses the process (timeout, crash, output) ends it: the
seat forfeits the rest of the match, and the next match gets a fresh one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.botapi import Clock, PairAnswers
from ..core.entry import BotEntry
from ..core.errors import BotLoadError
from ..core.faults import reported
from ..core.game import PROTOCOL_VERSION, STATE, MatchResult, get_game
from ..core.wire import Wire, wire_of
from ..referee.limits import Limits
from .channel import CRASH, MEMORY, PROTOCOL, START, BotFault, Conversation
from .endpoint import Endpoint, endpoint

_NONE = object()
END_SECONDS = 1.0
EXIT_SECONDS = 0.5


def remote_seat(
    game: str, entry: BotEntry, limits: Limits | None = None, log: Path | None = None
) -> RemoteSeat:
    """The seat of a league bot that runs as a ``process`` or in a ``sandbox``."""
    lim, wire = limits or Limits(), get_game(game).wire
    if wire is None:
        raise BotLoadError(f"bot {entry.name!r}: {game} bots run in process only (it has no wire)")
    return RemoteSeat(
        wire_of(wire),
        endpoint(
            wire, entry.spec, entry.command, entry.isolation, lim, log, entry.dir, entry.packages
        ),
        lim,
        dict(entry.params),
    )


class RemoteSeat:
    def __init__(
        self, wire: Wire, endpoint: Endpoint, limits: Limits, params: dict[str, Any] | None = None
    ) -> None:
        self.wire, self.endpoint, self.limits = wire, endpoint, limits
        self.params = params or {}  # the league's parameters of the bot: sent at start
        self.channel: Conversation | None = None
        self.asks: frozenset[str] = frozenset()
        self.spent = 0.0  # seconds of decisions this match (the time bank)
        self.times: list[float] = []
        self._seen = 0  # raw records already looked through
        self.reuse = False  # a command bot that serves match after match
        self._shown: dict[str, Any] = {}  # the view last sent (framed)
        self.notes: list[Any] = []  # the notes of the answers just read (Referee.notes)
        self.match_id: int | None = None  # the league's id of the match (set by the runner)
        self.clock: Clock | None = None  # each answer's think time (the runner's, if it asks)
        #: The game's searchable state for the view, if the bot asked for it
        #: (``"state": true`` at start) and the game has one; else None (no cost).
        self.state_json: Callable[[Any], dict[str, Any] | None] | None = None

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        self.spent, self._seen, self.asks, self._shown = 0.0, 0, frozenset(), {}
        self.state_json = None
        try:
            self.channel = self.endpoint.open()
            if self.channel.reused:  # as UCI's ucinewgame: forget the last match
                self.channel.send({"type": "new_match"}, time.perf_counter() + END_SECONDS)
            reply = self._request(
                {
                    "type": "start",
                    "protocol": PROTOCOL_VERSION,
                    "seat": seat,
                    "rules": self.wire.rules_json(rules),
                    "seed": seed,
                    "match_id": self.match_id,
                    **({"params": self.params} if self.params else {}),
                },
                self.limits.start_seconds,
                counted=False,
            )
            if "error" in reply:
                raise BotFault(START, _text(reply["error"]))
            self.asks = self._decisions(reply.get("decisions"))
            if reply.get(STATE) is True:
                self.state_json = self.wire.state_json
            self.reuse = reply.get("reuse") is True and self.endpoint.keeps
        except BotFault as f:
            return self._lose(f)
        return None

    def _decisions(self, asks: Any) -> frozenset[str]:
        known = self.wire.DECISIONS
        if asks is None:
            return frozenset(known)
        if not isinstance(asks, list) or not all(isinstance(a, str) and a in known for a in asks):
            raise BotFault(
                PROTOCOL, f"decisions must be a list of {', '.join(known)}: {_text(asks)}"
            )
        return frozenset(asks)

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        if self.channel is None:
            return None, f"{CRASH}: the bot process is gone"
        msg = self._decide_msg(kind, view, args)
        try:
            reply = self._request(msg, self._deadline(self.limits.decision_seconds))
        except BotFault as f:
            return None, self._lose(f)
        self.notes[:] = [reply.get("note")]
        return self._answer(kind, reply, "answer", "error")

    #: A window and the decision after it in one round trip (bohnarena's host).
    pairs = True

    def decide_pair(self, first: str, then: str, view: Any, args: tuple[Any, ...]) -> PairAnswers:
        """``first`` (no arguments) and, if the bot answers it with None,
        ``then`` on the same view, in one round trip to bohnarena's host
        (see :meth:`bohnarena.referee.seats.Referee.run`); a command bot is
        asked ``first`` alone. The pair shares one deadline of two decisions."""
        if self.channel is None or not self.channel.framed:
            return self.decide(first, view, ()), None
        msg = self._decide_msg(first, view, ())
        msg["then"] = {"decision": then, "args": self.wire.args_json(then, view, args)}
        try:
            reply = self._request(msg, self._deadline(2 * self.limits.decision_seconds))
        except BotFault as f:
            return (None, self._lose(f)), None
        answer = self._answer(first, reply, "answer", "error")
        self.notes[:] = [reply.get("note")]
        if "then" not in reply and "then_error" not in reply:
            return answer, None
        self.notes.append(reply.get("then_note"))
        return answer, self._answer(then, reply, "then", "then_error")

    def _deadline(self, seconds: float) -> float:
        return min(seconds, max(0.0, self.limits.match_seconds - self.spent))

    def _answer(
        self, kind: str, reply: dict[str, Any], key: str, error: str
    ) -> tuple[Any, str | None]:
        if error in reply:
            text = _text(reply[error])
            # The type is ours, never the bot's text: other seats see it alone.
            return None, (f"{MEMORY}: {text}" if "MemoryError" in text else reported(text))[:300]
        try:
            return self.wire.answer_from_json(kind, reply.get(key)), None
        except Exception as e:  # any shape the wire cannot read is the bot's fault
            return None, f"{PROTOCOL}: {kind} answer {_text(reply.get(key))}: {e}"[:300]

    def _decide_msg(self, kind: str, view: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        assert self.channel is not None
        events: list[Any]
        events, self._seen = self.wire.events_since(view, self._seen)
        shown = self.wire.view_json(view)
        if self.state_json is not None:
            shown[STATE] = self.state_json(view)
        msg: dict[str, Any] = {
            "type": "decide",
            "decision": kind,
            "view": shown,
            "args": self.wire.args_json(kind, view, args),
            "events": events,
        }
        if self.channel.framed:
            # bohnarena's host keeps the last view: send what changed.
            msg["view"] = {k: v for k, v in shown.items() if self._shown.get(k, _NONE) != v}
            self._shown = shown
        else:
            msg["events"] = [self.wire.event_json(e) for e in events]
            msg["default"] = self.wire.answer_json(getattr(self.wire.BASE, kind)(None, view, *args))
        return msg

    def forfeits(self, faults: int) -> bool:
        return (
            self.channel is None
            or faults >= self.limits.max_faults
            or self.spent > self.limits.match_seconds
        )

    def end(self, result: MatchResult) -> str | None:
        if self.channel is not None:
            try:
                self.channel.send(
                    {
                        "type": "end",
                        "coins": list(result.coins),
                        "ranks": list(result.ranks),
                        "winners": list(result.winners),
                        "turns": result.turns,
                        "faults": list(result.faults),
                    },
                    time.perf_counter() + END_SECONDS,
                )
            except BotFault:
                self.reuse = False  # the match is over: nothing it does now counts
            if self.reuse:
                self.endpoint.keep(self.channel)
                self.channel = None
        self.close()
        trouble = self.endpoint.trouble  # e.g. it stopped its own zygote
        return None if trouble is None else f"{trouble} after the match"

    def close(self) -> None:
        """End the bot's processes (idempotent)."""
        channel, self.channel = self.channel, None
        if channel is not None:
            channel.close()
            self.endpoint.close()

    def _request(self, msg: dict[str, Any], seconds: float, counted: bool = True) -> dict[str, Any]:
        assert self.channel is not None
        reply, took = self.channel.request(msg, seconds)
        if counted:
            self.spent += took
            self.times.append(took)
        return reply

    def _lose(self, fault: BotFault) -> str:
        """The process is lost with this fault: end it, and say how it ended."""
        channel, self.channel = self.channel, None
        if channel is not None:
            channel.close()
        # After a crash its exit status may be a moment behind its closed output.
        ended = self.endpoint.close(settle=EXIT_SECONDS if fault.kind == CRASH else 0.0)
        if fault.kind == CRASH and ended:
            fault = BotFault(CRASH, f"the bot process {ended}")
        return str(fault)


def _text(value: Any) -> str:
    return (value if isinstance(value, str) else repr(value))[:200]
