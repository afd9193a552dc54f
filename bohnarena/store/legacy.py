"""Results directories written before manifests existed (bohnarena/store/manifest.py):
their live parts are inferred from the parts' names and match ids, as every
reader did then. A part inside a wider one whose matches the wider one
holds as well is a compaction's leftover, never read; a moves part whose
matches part is missing is a batch killed between its two commits. The next
run on such a directory removes both, then records its manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from .manifest import PART
from .parts import Part, ids_of, overlapping

if TYPE_CHECKING:
    from .directory import RunDir
    from .reading import RunReader


def _by_name(store: RunReader) -> list[Part]:
    """Every matches part on disk, its moves part beside it if there is one."""
    parts = [
        Part(p.name, p, m if (m := store.moves_dir / p.name).exists() else None)
        for p in store.matches_dir.iterdir()
        if PART.match(p.name)
    ]
    return sorted(parts, key=lambda p: p.span)


def _leftovers(group: list[Part]) -> list[Part]:
    """Parts of an overlapping group that a wider part of the group holds
    whole (a compaction stopped before it removed them)."""
    if len(group) == 1:
        return []
    ids = {p.name: ids_of(p.matches) for p in group}
    return [
        p
        for p in group
        if any(
            q is not p
            and ids[p.name] <= ids[q.name]
            and q.span[0] <= p.span[0]
            and p.span[1] <= q.span[1]
            for q in group
        )
    ]


def inferred_parts(store: RunReader) -> list[Part]:
    """The parts a reader reads: every match once, crash or not."""
    live = []
    for group in overlapping(_by_name(store)):
        gone = {p.name for p in _leftovers(group)}
        live += [p for p in group if p.name not in gone]
    return live


def clean_inferred(store: RunDir) -> None:
    for d in (store.matches_dir, store.moves_dir):
        for tmp in d.glob(".tmp-*"):
            tmp.unlink()
    done = {p.name for p in store.matches_dir.glob("part-*.parquet")}
    for p in store.moves_dir.glob("part-*.parquet"):
        if p.name not in done:  # killed between the two commits of a batch
            p.unlink()
    for group in overlapping(_by_name(store)):
        for part in _leftovers(group):
            (store.moves_dir / part.name).unlink(missing_ok=True)
            part.matches.unlink()


def drop_damaged_inferred(store: RunDir, moves: bool) -> list[str]:
    dropped = []
    # A run that never logged moves has none to lose.
    moves = moves and any(store.moves_dir.glob("part-*.parquet"))
    for part in inferred_parts(store):
        halves = [part.matches] + ([store.moves_dir / part.name] if moves else [])
        try:
            for half in halves:
                pq.read_metadata(half)  # the footer: a cut or garbage file fails here
        except (pa.ArrowException, OSError) as e:
            for half in halves:
                half.unlink(missing_ok=True)
            dropped.append(f"{part.name} ({type(e).__name__})")
    return dropped
