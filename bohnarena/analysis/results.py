"""A league's results rated once, for the ranking, the statistics and the
report: as a run's matches finish, or read from a results directory (every
row audited against the league), rated in match-id order and collected into
arrays on the way (`run`, `rank`, `report`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..league.file import League
from ..rating.curvefile import NAME, Kept, kept_curve, read_curve
from ..rating.skill import FRESH, RANK_COLUMNS, Curve, Ranking, Rater
from ..rating.stats import COLUMNS as STATS_COLUMNS
from ..rating.stats import Collector, Matches
from ..store.audit import COLUMNS as AUDIT_COLUMNS
from ..store.audited import open_run
from ..store.logbook import RankedRow
from ..store.parts import ResultsError, read_again
from .thinking import Timings


@dataclass
class LeagueResults:
    """A league's finished matches rated once: the ranking (standings and
    ratings), the rating curve and the matches as arrays. A run builds it as
    its matches finish; :func:`read_results` builds it from a directory."""

    path: Path
    league: League
    meta: dict[str, Any]
    ranking: Ranking
    matches: Matches
    curve: Curve
    #: The think times a run summed up as its matches finished (None: the
    #: report reads every timing file).
    timings: Timings | None = None

    @property
    def total(self) -> int:
        """Matches in the whole league (more than were played when interrupted)."""
        return self.league.match_count


class Results:
    """Rates and collects rows fed in match-id order (one pass for both);
    ``kept``: the rating curve of the first of them, kept by a run, so they
    are only counted here and rating goes on from its last row."""

    def __init__(self, bots: list[str], kept: Kept | None = None) -> None:
        if kept is not None:
            kept = kept.for_bots(bots, *FRESH)
        self.rater = Rater(bots, None if kept is None else kept.curve)
        self.collector = Collector(bots)
        self.kept = kept
        self.fits = True  # the rows so far are the kept curve's matches

    def add(self, row: Mapping[str, Any]) -> None:
        n = self.rater.count
        if self.kept is not None and n < len(self.kept):
            self.fits = self.fits and row["match_id"] == self.kept.match_ids[n]
        self.rater.add(cast(RankedRow, row))  # (read with the ranked columns and more)
        self.collector.add(row)

    @property
    def trusted(self) -> bool:
        """Whether the kept curve was of the first rows, all of them in."""
        return self.kept is None or (self.fits and self.rater.count >= len(self.kept))

    def of(self, path: Path, league: League, meta: dict[str, Any]) -> LeagueResults:
        ranking, curve = self.rater.ranking(), self.rater.curve()
        return LeagueResults(path, league, meta, ranking, self.collector.matches(), curve)


#: What :class:`Results` reads of each match.
COLUMNS = list(dict.fromkeys([*RANK_COLUMNS, *AUDIT_COLUMNS, *STATS_COLUMNS]))


def read_results(results_dir: str | Path) -> LeagueResults:
    """The directory's matches, audited, rated and collected in one pass
    (those the run that played them rated and kept the curve of are only
    counted)."""
    run = open_run(results_dir)
    store, league, meta = run.store, run.league, run.meta
    bots = list(league.bots)

    def once(trust: bool = True) -> LeagueResults:
        listing = store.listing().require()  # every part as its run committed it
        kept = read_curve(store.path, listing.hashes) if trust else None
        results = Results(bots, kept)
        for row in run.standings(COLUMNS, listing):
            results.add(row)
        if not results.trusted:
            return once(trust=False)  # not the matches it was rated on
        return results.of(store.path, league, meta)

    found: LeagueResults = read_again(once)
    return found


def curve_problem(results_dir: str | Path) -> str | None:
    """What is wrong with the rating curve a run kept (``replay
    --verify-all``): edited since it was written, or sealed again but not
    what rating its matches gives (rated again here, in id order); None:
    nothing, or none kept, or stale (rank rates again: nothing is wrong)."""
    run = open_run(results_dir)
    listing = run.store.listing()
    kept, problem = kept_curve(run.store.path, listing.hashes)
    if problem is not None or kept is None or listing.problems:
        return problem  # (the parts' problems are reported as such)
    bots = list(run.league.bots)
    kept = kept.for_bots(bots, *FRESH)
    fresh = Results(bots)
    try:
        for row in run.standings(COLUMNS, listing):
            fresh.add(row)
    except ResultsError:
        return None  # (a row that is not the league's is reported as such)
    ids, curve, n = fresh.collector.matches().match_id, fresh.rater.curve(), len(kept or ())
    if kept is None or not kept.leads(ids):
        return None  # not of these matches: never used
    same = np.array_equal(curve.mu[:n], kept.curve.mu) and np.array_equal(
        curve.sigma[:n], kept.curve.sigma
    )
    return None if same else f"{run.store.path / NAME} is not the rating of its matches"
