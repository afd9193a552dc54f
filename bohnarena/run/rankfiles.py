"""What a run leaves beside its parts: ``ranking.csv``, ``ranking.json``
and ``ranking.md`` (every row audited against the league), the rating curve
(and what a later run may go on from) and ``errors.json``; shard
directories merged into one ranked run (with the game's names file,
``names.parquet``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from ..analysis.results import LeagueResults
from ..core.game import get_game, log_names
from ..league.file import League
from ..league.schedule import Schedule
from ..rating.curvefile import Kept, read_curve, write_curve
from ..rating.skill import RANK_COLUMNS, Ranking, rank
from ..store import layout
from ..store.audited import AuditedRun
from ..store.directory import RunDir
from ..store.logbook import ranked
from ..store.names import write_names
from ..store.parts import StorageError, write_text

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # (the summary's type only: dispatch imports this module)
    from .dispatch import RunSummary


def errors_json(summary: RunSummary) -> str:
    return json.dumps([{"match_id": i, "reason": r} for i, r in sorted(summary.errors)], indent=2)


def _try_write_errors(store: RunDir, summary: RunSummary) -> None:
    try:
        write_text(store.path / layout.ERRORS, errors_json(summary))
    except StorageError:
        pass  # the disk that stopped the run may not take it either


def write_ranking(store: RunDir, league: League, ranking: Ranking | None = None) -> Ranking:
    """Write ``ranking``, or rank what the directory holds, every row audited
    against the league."""
    if ranking is None:
        ranking = rank(
            ranked(AuditedRun.of(store, league).standings(RANK_COLUMNS)), list(league.bots)
        )
    write_text(store.path / layout.RANKING_CSV, ranking.to_csv())
    write_text(store.path / layout.RANKING_JSON, ranking.to_json())
    write_text(store.path / layout.RANKING_MD, ranking.to_markdown())
    return ranking


def keep_curve(store: RunDir, results: LeagueResults) -> None:
    """Keep the run's rating curve for ``rank`` and ``report`` (they rate
    again without it): with the hashes of the matches files it was rated from."""
    try:
        parts = store.listing("off").hashes
        m = results.matches
        write_curve(store.path, m.bots, m.match_id, results.curve, parts)
    except (OSError, StorageError, pa.ArrowException):  # a convenience: nothing is lost without it
        log.warning("the rating curve could not be kept; rank will rate the matches again")


def rated_before(
    store: RunDir, plan: Schedule, done: Collection[int], ids: Collection[int]
) -> Kept | None:
    """The curve a run kept, when its matches are the first the standings
    will have: the first of those done, and every match still to play after
    them (a grown league's new ids come after the old ones)."""
    kept = read_curve(store.path, store.listing("off").hashes)
    if kept is None or not len(kept):
        return None
    standing = sorted(i for i in done if plan.stands(*plan.locate(i)))
    last = int(kept.match_ids[-1])
    before = (i for i in ids if i <= last and i not in done)
    if not kept.leads(standing) or any(plan.stands(*plan.locate(i)) for i in before):
        return None
    return kept


def merge_and_rank(out: str, dirs: list[str | Path]) -> tuple[Ranking, set[int], int]:
    """Merge shard directories of one league into ``out``, compact it when
    every match of its standings is there, and write its ranking: the
    ranking, the match ids of the standings done and their count."""
    from ..league.file import load_league
    from ..store.merge import merge as merge_runs

    target = merge_runs(out, dirs)
    league = load_league(target.path / layout.LEAGUE, frozen=True)
    game = get_game(league.game)
    rules = game.rules(league.edition, league.players, league.rules)
    write_names(target.path, log_names(game, rules))
    plan = AuditedRun.of(target, league).auditor.schedule
    # (a removed bot's matches no shard played are not the league's to play)
    standing = plan.standing_ids()
    done = target.done_ids() & standing
    if len(done) == len(standing):
        for span in plan.spans:  # each generation's parts into one
            if span:
                target.compact(span.start, span.stop - 1)
    return write_ranking(target, league), done, len(standing)
