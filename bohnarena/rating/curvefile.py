"""The rating curve a run kept (``ratings.parquet``): every bot's TrueSkill
after each match, in match-id order, so that ``rank`` and ``report`` on a
finished directory need not replay TrueSkill (about 0.4 ms a match, nearly
all of their cost). It is used only for exactly the matches it was rated
on: the same bots, the same match ids, written at the manifest generation
the directory still has (any commit, compaction or edit since makes it
stale, and the matches are rated again)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from .skill import Curve

NAME = "ratings.parquet"
_KEY = b"bohnarena.curve"


def write_curve(
    run: Path,
    bots: Sequence[str],
    match_ids: npt.NDArray[np.int64],
    curve: Curve,
    generation: int | None,
) -> None:
    """Keep ``curve`` (rated on ``match_ids``) beside the run's parts, as at
    manifest ``generation`` (None: a directory without one, never kept)."""
    if generation is None or len(match_ids) != len(curve.mu):
        return
    columns = {"match_id": pa.array(match_ids, pa.int64())}
    for i, bot in enumerate(bots):
        columns[f"mu:{bot}"] = pa.array(curve.mu[:, i])
        columns[f"sigma:{bot}"] = pa.array(curve.sigma[:, i])
    table = pa.table(columns).replace_schema_metadata(
        {_KEY: json.dumps({"generation": generation, "bots": list(bots)}).encode()}
    )
    part = run / (NAME + ".new")
    pq.write_table(table, part)
    part.replace(run / NAME)


def read_curve(run: Path, bots: Sequence[str], generation: int | None) -> Kept | None:
    """The kept curve, if it was kept at ``generation`` for ``bots``."""
    path = run / NAME
    if generation is None or not path.is_file():
        return None
    try:
        table = pq.ParquetFile(path).read()  # (read_table loads the datasets library: 40 MB)
        facts = json.loads((table.schema.metadata or {})[_KEY])
        if facts != {"generation": generation, "bots": list(bots)}:
            return None
        ids = np.array(table.column("match_id").to_pylist(), np.int64)
        mu = np.column_stack([_floats(table, f"mu:{b}") for b in bots])
        sigma = np.column_stack([_floats(table, f"sigma:{b}") for b in bots])
    except (OSError, KeyError, ValueError, TypeError, pa.ArrowException):
        return None  # damaged or foreign: rated again
    return Kept(ids, Curve(mu.reshape(len(ids), len(bots)), sigma.reshape(len(ids), len(bots))))


def _floats(table: pa.Table, name: str) -> npt.NDArray[np.float64]:
    # (Arrow's to_numpy imports pandas: 30 MB more for rank)
    return np.array(table.column(name).to_pylist(), np.float64)


class Kept:
    """A kept curve and the match ids it was rated on."""

    def __init__(self, match_ids: npt.NDArray[np.int64], curve: Curve) -> None:
        self.match_ids, self.curve = match_ids, curve

    def fits(self, match_ids: npt.NDArray[np.int64]) -> bool:
        return bool(np.array_equal(self.match_ids, match_ids))
