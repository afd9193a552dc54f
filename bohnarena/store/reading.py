"""Reading a results directory: the manifest's parts, each checked against
its line (a part edited, missing, or not listed is refused by name), and
the matches in id order while a run may be committing beside the reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from . import layout, manifest
from .logbook import MATCHES_SCHEMA, READS_FORMATS
from .manifest import PART, Entry, Manifest, ManifestError, difference
from .parts import (
    PENDING,
    Check,
    Listing,
    Loose,
    Part,
    PartsError,
    ResultsChanged,
    ResultsError,
    check_schema,
    ids_of,
    open_part,
    overlapping,
    read_table,
    unreadable,
)
from .secret import with_secret


class RunReader:
    """A results directory as it is read: its manifest, the listing of
    its parts (each checked against its line), and its matches in id order.
    :class:`~.directory.RunDir` adds what a run writes."""

    TABLES = manifest.TABLES

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.matches_dir = self.path / layout.MATCHES
        self.moves_dir = self.path / layout.MOVES
        self.timing_dir = self.path / layout.TIMING
        self.manifest_path = self.path / manifest.NAME
        self._lock: IO[str] | None = None

    def table_dir(self, table: str) -> Path:
        return self.path / table

    # -- opening ------------------------------------------------------------
    def is_run(self) -> bool:
        return (self.path / layout.RUN_JSON).is_file() and self.matches_dir.is_dir()

    def _holds_files(self) -> bool:
        return self.path.exists() and (
            not self.path.is_dir() or any(p.name != ".lock" for p in self.path.iterdir())
        )

    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads((self.path / layout.RUN_JSON).read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise ResultsError(f"{self.path} is not a readable bohnarena run: {e}") from None
        if not isinstance(meta, dict):
            raise ResultsError(f"{self.path}/run.json is not a JSON object")
        if meta.get("log_format") not in READS_FORMATS:
            raise ResultsError(
                f"{self.path} was written with log format {meta.get('log_format')}; "
                f"this bohnarena {__version__} reads format "
                + ", ".join(map(str, READS_FORMATS[:-1]))
                + f" and {READS_FORMATS[-1]}"
            )
        return with_secret(self.path, meta)

    # -- the manifest -------------------------------------------------------
    def _manifest(self) -> Manifest:
        """The manifest, or a one-line error: a directory without one (written
        before manifests, or it was removed) is played again from the start."""
        try:
            text = self.manifest_path.read_text("utf-8")
        except FileNotFoundError:
            if self._keeps_manifest():
                raise PartsError(
                    f"{self.manifest_path} is missing, yet run.json says its run keeps "
                    "one: restore it, or run the league with --restart"
                ) from None
            raise ResultsError(
                f"{self.path} has no {manifest.NAME} (written before bohnarena kept one): "
                "run its league on it again with --restart"
            ) from None
        except OSError as e:
            raise ResultsError(f"cannot read {self.manifest_path}: {e.strerror or e}") from None
        try:
            return manifest.parse(text)
        except ManifestError as e:
            raise PartsError(f"{self.manifest_path}: {e}") from None

    def _keeps_manifest(self) -> bool:
        try:
            meta = json.loads((self.path / layout.RUN_JSON).read_text("utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(meta, dict) and bool(meta.get("manifest"))

    def _generation(self) -> int | None:
        try:
            with open(self.manifest_path, encoding="utf-8") as f:
                head = json.loads(f.readline())
            return int(head["generation"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _where(self, table: str, entry: Entry) -> Path | None:
        """Where a part's file is now: a compaction's merged file before its
        rename, the committed name, or (a commit's renames under way, or cut
        short by a crash) its pending name."""
        d = self.table_dir(table)
        names = [entry.at] if entry.at else []
        names += [entry.name, PENDING + entry.name, entry.name]
        for name in names:
            if (d / name).exists():
                return d / name
        return None

    # -- reading ------------------------------------------------------------
    def listing(self, check: Check = "cheap") -> Listing:
        """The parts a reader reads, each checked against the manifest as
        ``check`` says; every file there that no run committed is named."""
        before = self._manifest()
        on_disk = {t: {p.name for p in self._parts_on_disk(t)} for t in self.TABLES}
        # Read again after the look at the files: a file renamed into place
        # since the first read has its line in now (lines go in before renames).
        m = self._manifest()
        if m.generation != before.generation:
            raise ResultsChanged(f"{self.path} changed while it was read; try again")
        parts, loose, problems = [], [], []
        for entry in m.live.values():
            found: dict[str, Path] = {}
            for table in self.TABLES:
                half = entry.half(table)
                if half is not None:
                    where, problem = self._look(table, entry, half, check, on_disk[table])
                    problems += [problem] if problem else []
                    if where is not None:
                        found[table] = where
            if "matches" in found:
                sides = [found.get(t) for t in manifest.SIDES]
                parts.append(Part(entry.name, found["matches"], *sides))
            elif entry.matches is None and found:
                loose.append(Loose(entry.name, *(found.get(t) for t in manifest.SIDES)))
        for table, names in on_disk.items():
            for name in sorted(names):
                if not m.known(table, name) and (self.table_dir(table) / name).exists():
                    problems.append(
                        f"{self.table_dir(table) / name} is not a part its run committed (a copy, "
                        "or from another directory): remove it"
                    )
        if check == "full":  # (a repeated line is read as its last: the others are named)
            problems += [f"{self.manifest_path}: {odd}" for odd in m.oddities]
        if problems and self._generation() != m.generation:
            raise ResultsChanged(f"{self.path} changed while it was read; try again")
        return Listing(
            sorted(parts, key=lambda p: p.span),
            m.generation,
            problems,
            sorted(loose, key=lambda p: p.span),
            {p.name: half.sha256 for p in parts if (half := m.live[p.name].matches) is not None},
        )

    def _look(
        self, table: str, entry: Entry, half: manifest.Half, check: Check, seen: set[str]
    ) -> tuple[Path | None, str | None]:
        """Where a part's file is, and what is wrong with it (None: nothing).
        ``seen``: the part names just found in its table's directory."""
        shown = self.table_dir(table) / entry.name
        missing = (
            f"{shown} is missing (its run committed it): restore it, or run the league "
            "again to play its matches again"
        )
        for attempt in range(2):  # a commit's rename may move it once while it is looked at
            # (where it was just seen, most often: no need to look again)
            seen_there = not attempt and entry.at is None and entry.name in seen
            where = shown if seen_there else self._where(table, entry)
            if where is None:
                return None, missing
            try:
                hash_it = check == "full" or table == "matches"
                what = None if check == "off" else difference(where, half, hash_it, check == "full")
            except FileNotFoundError:
                continue
            if what is None:
                return where, None
            return where, (
                f"{shown} is not the part its run committed ({what}): restore it, or "
                "delete it and run the league again to play its matches again"
            )
        return None, missing  # gone twice: a compaction (the caller reads again)

    def confirm(self, listing: Listing) -> None:
        """ResultsChanged if a compaction moved the listed parts since (what
        was read may mix old and new files): read again."""
        if listing.generation is not None and self._generation() != listing.generation:
            raise ResultsChanged(f"{self.path} changed while it was read; try again")

    def _parts_on_disk(self, table: str) -> Iterator[Path]:
        d = self.table_dir(table)
        return (p for p in d.iterdir() if PART.match(p.name)) if d.is_dir() else iter(())

    def done_ids(self, listing: Listing | None = None) -> set[int]:
        ids: set[int] = set()
        for part in (listing or self.listing().require()).parts:
            ids |= ids_of(part.matches)
        return ids

    def read_part(self, name: str, columns: list[str]) -> pa.Table:
        """Columns of one committed matches part."""
        path = self.matches_dir / name
        try:
            return pq.read_table(path, columns=columns)
        except (pa.ArrowException, OSError) as e:
            raise unreadable(path, e) from None

    def iter_matches(
        self, columns: list[str] | None = None, chunk: int = 8192, listing: Listing | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every finished match as a dict, in match-id order, a record batch
        at a time: memory stays bounded whatever the directory's size (parts
        cover disjoint id ranges and hold their rows in id order). The parts
        are those listed now (checked, unless ``listing`` is given): parts
        committed later are not read."""
        listing = listing or self.listing().require()
        groups = overlapping(listing.parts)
        for group in groups:
            for p in group:
                check_schema(p.matches, MATCHES_SCHEMA, columns)
        return self._rows(groups, columns, chunk, listing)

    def _rows(
        self, groups: list[list[Part]], columns: list[str] | None, chunk: int, listing: Listing
    ) -> Iterator[dict[str, Any]]:
        for group in groups:
            batches = self._batches([p.matches for p in group], columns, chunk)
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError) as e:
                    raise unreadable(group[0].matches, e) from None
                if batch is None:
                    break
                yield from batch.to_pylist()
        self.confirm(listing)

    @staticmethod
    def _batches(
        group: list[Path], columns: list[str] | None, chunk: int
    ) -> Iterator[pa.RecordBatch]:
        if len(group) == 1:
            with open_part(group[0]) as f:
                yield from pq.ParquetFile(f).iter_batches(batch_size=chunk, columns=columns)
            return
        # a match played again later: its part and the one whose range holds it, sorted together
        wanted = None if columns is None else [*{*columns, "match_id"}]
        table = pa.concat_tables(read_table(p, columns=wanted) for p in group)
        table = table.sort_by("match_id")
        yield from (table if columns is None else table.select(columns)).to_batches(chunk)
