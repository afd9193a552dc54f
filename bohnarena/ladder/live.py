"""What a ladder's run in progress has played, for its site: ``live.json``
in the ladder's directory, replaced whole as the run rates its matches and
removed when the run ends. Public information only: counts, when the run
started, and the standings the run computes as it plays (the season's
league: matches of earlier runs included), never a seed or a schedule."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ..rating.skill import BotStanding
from ..store.parts import StorageError, write_text

LIVE = "live.json"


@dataclass(frozen=True)
class Live:
    played: int  # the league's matches rated so far (in match-id order)
    planned: int  # the league's matches, once this run ends
    started: float  # unix time
    standings: list[tuple[str, float, float]]  # (bot, mu, sigma), best first


class Writer:
    """The live file of one run at ``ladder``: :meth:`update` is the run's
    standings watcher (run.standings.Watch: told at most once a second);
    :meth:`close` removes it."""

    def __init__(self, ladder: Path) -> None:
        self.path = ladder / LIVE
        self.started = time.time()

    def update(self, played: int, planned: int, standings: Sequence[BotStanding]) -> None:
        rows = [(s.bot, s.mu, s.sigma) for s in standings]
        live = {**asdict(Live(played, planned, self.started, rows)), "pid": os.getpid()}
        try:
            write_text(self.path, json.dumps(live) + "\n")
        except StorageError:  # (a full disk: the run's own writes say so; the site waits)
            pass

    def close(self) -> None:
        self.path.unlink(missing_ok=True)


def read(ladder: Path) -> Live | None:
    """The run in progress at ``ladder``, or None: none runs (a file left
    by a run that was killed names a process that is gone)."""
    try:
        data = json.loads((ladder / LIVE).read_text("utf-8"))
        pid = data["pid"]
        live = Live(
            int(data["played"]),
            int(data["planned"]),
            float(data["started"]),
            [(str(b), float(m), float(s)) for b, m, s in data["standings"]],
        )
    except (OSError, ValueError, KeyError, TypeError):  # none, or one being replaced
        return None
    return live if _alive(pid) else None


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: it lives
        return True
    return True
