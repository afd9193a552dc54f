"""The bot side of the JSON-lines protocol, for bots written in Python:

    python -m bohnarena.bohnanza.host SPEC

loads the bot class named by SPEC and answers the engine's messages on
stdin/stdout. The bot sees a JsonView, which has the SeatView API.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from ..game import MatchResult
from ..plugins import load_bot
from .bot import Bot
from .wire import JsonView, answer_json, args_from_json, rules_from_json


def serve(bot_class: type[Bot], stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    bot: Bot | None = None
    rules = None
    history: list[tuple] = []
    reply: dict[str, Any]
    for line in stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "start":
            rules = rules_from_json(msg["rules"])
            bot = bot_class()
            history.clear()
            bot.start(msg["seat"], rules, random.Random(msg["seed"]))
            reply = {"decisions": sorted(bot.decisions(rules))}
        elif kind == "decide":
            assert bot is not None and rules is not None
            history.extend(tuple(e.values()) for e in msg["events"])
            view = JsonView(msg["view"], rules, tuple(history))
            decision = msg["decision"]
            answer = getattr(bot, decision)(view, *args_from_json(decision, msg["args"]))
            reply = {"answer": answer_json(answer)}
        elif kind == "end":
            if bot is not None:
                bot.end(MatchResult(tuple(msg["coins"]), tuple(msg["ranks"]), tuple(msg["winners"]),
                                    0, ()))
            continue
        else:
            reply = {"error": f"unknown message type {kind!r}"}
        stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        stdout.flush()


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bohnarena.bohnanza.host SPEC")
    serve(load_bot(sys.argv[1], Bot))


if __name__ == "__main__":
    main()
