"""A league's results directory.

Layout::

    league.toml        the league file, frozen at the first run
    run.json           bohnarena version, log format, bot source hashes
    manifest.jsonl     every committed part: rows, size and hash of each file
    run.log            the run log (all processes)
    matches/part-FIRST-LAST.parquet   one row per finished match
    moves/part-FIRST-LAST.parquet     every record of those matches
    errors.json        matches that could not be played in the last run
    ranking.csv|json|md

A new directory is built aside and renamed into place whole, so a reader
never sees half of one. Every file is written under a temporary name. A
batch's commit writes its two parts under ``.tmp-`` names, appends their
line to the manifest (the commit point: a match counts as done exactly when
its part's line is in), then renames them. Readers read the parts the
manifest lists, each checked against its line (bohnarena/manifest.py); a
part edited, missing, or not listed (a copy) is refused by name. A match
played again by a later run (it errored, or its part was damaged) has a
part of its own inside an older part's id range; compaction sorts such
overlaps into id order. A directory written before manifests existed is
read as it was then (its parts inferred from their names) and gets its
manifest from the next run on it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .. import __version__
from ..core.errors import BohnarenaError, UsageError
from . import manifest
from .logbook import LOG_FORMAT, MATCHES_SCHEMA
from .manifest import MERGED, PART, Entry, Manifest, ManifestError, describe, difference

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


def read_table(path: Path, **options: Any) -> pa.Table:
    """A part's table (``options``: pyarrow.parquet.read_table's)."""
    try:
        with open_part(path) as f:
            return pq.read_table(f, **options)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None


def check_schema(path: Path, expected: pa.Schema, columns: list[str] | None = None) -> None:
    """A one-line error for a part whose columns are not the log format's
    (a column dropped, renamed or retyped); reads only the file's footer."""
    try:
        with open_part(path) as f:
            found = pq.read_schema(f)
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


def write_part(path: Path, table: pa.Table) -> None:
    pq.write_table(table, path, row_group_size=MOVES_ROW_GROUP, compression=COMPRESSION)


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

    @property
    def span(self) -> tuple[int, int]:
        return _span(self.name)

    def file(self, table: str) -> Path | None:
        return self.matches if table == "matches" else self.moves


@dataclass(frozen=True)
class Listing:
    """The parts a reader reads, in id order, and what is wrong with them."""

    parts: list[Part]
    #: The manifest's generation when listed; None: a directory without one.
    generation: int | None
    problems: list[str]

    @property
    def unchecked(self) -> bool:
        """Written before manifests existed: its parts cannot be checked."""
        return self.generation is None

    def require(self) -> Listing:
        """The listing, or PartsError naming its first problem."""
        if self.problems:
            more = len(self.problems) - 1
            raise PartsError(self.problems[0] + (f" (and {more} more)" if more else ""))
        return self


def unchecked_warning(path: str | Path) -> str:
    return (
        f"{path} has no {manifest.NAME} (written before bohnarena kept one): its parts "
        "cannot be checked for edits; run its league on it once to record one"
    )


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


class RunDir:
    TABLES = ("matches", "moves")

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.matches_dir = self.path / "matches"
        self.moves_dir = self.path / "moves"
        self.manifest_path = self.path / manifest.NAME
        self._lock: IO[str] | None = None

    def table_dir(self, table: str) -> Path:
        return self.path / table

    # -- opening ------------------------------------------------------------
    def is_run(self) -> bool:
        return (self.path / "run.json").is_file() and self.matches_dir.is_dir()

    def _holds_files(self) -> bool:
        return self.path.exists() and (
            not self.path.is_dir() or any(p.name != ".lock" for p in self.path.iterdir())
        )

    def open_for_run(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        """Create the directory, or check it belongs to this league and clean it."""
        if restart and self._holds_files() and not self.is_run():
            raise ResultsError(
                f"{self.path} is not a bohnarena results directory; refusing to delete it"
            )
        meta = {**meta, "manifest": manifest.VERSION}
        if (restart or not self._holds_files()) and self._create(league_text, meta):
            return
        self.lock()  # before anything in the directory is touched, --restart included
        try:
            self._prepare(league_text, meta, restart)
        except BaseException:
            self.close()
            raise

    def _create(self, league_text: str, meta: dict[str, Any]) -> bool:
        """A new run directory (with --restart, a new one in place of the
        old), built beside it and renamed into place whole: a reader sees
        none, or all of it. False where that cannot be done (the directory
        holds this process's working directory, its parent is read-only,
        another run made it meanwhile): it is then made in place."""
        target = self.path.resolve()  # a symlinked directory stays where it points
        if Path.cwd().is_relative_to(target):
            return False
        aside = target.parent / f".{target.name}.new-{os.getpid()}"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(aside, ignore_errors=True)
            for d in (aside / "matches", aside / "moves"):
                d.mkdir(parents=True)
        except OSError:
            shutil.rmtree(aside, ignore_errors=True)
            return False
        try:
            write_text(aside / manifest.NAME, Manifest().text())
            write_text(aside / "league.toml", league_text)
            write_text(aside / "run.json", json.dumps(meta, indent=2, sort_keys=True))
            self._lock = self._take(aside)
            if target.exists():  # --restart, or an empty directory: swapped out
                self._swap(aside, target)
                return True
            try:
                os.rename(aside, target)
            except OSError:  # another run made it meanwhile: open that one
                self.close()
                shutil.rmtree(aside, ignore_errors=True)
                return False
            return True
        except BaseException as e:
            self.close()
            shutil.rmtree(aside, ignore_errors=True)
            if isinstance(e, OSError):
                raise ResultsError(
                    f"cannot write results to {self.path}: {e.strerror or e}"
                ) from None
            raise

    def _swap(self, new: Path, target: Path) -> None:
        """``new`` in place of ``target``, which goes (under its lock)."""
        old = self._take(target)
        trash = target.parent / f".{target.name}.old-{os.getpid()}"
        try:
            os.rename(target, trash)
            try:
                os.rename(new, target)
            except OSError:
                os.rename(trash, target)  # the old one back
                raise
        finally:
            old.close()
        shutil.rmtree(trash, ignore_errors=True)

    def _prepare(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        if restart:  # where the directory could not be swapped whole
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
        else:  # in a directory that holds other files: run.json last
            if not self.manifest_path.exists():
                write_text(self.manifest_path, Manifest().text())
            write_text(frozen, league_text)
            write_text(self.path / "run.json", json.dumps(meta, indent=2, sort_keys=True))
        self.clean()

    def _take(self, d: Path) -> IO[str]:
        """``d``'s lock, held until closed, or a one-line error naming the run that holds it."""
        try:
            lock = open(d / ".lock", "a")  # noqa: SIM115 (held until close())
        except OSError as e:
            raise ResultsError(f"cannot write results to {self.path}: {e.strerror or e}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise ResultsError(f"another bohnarena run is using {self.path}") from None
        return lock

    def lock(self) -> None:
        """Take the directory for this process (created if need be), or a
        one-line error naming the run that holds it."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot write results to {self.path}: {e.strerror or e}") from None
        self._lock = self._take(self.path)

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

    # -- the manifest -------------------------------------------------------
    def _manifest(self) -> Manifest | None:
        """The manifest, or None for a directory written before manifests."""
        try:
            text = self.manifest_path.read_text("utf-8")
        except FileNotFoundError:
            if self._keeps_manifest():
                raise PartsError(
                    f"{self.manifest_path} is missing, yet run.json says its run keeps "
                    "one: restore it, or run the league with --restart"
                ) from None
            return None
        except OSError as e:
            raise ResultsError(f"cannot read {self.manifest_path}: {e.strerror or e}") from None
        try:
            return manifest.parse(text)
        except ManifestError as e:
            raise PartsError(f"{self.manifest_path}: {e}") from None

    def _keeps_manifest(self) -> bool:
        try:
            meta = json.loads((self.path / "run.json").read_text("utf-8"))
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

    def _rewrite(self, new: Manifest) -> None:
        write_text(self.manifest_path, new.text())

    def _append(self, entry: Entry) -> None:
        if not self.manifest_path.exists():
            self._adopt()
        try:
            with open(self.manifest_path, "a", encoding="utf-8") as f:
                f.write(entry.line())
        except OSError as e:
            raise storage_error(self.manifest_path, e) from None

    def _adopt(self) -> None:
        """Record a manifest for a directory written before manifests: its
        parts as they are now (a crash's leftovers already removed)."""
        from .legacy import inferred_parts

        entries = []
        for part in inferred_parts(self):
            moves = None
            if part.moves is not None:
                try:
                    moves = describe(part.moves)
                except (pa.ArrowException, OSError):
                    pass  # a moves file that does not read: no moves for that part
            entries.append(Entry(part.name, describe(part.matches), moves))
        self._rewrite(manifest.rewritten(None, entries))
        run_json = self.path / "run.json"
        if run_json.is_file():
            meta = {**json.loads(run_json.read_text("utf-8")), "manifest": manifest.VERSION}
            write_text(run_json, json.dumps(meta, indent=2, sort_keys=True))

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
        if before is None:
            from .legacy import inferred_parts

            return Listing(inferred_parts(self), None, [])
        on_disk = {t: {p.name for p in self._parts_on_disk(t)} for t in self.TABLES}
        # Read again after the look at the files: a file renamed into place
        # since the first read has its line in now (lines go in before renames).
        m = self._manifest()
        if m is None or m.generation != before.generation:
            raise ResultsChanged(f"{self.path} changed while it was read; try again")
        parts, problems = [], []
        for entry in m.live.values():
            found: dict[str, Path] = {}
            for table, half in (("matches", entry.matches), ("moves", entry.moves)):
                if half is not None:
                    where, problem = self._look(table, entry, half, check, on_disk[table])
                    problems += [problem] if problem else []
                    if where is not None:
                        found[table] = where
            if "matches" in found:
                parts.append(Part(entry.name, found["matches"], found.get("moves")))
        for table, names in on_disk.items():
            for name in sorted(names):
                if not m.known(name) and (self.table_dir(table) / name).exists():
                    problems.append(
                        f"{self.table_dir(table) / name} is not a part its run committed (a copy, "
                        "or from another directory): remove it"
                    )
        if problems and self._generation() != m.generation:
            raise ResultsChanged(f"{self.path} changed while it was read; try again")
        return Listing(sorted(parts, key=lambda p: p.span), m.generation, problems)

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
                what = None if check == "off" else difference(where, half, hash_it)
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

    # -- writing ------------------------------------------------------------
    def clean(self) -> None:
        """At opening: finish what a crash cut short (a commit's or a
        compaction's renames), remove what was never committed and what a
        compaction replaced; the manifest keeps only live parts."""
        m = self._manifest()
        if m is None:
            from .legacy import clean_inferred

            return clean_inferred(self)
        for entry in m.live.values():
            for table in self.TABLES:
                d = self.table_dir(table)
                pending = [d / entry.at] if entry.at else []
                if not (d / entry.name).exists():
                    pending.append(d / (PENDING + entry.name))
                for p in pending:
                    if p.exists():
                        os.replace(p, d / entry.name)
        for table in self.TABLES:
            for tmp in self.table_dir(table).glob(".tmp-*"):
                tmp.unlink()
            for name in m.retired - set(m.live):
                (self.table_dir(table) / name).unlink(missing_ok=True)
        if m.torn or m.retired or any(e.at for e in m.live.values()):
            live = [replace(e, at=None) for e in m.live.values()]
            self._rewrite(manifest.rewritten(m, live))

    def commit(
        self, first: int, last: int, matches: pa.Table | Path, moves: pa.Table | Path | None
    ) -> None:
        """Commit a batch's tables, or files a worker spooled into this directory."""
        name = part_name(first, last)
        pending: dict[str, Path] = {}
        for table, data in (("moves", moves), ("matches", matches)):
            if data is not None:
                pending[table] = self._put(self.table_dir(table) / (PENDING + name), data)
        try:
            halves = {t: describe(p) for t, p in pending.items()}
        except OSError as e:
            raise storage_error(self.path / name, e) from None
        self._append(Entry(name, halves["matches"], halves.get("moves")))  # the commit point
        for table, path in pending.items():  # moves first: a reader may meet either name
            try:
                os.replace(path, self.table_dir(table) / name)
            except OSError as e:
                raise storage_error(self.table_dir(table) / name, e) from None

    @staticmethod
    def _put(path: Path, data: pa.Table | Path) -> Path:
        """A table written, or a spooled file moved, to ``path``."""
        try:
            if isinstance(data, Path):
                os.replace(data, path)
            else:
                write_part(path, data)
        except OSError as e:
            path.unlink(missing_ok=True)
            raise storage_error(path, e) from None
        return path

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
        overlaps another's range, whose rows are sorted together. The merged
        files get their line (and the old parts theirs as retired) before
        they are renamed into place; the old files go after."""
        listing = self.listing("off").require()
        if len(listing.parts) <= 1:
            return
        target = part_name(first, last)
        groups = overlapping(listing.parts)
        merged: dict[str, Path] = {}
        for table, keys in (
            ("moves", [("match_id", "ascending"), ("seq", "ascending")]),
            ("matches", [("match_id", "ascending")]),
        ):
            # A batch played with --no-moves has no moves part.
            with_file = [g for g in ([p for p in g if p.file(table)] for g in groups) if g]
            if with_file:
                merged[table] = self.table_dir(table) / (MERGED + target)
                self._merge(merged[table], table, keys, with_file)
        try:
            halves = {t: describe(p) for t, p in merged.items()}
        except OSError as e:
            raise storage_error(self.path / target, e) from None
        retired = [p.name for p in listing.parts if p.name != target]
        entry = Entry(target, halves["matches"], halves.get("moves"), at=MERGED + target)
        self._rewrite(manifest.rewritten(self._manifest(), [entry], retired))  # the commit point
        for table, path in merged.items():
            try:
                os.replace(path, self.table_dir(table) / target)
            except OSError as e:
                raise storage_error(self.table_dir(table) / target, e) from None
        self.clean()

    def _merge(
        self, path: Path, table: str, keys: list[tuple[str, str]], groups: list[list[Part]]
    ) -> None:
        try:
            with pq.ParquetWriter(
                path, pq.read_schema(groups[0][0].file(table)), compression=COMPRESSION
            ) as out:
                for group in groups:
                    tables = [self._rows_of(table, part) for part in group]
                    merged = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
                    out.write_table(
                        merged.sort_by(keys) if len(tables) > 1 else merged,
                        row_group_size=MOVES_ROW_GROUP,
                    )
        except OSError as e:
            path.unlink(missing_ok=True)
            raise storage_error(path, e) from None

    @staticmethod
    def _rows_of(table: str, part: Part) -> pa.Table:
        """A part's rows; of a moves part only those of matches its matches
        part holds (a match played again after its row was lost is logged once)."""
        path = part.file(table)
        assert path is not None
        rows = pq.read_table(path)
        if table == "moves":
            rows = rows.filter(
                pc.is_in(rows["match_id"], pa.array(sorted(ids_of(part.matches)), pa.int64()))
            )
        return rows

    def drop_damaged(self, moves: bool) -> list[str]:
        """Before a resume: parts whose files are missing or do not read (a
        truncated or garbage file) are removed, both halves, so their matches
        are played again. Returns what went. A directory written before
        manifests gets its manifest here (after its own damage check)."""
        m = self._manifest()
        if m is None:
            from .legacy import drop_damaged_inferred

            dropped = drop_damaged_inferred(self, moves)
            self._adopt()
            return dropped
        keep, dropped = [], []
        for entry in m.live.values():
            why = self._damage(entry)
            if why is None:
                keep.append(entry)
                continue
            for table in self.TABLES:
                for name in {entry.name, PENDING + entry.name, entry.at}:
                    if name:
                        (self.table_dir(table) / name).unlink(missing_ok=True)
            dropped.append(f"{entry.name} ({why})")
        if dropped:  # the files first: a file in place always has its line
            self._rewrite(manifest.rewritten(m, keep))
        return dropped

    def _damage(self, entry: Entry) -> str | None:
        for table, half in (("matches", entry.matches), ("moves", entry.moves)):
            if half is None:
                continue
            where = self._where(table, entry)
            if where is None:
                return f"{table} missing"
            if not where.is_file():  # a FIFO or a device would block or never end
                return f"{table} not a regular file"
            try:
                pq.read_metadata(where)  # the footer: a cut or garbage file fails here
            except (pa.ArrowException, OSError) as e:
                return type(e).__name__
        return None


def merge(
    out: str | Path, sources: list[str | Path], warn: Callable[[str], None] | None = None
) -> RunDir:
    """Merge shard (or any partial) runs of one league into ``out``.

    Refuses directories of different leagues, rules versions or bot sources,
    matches that two directories both hold, and parts that are not what
    their run committed.
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
    listings = [r.listing("full").require() for r in runs]
    seen: set[int] = set()
    for r, listing in zip(runs, listings, strict=True):  # every check before anything is written
        if listing.unchecked and warn is not None:
            warn(unchecked_warning(r.path))
        ids = r.done_ids(listing)
        twice = ids & seen
        if twice:
            raise ResultsError(f"match {min(twice)} is in more than one directory")
        seen |= ids
    # Built aside and renamed into place: OUT is a whole merge or nothing.
    final.parent.mkdir(parents=True, exist_ok=True)
    aside = RunDir(final.parent / f".{final.name}.merging-{os.getpid()}")
    try:
        aside.open_for_run(league_text, {**meta, "shard": None}, restart=True)
        for listing in listings:
            for part in listing.parts:
                copies = {}
                for table in ("moves", "matches"):
                    source = part.file(table)
                    if source is not None:
                        copies[table] = aside.table_dir(table) / f".tmp-copy-{part.name}"
                        shutil.copyfile(source, copies[table])
                aside.commit(*part.span, copies["matches"], copies.get("moves"))
        aside.close()
        if final.exists():
            final.rmdir()  # empty, checked above
        os.rename(aside.path, final)
    except BaseException:
        aside.close()
        shutil.rmtree(aside.path, ignore_errors=True)
        raise
    return RunDir(final)
