"""The rating curve a run kept (``ratings.parquet``): every bot's TrueSkill
after each match, in match-id order, so that ``rank`` and ``report`` on a
finished directory need not replay TrueSkill (about 0.4 ms a match, nearly
all of their cost). It is used only for the matches it was rated on: it
carries the manifest's hash of each matches file it was rated from, and
each must still be there, the same (a compaction, a merge, a dropped or
edited part since makes it stale); for the first matches of the
standings, exactly (same ids), of bots the league still has. Then the
matches after them, a grown league's or a resumed run's, are rated from its
last row on, and the rest are rated again.

It also carries a seal: a SHA-256 of its values, its bots and those hashes.
A file edited without it (two bots' columns swapped, its metadata kept) is
not used: the matches are rated again. One whose seal was forged too is
what ``replay --verify-all`` reports (it rates the matches again and
compares)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from ..store import layout
from .skill import Curve

NAME = layout.RATINGS
_KEY = b"bohnarena.curve"


def seal(
    bots: Sequence[str],
    parts: Mapping[str, str],
    match_ids: npt.NDArray[np.int64],
    mu: npt.NDArray[np.float64],
    sigma: npt.NDArray[np.float64],
) -> str:
    """The SHA-256 of a curve's values, bots and parts (in a fixed order)."""
    digest = hashlib.sha256(json.dumps([list(bots), sorted(parts.items())]).encode())
    digest.update(np.ascontiguousarray(match_ids, "<i8").tobytes())
    for values in (mu, sigma):
        digest.update(np.ascontiguousarray(values, "<f8").tobytes())
    return digest.hexdigest()


def write_curve(
    run: Path,
    bots: Sequence[str],
    match_ids: npt.NDArray[np.int64],
    curve: Curve,
    parts: Mapping[str, str] | None,
) -> None:
    """Keep ``curve`` (rated on ``match_ids``) beside the run's parts, rated
    from the matches files ``parts`` (name: the manifest's SHA-256; None: a
    directory without a manifest, never kept)."""
    if parts is None or len(match_ids) != len(curve.mu):
        return
    columns = {"match_id": pa.array(match_ids, pa.int64())}
    for i, bot in enumerate(bots):
        columns[f"mu:{bot}"] = pa.array(curve.mu[:, i])
        columns[f"sigma:{bot}"] = pa.array(curve.sigma[:, i])
    facts = {
        "bots": list(bots),
        "parts": dict(parts),
        "seal": seal(bots, parts, match_ids, curve.mu, curve.sigma),
    }
    table = pa.table(columns).replace_schema_metadata({_KEY: json.dumps(facts).encode()})
    part = run / (NAME + ".new")
    pq.write_table(table, part)
    part.replace(run / NAME)


def read_curve(run: Path, parts: Mapping[str, str] | None) -> Kept | None:
    """The kept curve, if every matches file it was rated from is one of
    ``parts`` (name: SHA-256, as the manifest lists them now) and its seal
    holds."""
    return kept_curve(run, parts)[0]


def kept_curve(run: Path, parts: Mapping[str, str] | None) -> tuple[Kept | None, str | None]:
    """:func:`read_curve`, and what is wrong with a curve that is not stale
    but edited since it was written (its seal broken; None: nothing)."""
    path = run / NAME
    if parts is None or not path.is_file():
        return None, None
    try:
        table = pq.ParquetFile(path).read()  # (read_table loads the datasets library: 40 MB)
        facts = json.loads((table.schema.metadata or {})[_KEY])
        rated_from = {str(k): str(v) for k, v in facts["parts"].items()}
        if any(parts.get(name) != sha for name, sha in rated_from.items()):
            return None, None
        bots = [str(b) for b in facts["bots"]]
        ids = np.array(table.column("match_id").to_pylist(), np.int64)
        n = len(ids)
        mu = np.column_stack([_floats(table, f"mu:{b}") for b in bots]).reshape(n, len(bots))
        sigma = np.column_stack([_floats(table, f"sigma:{b}") for b in bots])
        sigma = sigma.reshape(n, len(bots))
        if facts["seal"] != seal(bots, rated_from, ids, mu, sigma):
            return None, f"{path} is not as its run wrote it (its seal does not hold)"
    except (OSError, KeyError, ValueError, TypeError, AttributeError, pa.ArrowException):
        return None, None  # damaged or foreign: rated again
    return Kept(bots, ids, Curve(mu, sigma)), None


def _floats(table: pa.Table, name: str) -> npt.NDArray[np.float64]:
    # (Arrow's to_numpy imports pandas: 30 MB more for rank)
    return np.array(table.column(name).to_pylist(), np.float64)


class Kept:
    """A kept curve, its bots (its columns) and the match ids it was rated on."""

    def __init__(self, bots: list[str], match_ids: npt.NDArray[np.int64], curve: Curve) -> None:
        self.bots, self.match_ids, self.curve = bots, match_ids, curve

    def __len__(self) -> int:
        return len(self.match_ids)

    def for_bots(self, bots: Sequence[str], mu: float, sigma: float) -> Kept | None:
        """The curve with a column per bot of ``bots`` (in that order): a bot
        it does not know has played none of its matches, so it is at
        (``mu``, ``sigma``) throughout. None when it has a bot ``bots`` lack
        (a removed bot's matches left the standings: all are rated again)."""
        if not set(self.bots) <= set(bots) or not len(self):
            return None
        at = {b: i for i, b in enumerate(self.bots)}
        n = len(self)

        def column(of: npt.NDArray[np.float64], b: str, fresh: float) -> npt.NDArray[np.float64]:
            return of[:, at[b]] if b in at else np.full(n, fresh)

        return Kept(
            list(bots),
            self.match_ids,
            Curve(
                np.column_stack([column(self.curve.mu, b, mu) for b in bots]),
                np.column_stack([column(self.curve.sigma, b, sigma) for b in bots]),
            ),
        )

    def leads(self, match_ids: Sequence[int] | npt.NDArray[np.int64]) -> bool:
        """Whether its matches are exactly the first of ``match_ids``."""
        n = len(self)
        return len(match_ids) >= n and bool(np.array_equal(self.match_ids, match_ids[:n]))
