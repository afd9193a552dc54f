"""``ladder run``: the active versions as a league that grows. Its league
file (``league.toml``) lists them, in submission order, as bots named
``NAME.hash8``; each run writes it afresh and runs it on the ladder's
results, so a new version adds its matches only and a retired one leaves
the standings with every match it played kept (docs/leagues.md, "Growing
a league"). After the run each version's rating is kept in the catalog,
and a version that faulted in more than ``suspend_fault_share`` of its
matches of this run is suspended: a bot that turns bad after its check
spoils one run, not a season."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import tomli_w

from ..core.errors import BohnarenaError
from ..core.services import SecretError
from ..run.dispatch import RunSummary, run_league
from ..run.execution import Backend
from ..run.inorder import Row
from ..store import layout
from ..store.directory import RunDir
from ..store.reading import RunReader
from . import seasons
from .catalog import Catalog
from .live import Writer
from .ratings import season_ranking
from .served import KIND as URL
from .settings import LEAGUE, RESULTS, LadderError, Settings
from .submission import bot_table, recover


def league_text(settings: Settings, bots: Mapping[str, Mapping[str, Any]]) -> str:
    """The ladder's league file: its settings and ``bots``, written by a TOML
    writer (a name json would escape as surrogates, which TOML forbids, reads
    back as itself; submission.py refuses those no writer can write)."""
    head = "# Written by bohnarena ladder run from ladder.toml and the catalog: edit those.\n"
    return head + tomli_w.dumps({**settings.data, "bots": {n: dict(t) for n, t in bots.items()}})


def write_league(ladder: Path, settings: Settings, catalog: Catalog) -> Path:
    """The league of the active versions, written whole (a temporary file
    renamed). A served version whose token is kept where the organiser
    keeps none (submitted before that rule) is suspended, not played."""
    for v in catalog.active():
        if v.kind == URL:
            try:
                settings.league({v.bot: bot_table(ladder, v, settings)}, ladder)
            except SecretError as e:
                catalog.suspend(v.id, f"{e}; resubmit it with its token by a key")
    active = catalog.active()
    if not active:
        raise LadderError(f"{ladder} has no active version to play: bohnarena ladder submit")
    bots = {v.bot: bot_table(ladder, v, settings) for v in active}
    settings.league(bots, ladder)  # checked before it is written
    path = ladder / LEAGUE
    aside = path.with_name(f".{LEAGUE}.{os.getpid()}")
    aside.write_text(league_text(settings, bots), "utf-8")
    os.replace(aside, path)
    return path


def run_ladder(
    ladder: Path,
    settings: Settings,
    workers: int | None = None,
    progress: bool | None = None,
    backend: Backend | None = None,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> RunSummary:
    """Every pending match of the active versions played (a resumed run
    plays what a killed one left), then each version's rating kept.
    ``note`` gets the season's seed commitment before any match."""
    keeper = RunDir(ladder)
    keeper.lock()  # one ladder run at a time; a submit takes no such lock
    try:
        if seasons.ended(ladder):
            raise LadderError(
                f"{ladder}: the season has ended (its seed is revealed): "
                f"bohnarena ladder season new {ladder}"
            )
        catalog = Catalog(ladder)
        live = Writer(ladder)  # (removed once the run's ratings are kept)
        try:
            recover(ladder, catalog)
            started = time.time()
            league = write_league(ladder, settings, catalog)
            conduct = Conduct(_played(ladder / RESULTS))
            summary = run_league(
                league,
                ladder / RESULTS,
                workers,
                progress=progress,
                backend=backend,
                warn=warn,
                home=ladder.resolve(),  # moved, its bots keep their hashes
                secrets_dir=settings.secrets,
                follow=conduct.follow,
                watch=live.update,
                note=note,
                drawn=seasons.drawn(ladder),
            )
            seasons.started(ladder)
            if summary.ranking is not None and not summary.interrupted:
                # the season's ratings, not the league's: every match it played
                versions = {v.bot: v.id for v in catalog.versions()}
                season = season_ranking(ladder / RESULTS, list(versions))
                # (a retired version's rating stands still: its last row says it)
                rated = {v.bot for v in catalog.versions(states=("active", "suspended"))}
                kept = [(versions[s.bot], s) for s in season.standings if s.bot in rated]
                catalog.record_run(started, summary.played, summary.total, kept)
                for bot, why in conduct.suspended(settings.suspend_fault_share).items():
                    if bot in versions:
                        catalog.suspend(versions[bot], why)
                active = {v.bot for v in catalog.active()}  # the standings: who plays on
                season.standings = [s for s in season.standings if s.bot in active]
                summary = replace(summary, ranking=season)
            return summary
        finally:
            live.close()
            catalog.close()
    finally:
        keeper.close()


def _played(results: Path) -> set[int] | None:
    """The ids of the matches the results hold before a run (None: they do
    not read now; the run repairs what it can, and judges no one)."""
    if not (results / layout.RUN_JSON).is_file():
        return set()
    try:
        return RunReader(results).done_ids()
    except (BohnarenaError, OSError):
        return None


class Conduct:
    """Each bot's matches in this run (those not in ``before``), and those
    in which it faulted."""

    def __init__(self, before: set[int] | None) -> None:
        self.before = before
        self.matches: dict[str, int] = {}
        self.faulted: dict[str, int] = {}

    def follow(self, row: Row) -> None:
        if self.before is None or row["match_id"] in self.before:
            return
        for bot, faults in zip(row["seats"], row["faults"], strict=True):
            self.matches[bot] = self.matches.get(bot, 0) + 1
            self.faulted[bot] = self.faulted.get(bot, 0) + (faults > 0)

    def suspended(self, share: float) -> dict[str, str]:
        """The bots that faulted in more than ``share`` of their matches of
        this run, each with the reason it is suspended."""
        return {
            bot: f"faulted in {self.faulted[bot]} of its {n} matches in the run of "
            f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} (over {share:.0%})"
            for bot, n in self.matches.items()
            if self.faulted[bot] > share * n
        }
