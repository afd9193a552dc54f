"""A results directory read once for the ranking and the statistics: every
row audited against the league, rated in match-id order and collected into
arrays on the way (`rank`, `report`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..league.file import League, load_league
from ..store.audit import COLUMNS as AUDIT_COLUMNS
from ..store.audit import Auditor
from ..store.directory import RunDir
from ..store.parts import ResultsError, read_again
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
        return len(self.league.schedule(0))  # the count does not depend on the seed


def read_results(results_dir: str | Path, rate: bool = True) -> LeagueResults:
    """The directory's matches, audited; ``rate=False`` skips TrueSkill (the
    ranking is then empty: the report rates along its rating path instead)."""
    store = RunDir(results_dir)
    if not store.is_run():
        raise ResultsError(f"{results_dir} is not a bohnarena results directory")
    meta = store.meta()
    league = load_league(store.path / "league.toml")
    auditor = Auditor.for_run(league, meta)
    columns = list(dict.fromkeys([*RANK_COLUMNS, *AUDIT_COLUMNS, *STATS_COLUMNS]))

    def once() -> tuple[Ranking, Matches, bool]:
        listing = store.listing().require()  # every part as its run committed it
        collector = Collector(list(league.bots))
        rows = collector.watch(auditor.standings(store.iter_matches(columns, listing=listing)))
        if rate:
            return rank(rows, list(league.bots)), collector.matches(), listing.unchecked
        for _ in rows:
            pass
        return Ranking([]), collector.matches(), listing.unchecked

    ranking, matches, unchecked = read_again(once)
    return LeagueResults(store.path, league, meta, ranking, matches, unchecked)
