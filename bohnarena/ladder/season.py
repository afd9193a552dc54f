"""``ladder run``: the active versions as a league that grows. Its league
file (``league.toml``) lists them, in submission order, as bots named
``NAME.hash8``; each run writes it afresh and runs it on the ladder's
results, so a new version adds its matches only and a retired one leaves
the standings with every match it played kept (docs/leagues.md, "Growing
a league"). After the run each version's rating is kept in the catalog."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from ..run.dispatch import RunSummary, run_league
from ..run.execution import Backend
from ..store.directory import RunDir
from .catalog import Catalog
from .settings import LEAGUE, RESULTS, LadderError, Settings
from .submission import bot_table, recover


def league_text(settings: Settings, bots: Mapping[str, Mapping[str, Any]]) -> str:
    """The ladder's league file: its settings and ``bots``, written by a TOML
    writer (a name json would escape as surrogates, which TOML forbids, reads
    back as itself; submission.py refuses those no writer can write)."""
    head = "# Written by bohnarena ladder run from ladder.toml and the catalog: edit those.\n"
    return head + tomli_w.dumps({**settings.data, "bots": {n: dict(t) for n, t in bots.items()}})


def write_league(ladder: Path, settings: Settings, catalog: Catalog) -> Path:
    """The league of the active versions, written whole (a temporary file renamed)."""
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
) -> RunSummary:
    """Every pending match of the active versions played (a resumed run
    plays what a killed one left), then each version's rating kept."""
    keeper = RunDir(ladder)
    keeper.lock()  # one ladder run at a time; a submit takes no such lock
    try:
        catalog = Catalog(ladder)
        try:
            recover(ladder, catalog)
            started = time.time()
            league = write_league(ladder, settings, catalog)
            summary = run_league(
                league,
                ladder / RESULTS,
                workers,
                progress=progress,
                backend=backend,
                warn=warn,
                home=ladder.resolve(),  # moved, its bots keep their hashes
            )
            if summary.ranking is not None and not summary.interrupted:
                versions = {v.bot: v.id for v in catalog.versions()}
                kept = [
                    (versions[s.bot], s) for s in summary.ranking.standings if s.bot in versions
                ]
                catalog.record_run(started, summary.played, summary.total, kept)
            return summary
        finally:
            catalog.close()
    finally:
        keeper.close()
