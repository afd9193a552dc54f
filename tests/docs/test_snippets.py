"""The Python in the bot authors' docs runs as written (issue 44, part 7):
every block of docs/search.md and docs/writing-a-bot.md is executed in
order, a doc's blocks sharing one namespace as a reader's session would;
each bot a block defines (a block that is a lone method is a bot's
method) plays a whole match at a table of shipped bots without a fault."""

from __future__ import annotations

import random
import re
import textwrap
from pathlib import Path

import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.trader import TraderBot

DOCS = Path(__file__).parents[2] / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(doc: str) -> list[str]:
    return BLOCK.findall((DOCS / doc).read_text("utf-8"))


def plays_cleanly(bot_class: type[Bot]) -> None:
    for seed in (1, 2):
        bots = [bot_class(), PlannerBot(), TraderBot(), RandomBot()]
        result, _ = play_match(ruleset("classic", 4), seed, bots)
        assert result.faults[0] == 0, (bot_class, seed)


@pytest.mark.parametrize("doc", ["search.md", "writing-a-bot.md"])
def test_every_python_block_runs(doc: str) -> None:
    found = blocks(doc)
    assert len(found) >= 2  # a changed fence would otherwise pass vacuously
    space: dict[str, object] = {"rng": random.Random(0)}  # the stream a bot would have
    played = 0
    for code in found:
        if code.startswith("def "):  # a bot's method, shown alone
            code = "class Snippet(Bot):\n" + textwrap.indent(code, "    ")
            space.setdefault("Bot", Bot)
        before = dict(space)
        exec(compile(code, f"{doc} block", "exec"), space)
        for name, value in space.items():
            fresh = before.get(name) is not value
            if fresh and isinstance(value, type) and issubclass(value, Bot) and value is not Bot:
                plays_cleanly(value)
                played += 1
    assert played >= 1
