"""The ladder's player (``ladder play``, and ``ladder serve``'s child
process): a loop that checks the versions the site staged (submission.
validate: the same sandboxed check as ``ladder submit``) and runs the
ladder when its active versions are not those its last run played, when
the settings' ``run_every_minutes`` has passed, or when a run of its own
was cut short (a kill: the run resumes). A submission taken during a run
is checked after it and joins the next one.

Nothing it does is lost when it is killed: a version it was checking is
pending again (submission.recover) and checked anew, and the run it was
playing resumes from the matches on disk. A run that fails is logged and
tried again when the active versions change, the period passes, or after
RETRY_SECONDS."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable
from pathlib import Path

from ..core.entry import BotEntry
from ..core.errors import BohnarenaError
from ..core.stopping import exit_code
from ..league.file import League
from ..run.dispatch import RunSummary
from ..run.execution import Backend
from .catalog import Catalog, Version
from .check import Verdict
from .check import validate as check_bot
from .season import run_ladder
from .settings import LEAGUE, Settings
from .submission import DEFERRED, Rejected, recover, validate
from .unpack import SubmissionError

#: Written before a run the player starts, removed when it ends whole: one
#: left by a killed (or stopped) player is a run to resume.
DUE = ".run-due"
#: A failed run is tried again after this long, if nothing else changed.
RETRY_SECONDS = 600.0
#: How often the catalog is looked at between runs.
POLL_SECONDS = 2.0


class Player:
    """``say`` gets each line of the player's log (no token, no bot text
    but a rejected version's escaped reason)."""

    def __init__(
        self,
        ladder: Path,
        settings: Callable[[], Settings],
        say: Callable[[str], None],
        workers: int | None = None,
        backend: Callable[[], Backend | None] = lambda: None,
        check: Callable[[League, BotEntry], Verdict] = check_bot,
    ) -> None:
        self.ladder, self.settings, self.say = ladder, settings, say
        self.workers, self.backend, self.check = workers, backend, check
        self.failed: tuple[tuple[int, ...], float] | None = None  # (its active ids, when)

    def forever(self, poll: float = POLL_SECONDS) -> int:
        """Check and play until stopped (SIGTERM, SIGINT: a KeyboardInterrupt
        raised where it waits, or a run that ends interrupted): its exit code."""
        try:
            while True:
                summary = self.step()
                if summary is not None and summary.interrupted:
                    return summary.exit_code
                time.sleep(poll)
        except KeyboardInterrupt as stop:  # (a check cut short is pending again: submission.py)
            return exit_code(stop)

    def step(self) -> RunSummary | None:
        """The pending versions checked, then a run if one is due (its summary)."""
        try:
            settings = self.settings()
        except BohnarenaError as e:  # ladder.toml edited badly: said, and waited out
            self.say(f"cannot read the settings: {e}")
            return None
        catalog = Catalog(self.ladder)
        try:
            recover(self.ladder, catalog)  # (a check a killed player left: pending again)
            for version in catalog.versions(states=("pending",)):
                if version.reason == DEFERRED:
                    self._check(settings, catalog, version)
            why = self._due(settings, catalog)
        finally:
            catalog.close()
        return None if why is None else self._run(settings, why)

    def _check(self, settings: Settings, catalog: Catalog, version: Version) -> None:
        try:
            active, old = validate(self.ladder, settings, catalog, version, self.check)
        except Rejected as e:
            self.say(str(e))
        except SubmissionError as e:  # another player took it
            self.say(f"{e}: skipped")
        except Exception as e:  # (rejected as interrupted: its author submits it again)
            self.say(f"{version.bot} could not be checked: {type(e).__name__}: {e}")
        else:
            self.say(f"{active.bot} is active" + (f"; {old.bot} is retired" if old else ""))

    def _due(self, settings: Settings, catalog: Catalog) -> str | None:
        """Why a run is due now, or None."""
        active = catalog.active()
        if len(active) < 2:  # (one bot alone at a table tells nothing)
            return None
        ids = tuple(v.id for v in active)
        now = time.time()
        last = catalog.last_run()
        why = None
        if (self.ladder / DUE).exists():
            why = "the last run did not end"
        elif {v.bot for v in active} != played(self.ladder):
            why = "the active versions changed"
        elif settings.run_every and (last is None or now - last >= settings.run_every):
            why = f"{settings.run_every / 60:g} minutes passed"
        if why is None or self.failed is None:
            return why
        failed_ids, when = self.failed
        wait = min(RETRY_SECONDS, settings.run_every or RETRY_SECONDS)
        return why if ids != failed_ids or now - when >= wait else None

    def _run(self, settings: Settings, why: str) -> RunSummary | None:
        (self.ladder / DUE).write_text(why + "\n", "utf-8")
        self.say(f"run: {why}")
        catalog = Catalog(self.ladder)
        try:
            ids = tuple(v.id for v in catalog.active())
        finally:
            catalog.close()
        try:
            summary = run_ladder(
                self.ladder, settings, self.workers, False, self.backend(), self.warn
            )
        except Exception as e:  # (a stop is no Exception: it goes on up)
            self.failed = (ids, time.time())
            what = "" if isinstance(e, BohnarenaError) else f"{type(e).__name__}: "
            self.say(f"the run failed: {what}{e}")
            return None
        self.failed = None
        if summary.interrupted:
            self.say(f"the run stopped after {summary.played} matches: it resumes next time")
        else:
            (self.ladder / DUE).unlink(missing_ok=True)
            self.say(f"the run ended: {summary.played} matches played of {summary.total}")
        return summary

    def warn(self, text: str) -> None:
        self.say(f"warning: {text}")


def played(ladder: Path) -> set[str]:
    """The versions the last run played (the bots of its league file)."""
    try:
        with open(ladder / LEAGUE, "rb") as f:
            return set(tomllib.load(f).get("bots", {}))
    except (OSError, tomllib.TOMLDecodeError):
        return set()
