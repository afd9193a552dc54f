"""A submission's validation: the conformance check of ``check-bot``,
played in the ladder's isolation (the sandbox by default). What it says
when a bot fails is the bot's text: the command line escapes it."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import BohnarenaError
from ..core.game import get_game
from ..league.file import BotEntry, League
from ..run.provenance import preflight, stderr_tail
from ..sandbox.endpoint import close_sandboxes
from ..tools.conformance import check_bot


@dataclass
class Verdict:
    reason: str = ""  # empty: it passed
    stderr: list[str] = field(default_factory=list)  # the end of the bot's stderr


def validate(league: League, entry: BotEntry) -> Verdict:
    """``entry`` started (a bot that does not load says why) and checked
    for conformance under ``league``'s limits."""
    game = get_game(league.game)
    edition, players, options = game.conformance_configs()[0]
    tail: list[str] = []
    try:
        try:
            preflight(game, entry, game.rules(edition, players, options), league.limits, tail)
        except BohnarenaError as e:
            return Verdict(str(e), tail)
        with tempfile.TemporaryDirectory(prefix="bohnarena-ladder-check-") as tmp:
            log = Path(tmp) / "bot.log"
            report = check_bot(game, entry, league.limits, log=log)
            if report.passed:
                return Verdict()
            lines = report.lines()
            why = "; ".join(line.strip() for line in lines[1:-1] if "decision time" not in line)
            return Verdict(f"it fails the conformance check: {why}", stderr_tail(log))
    finally:
        close_sandboxes()
