"""The names of the ids the logs hold (a game's varieties), kept beside
them as ``names.parquet`` for queries to join (docs/logs.md, "names.parquet").

Derived data: the game gives the names (its ``Capabilities.log_names``),
so the file is not a part, the manifest does not list it, and a run or a
merge writes it again whenever it is missing or differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import layout
from .parts import _atomic_write

NAME = layout.NAMES
SCHEMA = pa.schema([("what", pa.string()), ("id", pa.int32()), ("name", pa.string())])


def names_table(names: Mapping[str, Sequence[str]]) -> pa.Table:
    """One row per named id: ``(what, id, name)``, in ``what`` then id order."""
    rows = [(what, i, name) for what in sorted(names) for i, name in enumerate(names[what])]
    return pa.Table.from_pylist(
        [dict(zip(SCHEMA.names, row, strict=True)) for row in rows], schema=SCHEMA
    )


def read_names(directory: Path) -> dict[str, tuple[str, ...]]:
    """The names kept in ``directory`` (empty: no names file)."""
    path = directory / NAME
    if not path.is_file():
        return {}
    out: dict[str, list[str]] = {}
    for row in pq.read_table(path, schema=SCHEMA).to_pylist():
        out.setdefault(row["what"], []).append(row["name"])
    return {what: tuple(names) for what, names in out.items()}


def write_names(directory: Path, names: Mapping[str, Sequence[str]]) -> bool:
    """Keep ``names`` in ``directory`` when the file is missing or differs
    (atomically: a reader sees the old file or the new); True if written.
    No names (a game whose logs hold no named ids): no file."""
    if not names:
        return False
    table = names_table(names)
    path = directory / NAME
    try:  # (only a regular file is read, never a FIFO or a device)
        if path.is_file() and pq.read_table(path).equals(table):
            return False
    except (OSError, pa.ArrowException):  # not a names file: written afresh
        pass
    _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return True
