"""A results directory's damage repaired before a resume: parts whose files
are missing or do not read go (their matches are played again), side files
beside a merged matches file trimmed, records of a match without a row
dropped (bohnarena/store/directory.py's ``RunDir.drop_damaged``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import manifest
from .manifest import MERGED, Entry, Manifest, describe
from .parts import PENDING, ids_of, storage_error, write_part

if TYPE_CHECKING:
    from .directory import RunDir


def drop_damaged(store: RunDir, moves: bool) -> list[str]:
    """Before a resume: parts whose files are missing or do not read (a
    truncated or garbage file) are removed, so their matches are played
    again: a part's files together; a matches file with the side (moves
    and timing) files a compaction left beside it; side files left beside a merged
    matches file with the rows of its matches, which the merged file is
    written again without. Records of a match without a row leave
    their moves file (:func:`_drop_moves_without_rows`). Returns what
    went."""
    m = store._manifest()
    damaged = {e.name: why for e in m.live.values() if (why := _damage(store, e))}
    if not damaged:
        _drop_moves_without_rows(store, m)
        return []
    gone = {n for n in damaged if m.live[n].matches is not None}
    owners = {e.name: m.owner(e) for e in m.live.values() if e.matches is None}
    # a moves file left beside a matches file that goes, goes with it
    gone |= {n for n, o in owners.items() if o is None or o.name in gone}
    trim: dict[str, set[int]] = {}
    for name in damaged.keys() - gone:  # a moves file left beside a merged matches file
        owner = owners[name]
        assert owner is not None
        trim.setdefault(owner.name, set()).update(_logged_only_in(store, m, name, damaged))
    live = {n: e for n, e in m.live.items() if n not in gone and n not in damaged}
    for name, ids in trim.items():
        entry = _without(store, m.live[name], ids)
        if entry is None:  # no row left: its moves files hold none of its matches
            gone.add(name)
            gone |= {n for n, o in owners.items() if o is not None and o.name == name}
            live = {n: e for n, e in live.items() if n not in gone}
        else:
            live[name] = entry
    for name in gone | damaged.keys():  # the files first: a file in place always has its line
        entry = m.live[name]
        for table in store.TABLES:
            if entry.half(table) is not None:
                for file in {entry.name, PENDING + entry.name, entry.at}:
                    if file:
                        (store.table_dir(table) / file).unlink(missing_ok=True)
    store._rewrite(manifest.rewritten(m, live.values()))
    store.clean()  # a rewritten matches file into place
    new = store._manifest()
    assert new is not None
    _drop_moves_without_rows(store, new)
    return [
        f"{n} ({damaged.get(n, 'its matches went with a damaged file')})"
        for n in sorted(gone | damaged.keys())
    ]


def _drop_moves_without_rows(store: RunDir, m: Manifest) -> None:
    """Records (and think times) of a match without a row (its row was
    lost) leave the moves and timing files that hold them, written again
    beside them (their line says where): played again, the match is
    logged once. Only a file whose range holds a match without a row is
    read (an errored match has none either, and no records)."""
    done: set[int] = set()
    for e in m.live.values():
        where = store._where("matches", e) if e.matches is not None else None
        if where is not None:
            done |= ids_of(where)
    live = dict(m.live)
    for e in m.live.values():
        first, last = e.span
        if all(i in done for i in range(first, last + 1)):
            continue
        for table in manifest.SIDES:
            where = store._where(table, e) if e.half(table) is not None else None
            if where is None:
                continue
            rows = pq.read_table(where)
            keep = pc.is_in(rows["match_id"], pa.array(sorted(done), pa.int64()))
            if pc.all(keep).as_py():
                continue
            path = store.table_dir(table) / (MERGED + e.name)
            try:
                write_part(path, rows.filter(keep))
                half = describe(path)
                was = live[e.name]
                live[e.name] = was.with_half(table, half)
            except OSError as err:
                path.unlink(missing_ok=True)
                raise storage_error(path, err) from None
            live[e.name] = replace(live[e.name], at=MERGED + e.name)
    if live != m.live:
        store._rewrite(manifest.rewritten(m, live.values()))
        store.clean()


def _logged_only_in(store: RunDir, m: Manifest, name: str, damaged: dict[str, str]) -> set[int]:
    """The ids of the merged matches file that holds the matches of the
    side files ``name`` (one of which does not read) that no other side
    file holds: those are the matches whose moves and times it held."""
    owner = m.owner(m.live[name])
    assert owner is not None and owner.matches is not None
    first, last = m.live[name].span
    where = store._where("matches", owner)
    ids = {i for i in ids_of(where) if first <= i <= last} if where else set()
    for other in m.live.values():
        if other.name == name or other.name in damaged:
            continue
        if other.span[0] <= last and first <= other.span[1]:
            for table in manifest.SIDES:
                path = store._where(table, other) if other.half(table) else None
                if path is not None:
                    ids -= ids_of(path)
    return ids


def _without(store: RunDir, entry: Entry, ids: set[int]) -> Entry | None:
    """``entry``'s matches file written again without the rows of
    ``ids``, beside it (its line says where), or None if no row is left."""
    where = store._where("matches", entry)
    assert where is not None
    rows = pq.read_table(where)
    rows = rows.filter(pc.invert(pc.is_in(rows["match_id"], pa.array(sorted(ids), pa.int64()))))
    if rows.num_rows == 0:
        return None
    path = store.matches_dir / (MERGED + entry.name)
    try:
        write_part(path, rows)
        half = describe(path)
    except OSError as e:
        path.unlink(missing_ok=True)
        raise storage_error(path, e) from None
    return replace(entry, matches=half, at=MERGED + entry.name)


def _damage(store: RunDir, entry: Entry) -> str | None:
    for table in store.TABLES:
        if entry.half(table) is None:
            continue
        where = store._where(table, entry)
        if where is None:
            return f"{table} missing"
        if not where.is_file():  # a FIFO or a device would block or never end
            return f"{table} not a regular file"
        try:
            pq.read_metadata(where)  # the footer: a cut or garbage file fails here
        except (pa.ArrowException, OSError) as e:
            return type(e).__name__
    return None
