"""A season's ratings: every match the ladder's season played, retired and
suspended versions' included (they are real games against the active ones),
rated in match-id order. A league file keeps its own rule (its table is the
matches among its current bots); a ladder's standings list its active
versions, each rated on everything it played, so retiring one entry moves
no other version's rating: only new matches do (docs/ladder.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..rating.skill import RANK_COLUMNS, Ranking, Rater
from ..store.logbook import ranked
from ..store.reading import RunReader


def season_ranking(results: Path, bots: Sequence[str]) -> Ranking:
    """Every one of ``bots`` (every version ever submitted) that played a
    match of ``results`` (the ladder's results directory), rated on all of
    them. Read after a run, which audited every row it held before it
    played and wrote the rest: each part is checked against the manifest
    here, not audited twice."""
    rater = Rater(bots)
    for row in ranked(RunReader(results).iter_matches(RANK_COLUMNS)):
        rater.add(row)
    ranking = rater.ranking()
    ranking.standings = [s for s in ranking.standings if s.matches]
    return ranking
