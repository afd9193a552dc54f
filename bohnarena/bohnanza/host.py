"""The bot side of the JSON-lines protocol, for bots written in Python:

    python -m bohnarena.bohnanza.host SPEC

loads the bot class named by SPEC and answers the engine's messages on
stdin/stdout. The bot sees a JsonView, which has the SeatView API. An
exception in the bot is answered as ``{"error": ...}`` (a fault) and the
process serves on.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from ..game import MatchResult
from ..plugins import load_bot
from .bot import Bot
from .rules import RuleSet
from .wire import JsonView, answer_json, args_from_json, rules_from_json


class Host:
    def __init__(self, bot_class: type[Bot]) -> None:
        self.bot_class = bot_class
        self.bot: Bot | None = None
        self.rules: RuleSet | None = None
        self.history: list[tuple] = []

    def handle(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = msg.get("type")
        if kind == "start":
            self.rules = rules_from_json(msg["rules"])
            self.bot = self.bot_class()
            self.history.clear()
            self.bot.start(msg["seat"], self.rules, random.Random(msg["seed"]))
            return {"decisions": sorted(self.bot.decisions(self.rules))}
        if kind == "decide":
            assert self.bot is not None and self.rules is not None
            self.history.extend(tuple(e.values()) for e in msg["events"])
            view = JsonView(msg["view"], self.rules, tuple(self.history))
            decision = msg["decision"]
            answer = getattr(self.bot, decision)(view, *args_from_json(decision, msg["args"]))
            return {"answer": answer_json(answer)}
        if kind == "end":
            if self.bot is not None:
                self.bot.end(MatchResult(tuple(msg["coins"]), tuple(msg["ranks"]),
                                         tuple(msg["winners"]), 0, ()))
            return None
        return {"error": f"unknown message type {kind!r}"}


def serve(bot_class: type[Bot], stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    host = Host(bot_class)
    for line in stdin:
        try:
            reply = host.handle(json.loads(line))
        except Exception as e:  # the bot's bug: a fault, and the process serves on
            reply = {"error": f"raised {type(e).__name__}: {e}"[:300]}
        if reply is not None:
            stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
            stdout.flush()


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bohnarena.bohnanza.host SPEC")
    serve(load_bot(sys.argv[1], Bot))


if __name__ == "__main__":
    main()
