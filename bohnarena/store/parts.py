"""A results directory's files, one by one: its errors, Parquet parts read
(again, when a concurrent commit renames one) and written atomically, their
names and id ranges, and what a listing of them holds."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..core.errors import BohnarenaError, UsageError
from .manifest import MERGED, PART

MOVES_ROW_GROUP = 64 * 1024  # rows: one match reads one or two row groups
COMPRESSION = "zstd"  # smaller than snappy and as fast to write here (benchmarks/)
PENDING = ".tmp-"  # a part's files before its commit's renames (or not committed at all)


class ResultsError(UsageError):
    """A results directory that cannot be used as asked."""


class ResultsChanged(ResultsError):
    """A part went away while it was being read: a run is compacting the
    directory. Reading again sees the new state."""


class PartsError(ResultsError):
    """A part that is not what its run committed: edited, missing, or on
    disk without a line in the manifest (a copy)."""


def unreadable(where: Path, e: Exception) -> ResultsError:
    """A one-line error for a Parquet file or directory that does not read."""
    if isinstance(e, FileNotFoundError) or "No such file" in str(e):
        return ResultsChanged(
            f"{where} changed while it was read (a run is compacting it); try again"
        )
    first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return ResultsError(f"cannot read {where} (corrupt or truncated?): {first_line}")


def read_again(read: Any, tries: int = 5) -> Any:
    """``read()``, again while a concurrent compaction moves parts under it."""
    for attempt in range(tries):
        try:
            return read()
        except ResultsChanged:
            if attempt == tries - 1:
                raise
            time.sleep(0.2)


def open_part(path: Path) -> IO[bytes]:
    """A part's file, opened wherever a commit's or a compaction's rename has
    just put it (its place when listed, its final name, its pending one);
    once open, no rename takes it away. Never a FIFO or a device."""
    name = path.name.removeprefix(MERGED).removeprefix(PENDING)
    for where in (path, path.with_name(name), path.with_name(PENDING + name), path.with_name(name)):
        try:
            fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            continue
        f = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            f.close()
            raise PartsError(f"{where} is not a regular file")
        return f
    raise FileNotFoundError(errno.ENOENT, "No such file", str(path))


def read_table(path: Path, columns: list[str] | None = None) -> pa.Table:
    """A part's table, or those of its ``columns`` (read as one file: not
    through the datasets library, which costs a third more a file)."""
    try:
        with open_part(path) as f:
            return pq.ParquetFile(f).read(columns=columns)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None


def read_range(path: Path, first: int, last: int, columns: list[str] | None = None) -> pa.Table:
    """A part's rows with match ids in [first, last]: only the row groups
    whose statistics meet the range are read (as a filtered read does,
    without loading the datasets library: 40 MB and a second of CPU)."""
    try:
        with open_part(path) as f:
            part = pq.ParquetFile(f)
            leaves = part.metadata.schema  # (statistics are kept per leaf column)
            at = [leaves.column(j).path for j in range(len(leaves))].index("match_id")
            groups = []
            for i in range(part.num_row_groups):
                stats = part.metadata.row_group(i).column(at).statistics
                if (
                    stats is None
                    or not stats.has_min_max
                    or (stats.min <= last and first <= stats.max)
                ):
                    groups.append(i)
            table = part.read_row_groups(groups, columns=columns)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None
    ids = table.column("match_id")
    return table.filter(pc.and_(pc.greater_equal(ids, first), pc.less_equal(ids, last)))


def check_schema(path: Path, expected: pa.Schema, columns: list[str] | None = None) -> None:
    """A one-line error for a part whose columns are not the log format's
    (a column dropped, renamed or retyped); reads only the file's footer."""
    try:
        with open_part(path) as f:
            found = pq.read_schema(f)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None
    for column in expected:
        if columns is not None and column.name not in columns:
            continue
        if found.get_field_index(column.name) < 0:
            raise ResultsError(f"{path} has no column {column.name!r}")
        kind = found.field(column.name).type
        if not kind.equals(column.type):
            raise ResultsError(f"{path}: column {column.name!r} is {kind}, not {column.type}")


def _span(name: str) -> tuple[int, int]:
    m = PART.match(name)
    assert m is not None
    return int(m[1]), int(m[2])


def part_name(first: int, last: int) -> str:
    return f"part-{first:09d}-{last:09d}.parquet"


class StorageError(BohnarenaError):
    """The results directory cannot be written (a full disk, say): the run
    stops at once; what was committed before stays consistent and resumable."""


def storage_error(path: Path, e: OSError) -> StorageError:
    return StorageError(
        f"cannot write {path}: {e.strerror or e}; what was finished is saved: "
        "free the space (or fix the cause) and run the same command again"
    )


def _atomic_write(path: Path, write: Any) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:  # never half a file under the real name
        tmp.unlink(missing_ok=True)
        raise storage_error(path, e) from None


#: How each table's files are written beyond the defaults: a timing file's
#: ids count up (delta-coded) and its decisions and seats repeat (a
#: dictionary): 40% smaller (benchmarks show nothing slower). A moves
#: file's seq counts up within each match: delta-coded it is a twelfth of
#: its dictionary's size, and cheaper to write; every other column keeps
#: its dictionary. Both keep statistics (min, max) on match_id alone: what
#: read_range and a reader's filter on match_id skip row groups by (a
#: batch's seats, kinds or seqs span their whole range in every file, so
#: their statistics skip nothing), an eighth of a moves file's writing.
_ENCODING: dict[str, Callable[[pa.Table], dict[str, Any]]] = {
    "timing": lambda table: {
        "column_encoding": {"match_id": "DELTA_BINARY_PACKED", "seq": "DELTA_BINARY_PACKED"},
        "use_dictionary": ["decision", "seat"],
        "write_statistics": ["match_id"],
    },
    "moves": lambda table: {
        "column_encoding": {"seq": "DELTA_BINARY_PACKED"},
        "use_dictionary": [_leaf(f) for f in table.schema if f.name != "seq"],
        "write_statistics": ["match_id"],
    },
}


def _leaf(field: pa.Field) -> str:
    """The path of a column's values in the file (a list's are its elements')."""
    return f"{field.name}.list.element" if pa.types.is_list(field.type) else field.name


def write_part(path: Path, table: pa.Table) -> None:
    """A part's file (its table: the name of the directory it is in)."""
    encoding = _ENCODING.get(path.parent.name)
    pq.write_table(
        table,
        path,
        row_group_size=MOVES_ROW_GROUP,
        compression=COMPRESSION,
        **(encoding(table) if encoding else {}),
    )


def write_text(path: Path, text: str) -> None:
    _atomic_write(path, lambda tmp: tmp.write_text(text, "utf-8"))


#: How closely a reader checks the parts: "cheap" hashes every matches file
#: and sizes every moves file (rank, report, a resume); "full" hashes the
#: moves too (replay --verify-all, merge); "off" only lists them.
Check = Literal["off", "cheap", "full"]


@dataclass(frozen=True)
class Part:
    """A committed part as a reader finds it: its files where they are now."""

    name: str
    matches: Path
    moves: Path | None
    timing: Path | None = None
    exchanges: Path | None = None

    @property
    def span(self) -> tuple[int, int]:
        return _span(self.name)

    def file(self, table: str) -> Path | None:
        path: Path | None = getattr(self, table)
        return path


@dataclass(frozen=True)
class Loose:
    """Moves and timing files whose matches are in a merged matches file: a
    compaction merges the matches files and leaves the others where they
    were written."""

    name: str
    moves: Path | None
    timing: Path | None = None
    exchanges: Path | None = None

    @property
    def span(self) -> tuple[int, int]:
        return _span(self.name)


@dataclass(frozen=True)
class Listing:
    """The parts a reader reads, in id order, and what is wrong with them."""

    #: The matches files (each with its moves and timing files of the same name, if any).
    parts: list[Part]
    #: The manifest's generation when listed; None: a directory without one.
    generation: int | None
    problems: list[str]
    #: The moves and timing files without a matches file of their own, in id order.
    loose: list[Loose] = field(default_factory=list)
    #: Each listed matches file's SHA-256 as its line has it, by part name
    #: (what a derived file records it was computed from); None: no manifest.
    hashes: dict[str, str] | None = None

    def files(self, table: str) -> list[tuple[tuple[int, int], Path]]:
        """Every file of ``table`` with its id range, in id order."""
        found = [(p.span, f) for p in self.parts if (f := p.file(table)) is not None]
        if table != "matches":
            found += [(m.span, f) for m in self.loose if (f := getattr(m, table)) is not None]
        return sorted(found)

    def require(self) -> Listing:
        """The listing, or PartsError naming its first problem."""
        if self.problems:
            more = len(self.problems) - 1
            raise PartsError(self.problems[0] + (f" (and {more} more)" if more else ""))
        return self


def overlapping(parts: list[Part]) -> list[list[Part]]:
    """Parts (sorted by first id) in runs whose id ranges overlap."""
    groups: list[list[Part]] = []
    reach = -1
    for part in parts:
        first, last = part.span
        if groups and first <= reach:
            groups[-1].append(part)
        else:
            groups.append([part])
        reach = max(reach, last)
    return groups


def ids_of(path: Path) -> set[int]:
    return set(read_table(path, columns=["match_id"]).column(0).to_pylist())
