"""A submission's validation: the conformance check of ``check-bot``,
played in the ladder's isolation (the sandbox by default). What it says
when a bot fails is the bot's text: the command line escapes it."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.entry import BotEntry
from ..core.errors import BohnarenaError
from ..core.game import get_game
from ..external.endpoint import close_sandboxes
from ..league.file import League
from ..run.provenance import preflight, stderr_tail
from ..tools.conformance import Report, check_bot


@dataclass
class Verdict:
    reason: str = ""  # empty: it passed
    stderr: list[str] = field(default_factory=list)  # the end of the bot's stderr


def validate(
    league: League, entry: BotEntry, progress: Callable[[str], None] | None = None
) -> Verdict:
    """``entry`` started (a bot that does not load says why) and checked
    for conformance under ``league``'s limits, on the ladder's own game,
    edition, player count and rules (every seat, each match twice: what a
    season plays, and whether it plays it the same way); ``progress`` is
    called before each seat's matches."""
    game = get_game(league.game)
    config = (league.edition, league.players, league.rules)
    tail: list[str] = []
    try:
        try:
            preflight(game, entry, game.rules(*config), league.limits, tail)
        except BohnarenaError as e:
            return Verdict(str(e), tail)
        with tempfile.TemporaryDirectory(prefix="bohnarena-ladder-check-") as tmp:
            log = Path(tmp) / "bot.log"
            report = check_bot(
                game, entry, league.limits, log=log, configs=[config], progress=progress
            )
            if report.passed:
                return Verdict()
            return Verdict(f"it fails the conformance check: {summary(report)}", stderr_tail(log))
    finally:
        close_sandboxes()


def summary(report: Report) -> str:
    """Why a bot failed its check, in one line: its faults and the first
    of them, or the first match it played differently the second time."""
    why = []
    if report.faults:
        faults = ", ".join(f"{k} {n}" for k, n in sorted(report.faults.items()))
        why.append(f"faults {faults}, the first: {report.examples[0]}")
    if report.nondeterministic:
        n = len(report.nondeterministic)
        why.append(f"same seed, other moves in {n} matches, e.g. {report.nondeterministic[0]}")
    return "; ".join(why)
