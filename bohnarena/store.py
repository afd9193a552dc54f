"""A league's results directory.

Layout::

    league.toml        the league file, frozen at the first run
    run.json           bohnarena version, log format, bot source hashes
    run.log            the run log (all processes)
    matches/part-FIRST-LAST.parquet   one row per finished match
    moves/part-FIRST-LAST.parquet     every record of those matches
    errors.json        matches that could not be played in the last run
    ranking.csv|json|md

Every file is written under a temporary name and renamed. A batch commits
its moves part first and its matches part second, so a match counts as done
exactly when its row is in ``matches/``. On opening, moves parts without a
matches part (a run killed in between) and parts whose matches another part
holds as well (left over from a compaction) are removed. A match played
again by a later run (it errored, or its row was lost) has a part of its own
inside an older part's id range; compaction sorts such overlaps into id
order and keeps only the moves of matches whose row its part holds.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import __version__
from .errors import BohnarenaError, UsageError
from .logbook import LOG_FORMAT, MATCHES_SCHEMA

PART = re.compile(r"^part-(\d{9})-(\d{9})\.parquet$")
MOVES_ROW_GROUP = 64 * 1024  # rows: one match reads one or two row groups
COMPRESSION = "zstd"  # smaller than snappy and as fast to write here (benchmarks/)


class ResultsError(UsageError):
    """A results directory that cannot be used as asked."""


class ResultsChanged(ResultsError):
    """A part went away while it was being read: a run is compacting the
    directory. Reading again sees the new state."""


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


def check_schema(path: Path, expected: pa.Schema, columns: list[str] | None = None) -> None:
    """A one-line error for a part whose columns are not the log format's
    (a column dropped, renamed or retyped); reads only the file's footer."""
    try:
        found = pq.read_schema(path)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None
    for field in expected:
        if columns is not None and field.name not in columns:
            continue
        if found.get_field_index(field.name) < 0:
            raise ResultsError(f"{path} has no column {field.name!r}")
        if not found.field(field.name).type.equals(field.type):
            raise ResultsError(
                f"{path}: column {field.name!r} is {found.field(field.name).type}, not {field.type}"
            )


def _span(part: Path) -> tuple[int, int]:
    m = PART.match(part.name)
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


def write_part(path: Path, table: pa.Table) -> None:
    pq.write_table(table, path, row_group_size=MOVES_ROW_GROUP, compression=COMPRESSION)


def write_text(path: Path, text: str) -> None:
    _atomic_write(path, lambda tmp: tmp.write_text(text, "utf-8"))


class RunDir:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.matches_dir = self.path / "matches"
        self.moves_dir = self.path / "moves"
        self._lock: IO[str] | None = None

    # -- opening ------------------------------------------------------------
    def is_run(self) -> bool:
        return (self.path / "run.json").is_file() and self.matches_dir.is_dir()

    def open_for_run(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        """Create the directory, or check it belongs to this league and clean it."""
        if (
            restart
            and self.path.exists()
            and not self.is_run()
            and any(p.name != ".lock" for p in self.path.iterdir())
        ):
            raise ResultsError(
                f"{self.path} is not a bohnarena results directory; refusing to delete it"
            )
        self.lock()  # before anything in the directory is touched, --restart included
        try:
            self._prepare(league_text, meta, restart)
        except BaseException:
            self.close()
            raise

    def _prepare(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        if restart:
            for entry in self.path.iterdir():
                if entry.name == ".lock":
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        try:
            self.matches_dir.mkdir(exist_ok=True)
            self.moves_dir.mkdir(exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot write results to {self.path}: {e.strerror or e}") from None
        frozen = self.path / "league.toml"
        if frozen.exists():
            old = self.meta()
            if frozen.read_text("utf-8") != league_text:
                raise ResultsError(
                    f"{self.path} holds a run of a different league file; "
                    "use --restart to discard it, or --out for another directory"
                )
            if old.get("shard") != meta.get("shard"):
                raise ResultsError(
                    f"{self.path} holds shard {old.get('shard') or 'none (the whole league)'}"
                    f", not {meta.get('shard') or 'the whole league'}"
                )
            if old.get("rules_version") != meta["rules_version"]:
                raise ResultsError(
                    f"{self.path} was played under rules version "
                    f"{old.get('rules_version')}, this bohnarena plays version "
                    f"{meta['rules_version']}; use --restart to discard it, or "
                    "--out for another directory"
                )
            for key, what in (("rules", "rule set in force"), ("data", "game's data files")):
                if key in old and old[key] != meta.get(key):
                    raise ResultsError(
                        f"the {what} changed since this run started; use --restart "
                        "to discard it, or --out for another directory"
                    )
            changed = sorted(b for b, h in meta["bots"].items() if old.get("bots", {}).get(b) != h)
            if changed:
                raise ResultsError(
                    f"the source of bot(s) {', '.join(changed)} changed since this run "
                    "started; use --restart to discard it, or --out for another directory"
                )
        else:
            write_text(frozen, league_text)
            write_text(self.path / "run.json", json.dumps(meta, indent=2, sort_keys=True))
        self.clean()

    def lock(self) -> None:
        """Take the directory for this process (created if need be), or a
        one-line error naming the run that holds it."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._lock = open(self.path / ".lock", "a")  # noqa: SIM115 (held until close())
        except OSError as e:
            raise ResultsError(f"cannot write results to {self.path}: {e.strerror or e}") from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise ResultsError(f"another bohnarena run is using {self.path}") from None

    def close(self) -> None:
        """Release the directory for other runs."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.close()

    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads((self.path / "run.json").read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise ResultsError(f"{self.path} is not a readable bohnarena run: {e}") from None
        if not isinstance(meta, dict):
            raise ResultsError(f"{self.path}/run.json is not a JSON object")
        if meta.get("log_format") != LOG_FORMAT:
            raise ResultsError(
                f"{self.path} was written with log format {meta.get('log_format')}; "
                f"this bohnarena {__version__} reads format {LOG_FORMAT}"
            )
        return meta

    def clean(self) -> None:
        for d in (self.matches_dir, self.moves_dir):
            for tmp in d.glob(".tmp-*"):
                tmp.unlink()
        done = {p.name for p in self.matches_dir.glob("part-*.parquet")}
        for p in self.moves_dir.glob("part-*.parquet"):
            if p.name not in done:  # killed between the two commits of a batch
                p.unlink()
        # A part inside a wider one is a leftover of a compaction only if the
        # wider one holds all its matches; a retried match's part is not.
        ids = {p.name: self._ids(p) for p in self.matches_dir.glob("part-*.parquet")}
        for first, last, p in self._ranges(self.matches_dir):
            outer = [
                q
                for lo, hi, q in self._ranges(self.matches_dir)
                if q != p and lo <= first and last <= hi and ids[p.name] <= ids[q.name]
            ]
            if outer:
                (self.moves_dir / p.name).unlink(missing_ok=True)
                p.unlink()

    def _ids(self, part: Path) -> set[int]:
        try:
            return set(pq.read_table(part, columns=["match_id"]).column(0).to_pylist())
        except (pa.ArrowException, OSError) as e:
            raise unreadable(part, e) from None

    @staticmethod
    def _ranges(d: Path) -> Iterator[tuple[int, int, Path]]:
        for p in d.iterdir():
            m = PART.match(p.name)
            if m:
                yield int(m[1]), int(m[2]), p

    def parts(self, d: Path) -> list[Path]:
        return [p for _, _, p in sorted(self._ranges(d))]

    def live_parts(self, d: Path) -> list[Path]:
        """The parts a reader reads: never the leftovers of a compaction that
        stopped before it could clean up (a part whose matches a wider part
        also holds), nor a moves part whose matches part is not live. So a
        reader counts every match once whenever it looks, crash or not."""
        live: list[Path] = []
        for group in self._overlapping(self.parts(self.matches_dir)):
            if len(group) > 1:
                ids = {p: self._ids(p) for p in group}
                group = [
                    p
                    for p in group
                    if not any(
                        q != p
                        and ids[p] <= ids[q]
                        and _span(p)[0] >= _span(q)[0]
                        and _span(p)[1] <= _span(q)[1]
                        for q in group
                    )
                ]
            live += group
        if d == self.matches_dir:
            return live
        names = {p.name for p in live}
        return [p for p in self.parts(d) if p.name in names]

    # -- writing ------------------------------------------------------------
    def commit(
        self, first: int, last: int, matches: pa.Table | Path, moves: pa.Table | Path | None
    ) -> None:
        """Commit a batch's tables, or files a worker spooled into this directory."""
        name = part_name(first, last)
        for table, d in ((moves, self.moves_dir), (matches, self.matches_dir)):  # moves first
            if isinstance(table, Path):
                try:
                    os.replace(table, d / name)
                except OSError as e:
                    raise storage_error(d / name, e) from None
            elif table is not None:
                _atomic_write(d / name, lambda tmp, t=table: write_part(tmp, t))

    def spool(
        self, tag: str, matches: pa.Table, moves: pa.Table | None
    ) -> tuple[Path, Path | None]:
        """Write a batch under temporary names (a worker's half of a commit)."""
        paths = (
            self.matches_dir / f".tmp-{tag}.parquet",
            None if moves is None else self.moves_dir / f".tmp-{tag}.parquet",
        )
        write_part(paths[0], matches)
        if moves is not None and paths[1] is not None:
            write_part(paths[1], moves)
        return paths

    def compact(self, first: int, last: int) -> None:
        """Merge all parts (ids first..last) into one file per table in match-id
        order, streaming: part by part, except where a retried match's part
        overlaps another's range, whose rows are sorted together."""
        every = self._overlapping(self.parts(self.matches_dir))
        for d, keys in (
            (self.moves_dir, [("match_id", "ascending"), ("seq", "ascending")]),
            (self.matches_dir, [("match_id", "ascending")]),
        ):  # moves first: see clean()
            # A batch played with --no-moves has no moves part.
            groups = [g for g in ([p for p in g if (d / p.name).exists()] for g in every) if g]
            if sum(map(len, groups)) <= 1:
                continue
            target = d / part_name(first, last)

            def merge(
                tmp: Path,
                d: Path = d,
                keys: list[tuple[str, str]] = keys,
                groups: list[list[Path]] = groups,
            ) -> None:
                with pq.ParquetWriter(
                    tmp, pq.read_schema(d / groups[0][0].name), compression=COMPRESSION
                ) as out:
                    for group in groups:
                        tables = [self._rows_of(d, part) for part in group]
                        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
                        out.write_table(
                            table.sort_by(keys) if len(tables) > 1 else table,
                            row_group_size=MOVES_ROW_GROUP,
                        )

            _atomic_write(target, merge)
        self.clean()

    def _rows_of(self, d: Path, part: Path) -> pa.Table:
        """A part's rows; of a moves part only those of matches its matches
        part holds (a match played again after its row was lost is logged once)."""
        table = pq.read_table(d / part.name)
        if d == self.moves_dir:
            table = table.filter(
                pc.is_in(table["match_id"], pa.array(sorted(self._ids(part)), pa.int64()))
            )
        return table

    def _overlapping(self, parts: list[Path]) -> list[list[Path]]:
        """Parts (sorted by first id) in runs whose id ranges overlap."""
        groups: list[list[Path]] = []
        reach = -1
        for part in parts:
            first, last = _span(part)
            if groups and first <= reach:
                groups[-1].append(part)
            else:
                groups.append([part])
            reach = max(reach, last)
        return groups

    def drop_damaged(self, moves: bool) -> list[str]:
        """Before a resume: parts whose files do not read (a truncated or
        garbage file, a moves part gone while moves are logged) are removed,
        both halves, so their matches are played again. Returns what went."""
        dropped = []
        # A run that never logged moves has none to lose.
        moves = moves and any(self.moves_dir.glob("part-*.parquet"))
        for part in self.live_parts(self.matches_dir):
            halves = [part] + ([self.moves_dir / part.name] if moves else [])
            try:
                for half in halves:
                    pq.read_metadata(half)  # the footer: a cut or garbage file fails here
            except (pa.ArrowException, OSError) as e:
                for half in halves:
                    half.unlink(missing_ok=True)
                dropped.append(f"{part.name} ({type(e).__name__})")
        return dropped

    # -- reading ------------------------------------------------------------
    def done_ids(self) -> set[int]:
        ids: set[int] = set()
        for p in self.live_parts(self.matches_dir):
            try:
                ids.update(pq.read_table(p, columns=["match_id"]).column(0).to_pylist())
            except (pa.ArrowException, OSError) as e:
                raise unreadable(p, e) from None
        return ids

    def read_part(self, name: str, columns: list[str]) -> pa.Table:
        """Columns of one committed matches part."""
        path = self.matches_dir / name
        try:
            return pq.read_table(path, columns=columns)
        except (pa.ArrowException, OSError) as e:
            raise unreadable(path, e) from None

    def iter_matches(
        self, columns: list[str] | None = None, chunk: int = 8192
    ) -> Iterator[dict[str, Any]]:
        """Every finished match as a dict, in match-id order, a record batch
        at a time: memory stays bounded whatever the directory's size (parts
        cover disjoint id ranges and hold their rows in id order). The parts
        are those live now: parts committed later are not read."""
        groups = self._overlapping(self.live_parts(self.matches_dir))
        for group in groups:
            for p in group:
                check_schema(p, MATCHES_SCHEMA, columns)
        return self._rows(groups, columns, chunk)

    def _rows(
        self, groups: list[list[Path]], columns: list[str] | None, chunk: int
    ) -> Iterator[dict[str, Any]]:
        for group in groups:
            batches = self._batches(group, columns, chunk)
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError) as e:
                    raise unreadable(group[0], e) from None
                if batch is None:
                    break
                yield from batch.to_pylist()

    @staticmethod
    def _batches(
        group: list[Path], columns: list[str] | None, chunk: int
    ) -> Iterator[pa.RecordBatch]:
        if len(group) == 1:
            yield from pq.ParquetFile(group[0]).iter_batches(batch_size=chunk, columns=columns)
            return
        # a match played again later: its part and the one whose range holds it, sorted together
        wanted = None if columns is None else [*{*columns, "match_id"}]
        table = pa.concat_tables(pq.read_table(p, columns=wanted) for p in group)
        table = table.sort_by("match_id")
        yield from (table if columns is None else table.select(columns)).to_batches(chunk)


def merge(out: str | Path, sources: list[str | Path]) -> RunDir:
    """Merge shard (or any partial) runs of one league into ``out``.

    Refuses directories of different leagues, rules versions or bot sources,
    and matches that two directories both hold.
    """
    runs = [RunDir(p) for p in sources]
    for r in runs:
        if not r.is_run():
            raise ResultsError(f"{r.path} is not a bohnarena results directory")
    first = runs[0]
    league_text = (first.path / "league.toml").read_text("utf-8")
    meta = first.meta()
    for r in runs[1:]:
        other = r.meta()
        if (r.path / "league.toml").read_text("utf-8") != league_text:
            raise ResultsError(f"{r.path} is a run of a different league than {first.path}")
        for key in ("rules_version", "bots", "game"):
            if other.get(key) != meta.get(key):
                raise ResultsError(f"{r.path} differs from {first.path} in {key}")
    final = Path(out)
    if final.exists() and any(final.iterdir()):
        raise ResultsError(f"{final} already exists; merge into a new directory")
    seen: set[int] = set()
    for r in runs:  # every check before anything is written (sources are only read)
        ids = r.done_ids()
        twice = ids & seen
        if twice:
            raise ResultsError(f"match {min(twice)} is in more than one directory")
        seen |= ids
    # Built aside and renamed into place: OUT is a whole merge or nothing.
    final.parent.mkdir(parents=True, exist_ok=True)
    aside = RunDir(final.parent / f".{final.name}.merging-{os.getpid()}")
    try:
        aside.open_for_run(league_text, {**meta, "shard": None}, restart=True)
        for r in runs:
            for d, into in ((r.moves_dir, aside.moves_dir), (r.matches_dir, aside.matches_dir)):
                for p in r.live_parts(d):
                    shutil.copyfile(p, into / p.name)
        aside.close()
        if final.exists():
            final.rmdir()  # empty, checked above
        os.rename(aside.path, final)
    except BaseException:
        aside.close()
        shutil.rmtree(aside.path, ignore_errors=True)
        raise
    target = RunDir(final)
    return target
