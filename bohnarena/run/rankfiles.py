"""What a run leaves beside its parts: ``ranking.csv``, ``ranking.json``
and ``ranking.md`` (every row audited against the league), and
``errors.json``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..league.file import League
from ..rating.skill import RANK_COLUMNS, Ranking, rank
from ..store.audit import COLUMNS as AUDIT_COLUMNS
from ..store.audit import Auditor
from ..store.directory import RunDir
from ..store.parts import StorageError, write_text

if TYPE_CHECKING:  # (the summary's type only: dispatch imports this module)
    from .dispatch import RunSummary


def errors_json(summary: RunSummary) -> str:
    return json.dumps([{"match_id": i, "reason": r} for i, r in sorted(summary.errors)], indent=2)


def _try_write_errors(store: RunDir, summary: RunSummary) -> None:
    try:
        write_text(store.path / "errors.json", errors_json(summary))
    except StorageError:
        pass  # the disk that stopped the run may not take it either


def write_ranking(store: RunDir, league: League, ranking: Ranking | None = None) -> Ranking:
    """Write ``ranking``, or rank what the directory holds, every row audited
    against the league."""
    if ranking is None:
        auditor = Auditor.for_run(league, store.meta())
        ranking = rank(
            auditor.audited(store.iter_matches([*RANK_COLUMNS, *AUDIT_COLUMNS])), list(league.bots)
        )
    write_text(store.path / "ranking.csv", ranking.to_csv())
    write_text(store.path / "ranking.json", ranking.to_json())
    write_text(store.path / "ranking.md", ranking.to_markdown())
    return ranking
