"""The bot side of the JSON-lines protocol, for bots written in Python (any
game): it answers the engine's messages with a bot class's methods.

    python -m bohnarena.external.host WIRE SPEC [BOT_PATH]

(``WIRE``: the game's wire module, as ``bohnarena.bohnanza.wire``) runs
one bot on stdin/stdout (isolation "process"); inside the sandbox the
zygote (:mod:`.zygote`) calls :func:`serve` in a fresh child per match.
The protocol moves off fds 0 and 1 first, so that a bot's ``print`` goes to
its log, not into the protocol. An exception in the bot is answered as
``{"error": ...}`` (a fault) and the host serves on.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import IO, Any

from ..core.faults import RAISED
from ..core.game import ASKED, STATE, MatchResult
from ..core.plugins import load_bot
from ..core.wire import Wire, wire_of
from .channel import read_frame


class Host:
    def __init__(self, bot_class: type, wire: Wire) -> None:
        self.bot_class, self.wire = bot_class, wire
        self.bot: Any = None
        self.rules: Any = None
        self.history: list[tuple[Any, ...]] = []
        self.view: dict[str, Any] = {}
        self.notes: list[str] = []  # where the bot's BotBase.note puts a note

    def handle(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = msg.get("type")
        if kind == "start":
            self.rules = self.wire.rules_from_json(msg["rules"])
            self.bot = self.bot_class()
            try:
                object.__setattr__(self.bot, "_bohnarena_notes", self.notes)
            except Exception:  # e.g. a bot with __slots__: it cannot note
                pass
            self.history.clear()
            self.view = {"match_id": msg.get("match_id")}  # (in the start message only)
            self.bot.start(msg["seat"], self.rules, random.Random(msg["seed"]))
            reply: dict[str, Any] = {"decisions": sorted(self.bot.decisions(self.rules))}
            if getattr(self.bot, "wants_state", False) is True:
                reply[STATE] = True  # the engine sends the searchable state with each view
            return reply
        if kind == "decide":
            # Events come as tuples (framed) or as JSON objects.
            self.history.extend(
                e if isinstance(e, tuple) else tuple(e.values()) for e in msg["events"]
            )
            # A framed view holds only what changed since the last one.
            self.view.update(msg["view"])
            self.notes.clear()  # (one a failed decision left)
            answer = self._decide(msg["decision"], msg["args"])
            reply = {"answer": self.wire.answer_json(answer)}
            if self.notes:
                reply["note"] = self.notes.pop()
            then = msg.get("then")
            if then is not None and answer is None:
                # A pair (Referee.run): the first answer changed nothing,
                # so the second decision sees the same table, in a fresh view.
                self.notes.clear()
                try:
                    reply["then"] = self.wire.answer_json(
                        self._decide(then["decision"], then["args"])
                    )
                    if self.notes:
                        reply["then_note"] = self.notes.pop()
                except BaseException as e:  # the bot's bug: a fault of the second decision
                    reply["then_error"] = _raised(e)
            return reply
        if kind == "end":
            if self.bot is not None:
                self.bot.end(
                    MatchResult(
                        tuple(msg["coins"]),
                        tuple(msg["ranks"]),
                        tuple(msg["winners"]),
                        msg["turns"],
                        tuple(msg["faults"]),
                    )
                )
            return None
        return {"error": f"unknown message type {kind!r}"}

    def _decide(self, decision: str, args: Any) -> Any:
        view = self.wire.json_view({**self.view, ASKED: decision}, self.rules, self.history)
        return getattr(self.bot, decision)(view, *self.wire.args_from_json(decision, args))


def _raised(e: BaseException) -> str:
    return f"{RAISED} {type(e).__name__}: {e}"[:300]


_encode = json.JSONEncoder(separators=(",", ":")).encode


def serve(bot_class: type, wire: Wire, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer framed messages (see :func:`~.channel.encode_frame`) with JSON lines."""
    host = Host(bot_class, wire)
    while (msg := read_frame(stdin)) is not None:
        try:
            reply = host.handle(msg)
            line = None if reply is None else _encode(reply)
        except BaseException as e:  # the bot's bug (sys.exit too): a fault; the process serves on
            line = _encode({"error": _raised(e)})
        if line is not None:
            stdout.write(line.encode() + b"\n")
            stdout.flush()


def private_stdio(reader: int = 0, writer: int = 1) -> tuple[IO[bytes], IO[bytes]]:
    """The protocol's streams, moved off fds 0 and 1: a bot's reads of stdin
    see nothing and its prints land in its log (stderr)."""
    proto_in, proto_out = os.dup(reader), os.dup(writer)
    for fd in {reader, writer} - {0, 1, 2}:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_in, "rb"), os.fdopen(proto_out, "wb")


def main() -> None:
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python -m bohnarena.external.host WIRE SPEC [BOT_PATH]")
    if len(sys.argv) == 4:  # the bot's code: after the standard library and bohnarena
        sys.path.append(sys.argv[3])
    wire = wire_of(sys.argv[1])
    cls = load_bot(sys.argv[2], wire.BASE)
    serve(cls, wire, *private_stdio())


if __name__ == "__main__":
    main()
