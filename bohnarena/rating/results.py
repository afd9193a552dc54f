"""A results directory read once for the ranking and the statistics: every
row audited against the league, rated in match-id order and collected into
arrays on the way (`rank`, `report`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..league.file import League
from ..store.audited import open_run
from ..store.parts import read_again
from .skill import RANK_COLUMNS, Ranking, rank
from .stats import COLUMNS as STATS_COLUMNS
from .stats import Collector, Matches


@dataclass
class LeagueResults:
    path: Path
    league: League
    meta: dict[str, Any]
    ranking: Ranking
    matches: Matches
    #: Written before manifests: its parts could not be checked for edits.
    unchecked: bool = False

    @property
    def total(self) -> int:
        """Matches in the whole league (more than were played when interrupted)."""
        return self.league.match_count


def read_results(results_dir: str | Path, rate: bool = True) -> LeagueResults:
    """The directory's matches, audited; ``rate=False`` skips TrueSkill (the
    ranking is then empty: the report rates along its rating path instead)."""
    run = open_run(results_dir)
    store, league, meta = run.store, run.league, run.meta
    columns = list(dict.fromkeys([*RANK_COLUMNS, *STATS_COLUMNS]))

    def once() -> tuple[Ranking, Matches, bool]:
        listing = store.listing().require()  # every part as its run committed it
        collector = Collector(list(league.bots))
        rows = collector.watch(run.matches(columns, listing))
        if rate:
            return rank(rows, list(league.bots)), collector.matches(), listing.unchecked
        for _ in rows:
            pass
        return Ranking([]), collector.matches(), listing.unchecked

    ranking, matches, unchecked = read_again(once)
    return LeagueResults(store.path, league, meta, ranking, matches, unchecked)
