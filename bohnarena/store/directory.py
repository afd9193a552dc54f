"""A league's results directory.

Layout::

    league.toml        the league file, frozen at the first run (the latest, once it grew)
    league.N.toml      the files it replaced as it grew (N = 1, 2, ...: the oldest first)
    run.json           bohnarena version, log format, bot source hashes, generations
    secret.json        a secret seed and its salt until revealed (private, store/secret.py)
    reveal.json        the seed revealed (bohnarena reveal)
    manifest.jsonl     every committed part: rows, size and hash of each file
    chain.jsonl        a link a commit, each with the hash of the one before (store/chain.py)
    run.log            the run log (all processes)
    bots/BOT/W.log     an out-of-process bot's stderr in worker W, a line before each match
    bots/BOT/W.idx     where each match begins in it (store/botlogs.py); bots/BOT.log before
    matches/part-FIRST-LAST.parquet   one row per finished match (one file once compacted)
    moves/part-FIRST-LAST.parquet     every record of a batch's matches (never compacted)
    timing/part-FIRST-LAST.parquet    each bot answer's think time (never compacted)
    exchanges/part-FIRST-LAST.parquet each text seat's prompt and replies (never compacted)
    errors.json        matches that could not be played in the last run
    ranking.csv|json|md
    ratings.parquet    the rating curve of its matches (rating/curvefile.py)

A new directory is built aside and renamed into place whole, so a reader
never sees half of one. Every file is written under a temporary name. A
batch's commit writes its two parts under ``.tmp-`` names, appends their
line to the manifest (the commit point: a match counts as done exactly when
its part's line is in), then renames them. Readers read the parts the
manifest lists, each checked against its line (bohnarena/store/manifest.py); a
part edited, missing, or not listed (a copy) is refused by name. A match
played again by a later run (it errored, or its part was damaged) has a
part of its own inside an older part's id range; compaction sorts such
overlaps into id order. Compaction merges the matches files only: each
moves and timing file stays where its batch wrote it, under a line of its own. A
directory written before manifests existed is read as it was then (its
parts inferred from their names) and gets its manifest from the next run
on it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from . import chain, chained, layout, manifest
from .growing import Growth, first_generation
from .manifest import MERGED, Entry, Manifest, describe
from .parts import (
    COMPRESSION,
    MOVES_ROW_GROUP,
    PENDING,
    Part,
    ResultsError,
    overlapping,
    part_name,
    storage_error,
    write_part,
    write_text,
)
from .reading import RunReader
from .secret import public_seed, write_run


def absent(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, the deepest first."""
    out = []
    for p in (path, *path.absolute().parents):
        if os.path.exists(p):  # False for a name too long, too
            break
        out.append(p)
    return out


class RunDir(RunReader):
    def open_for_run(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        """Create the directory, or check it belongs to this league and clean it.
        A run that cannot leaves no directory it made (``results/`` empty
        behind a name too long for the file system)."""
        made = absent(self.path)
        try:
            self._open_for_run(league_text, meta, restart)
        except BaseException as e:
            for directory in made:  # the deepest first; one that holds anything stays
                try:
                    directory.rmdir()
                except OSError:
                    if os.path.isdir(directory):  # not empty: someone else's now
                        break
            if isinstance(e, OSError) and not isinstance(e, ResultsError):  # a name too long
                raise ResultsError(f"cannot write results to {self.path}: {e.strerror}") from None
            raise

    def _open_for_run(self, league_text: str, meta: dict[str, Any], restart: bool) -> None:
        if restart and self._holds_files() and not self.is_run():
            raise ResultsError(
                f"{self.path} is not a bohnarena results directory; refusing to delete it"
            )
        meta = {**meta, "manifest": manifest.VERSION}
        meta.setdefault("untimed", [])  # a new run's moves files each have their timing file
        if "generations" not in meta:  # (a merge brings those of its sources)
            meta["generations"] = first_generation(league_text)
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
            for table in layout.UP_FRONT:
                (aside / table).mkdir(parents=True)
        except OSError:
            shutil.rmtree(aside, ignore_errors=True)
            return False
        try:
            write_text(aside / manifest.NAME, Manifest().text())
            write_text(aside / layout.CHAIN, "")
            write_text(aside / layout.LEAGUE, league_text)
            write_run(aside, meta)
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
            for table in layout.UP_FRONT:
                self.table_dir(table).mkdir(exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot write results to {self.path}: {e.strerror or e}") from None
        frozen = self.path / layout.LEAGUE
        if frozen.exists():
            old = self.meta()
            self._manifest()  # (a directory without one refused before anything changes)
            grow = Growth(frozen.read_text("utf-8"), old, league_text)
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
            was = old.get("bots", {})
            changed = sorted(b for b, h in meta["bots"].items() if b in was and was[b] != h)
            if changed:
                raise ResultsError(
                    f"the source of bot(s) {', '.join(changed)} changed since this run "
                    "started; use --restart to discard it, or --out for another directory"
                )
            grow.write(self.path, meta["bots"])
            now = self.meta()
            if now.get("log_format") != meta["log_format"] or "untimed" not in now:
                # an older format read on: what it wrote has no timing, and says so
                untimed = now["untimed"] if "untimed" in now else self._untimed()
                now = {**now, "log_format": meta["log_format"], "untimed": untimed}
                write_run(self.path, now)
            elif public_seed(self.path):  # (its seed moved out of run.json)
                write_run(self.path, now)
        else:  # in a directory that holds other files: run.json last
            if not self.manifest_path.exists():
                write_text(self.manifest_path, Manifest().text())
                write_text(self.path / layout.CHAIN, "")
            write_text(frozen, league_text)
            write_run(self.path, meta)
        self.clean()
        chained.start(self)  # (results written before chains: adopted)

    def _untimed(self) -> list[str]:
        """The parts whose moves file has no timing file (written before log
        format 4), as the manifest has them now: run.json keeps them, so that
        ``replay --verify-all`` knows any other one lost its timing file."""
        m = self._manifest()
        return sorted(n for n, e in m.live.items() if e.moves is not None and e.timing is None)

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

    def _rewrite(self, new: Manifest) -> None:
        write_text(self.manifest_path, new.text())

    def _append(self, entry: Entry) -> None:
        if not self.manifest_path.exists():
            if self.is_run():
                self._manifest()  # (its one-line error: the line would be its only one)
            self._rewrite(Manifest())  # a directory no run opened: a tool's, a test's
        try:
            with open(self.manifest_path, "a", encoding="utf-8") as f:
                f.write(entry.line())
        except OSError as e:
            raise storage_error(self.manifest_path, e) from None

    # -- writing ------------------------------------------------------------
    def clean(self) -> None:
        """At opening: finish what a crash cut short (a commit's or a
        compaction's renames), remove what was never committed and what a
        compaction replaced; the manifest keeps only live parts."""
        m = self._manifest()
        for entry in m.live.values():
            for table in self.TABLES:
                if entry.half(table) is None:
                    continue
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
            for name in m.retired:
                if m.leftover(table, name):
                    (self.table_dir(table) / name).unlink(missing_ok=True)
        # (an older version's header is rewritten before a line of this one goes in)
        if (
            m.torn
            or m.retired
            or any(e.at for e in m.live.values())
            or m.version < manifest.VERSION
        ):
            live = [replace(e, at=None) for e in m.live.values()]
            self._rewrite(manifest.rewritten(m, live))

    def commit(
        self,
        first: int,
        last: int,
        matches: pa.Table | Path | None,
        moves: pa.Table | Path | None,
        timing: pa.Table | Path | None = None,
        exchanges: pa.Table | Path | None = None,
    ) -> None:
        """Commit a batch's tables, or files a worker spooled into this
        directory (a merge also commits side files without their matches:
        those a compaction left in place)."""
        name = part_name(first, last)
        pending: dict[str, Path] = {}
        sides = (("exchanges", exchanges), ("timing", timing), ("moves", moves))
        for table, data in (*sides, ("matches", matches)):
            if data is not None:
                pending[table] = self._put(self.table_dir(table) / (PENDING + name), data)
        try:
            halves = {t: describe(p) for t, p in pending.items()}
        except OSError as e:
            raise storage_error(self.path / name, e) from None
        entry = Entry(
            name,
            halves.get("matches"),
            halves.get("moves"),
            timing=halves.get("timing"),
            exchanges=halves.get("exchanges"),
        )
        rows = (
            [] if "matches" not in pending else chain.table_rows(pq.read_table(pending["matches"]))
        )
        chained.commit(self.path, name, rows, halves)
        self._append(entry)  # the commit point
        for table, path in pending.items():  # sides first: a reader may meet either name
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
                path.parent.mkdir(exist_ok=True)  # (exchanges/ in a run begun before it)
                write_part(path, data)
        except OSError as e:
            path.unlink(missing_ok=True)
            raise storage_error(path, e) from None
        return path

    def spool(
        self,
        tag: str,
        matches: pa.Table,
        moves: pa.Table | None,
        timing: pa.Table | None,
        exchanges: pa.Table | None = None,
    ) -> tuple[Path, Path | None, Path | None, Path | None]:
        """Write a batch under temporary names (a worker's half of a commit)."""
        tables = (matches, moves, timing, exchanges)
        paths = [
            None if table is None else self.table_dir(name) / f".tmp-{tag}.parquet"
            for name, table in zip(self.TABLES, tables, strict=True)
        ]
        for path, table in zip(paths, tables, strict=True):
            if path is not None and table is not None:
                path.parent.mkdir(exist_ok=True)
                write_part(path, table)
        assert paths[0] is not None
        return paths[0], paths[1], paths[2], paths[3]

    def compact(self, first: int, last: int) -> None:
        """Merge the matches parts of ids first..last (a league that grew:
        one generation's; those of others stay as they are) into one file in
        match-id order, streaming: part by part, except where a retried
        match's part overlaps another's range, whose rows are sorted
        together. The moves and timing files stay where they were written,
        each under a line of its own. The merged file gets its line (and the old matches
        parts theirs as retired), the old files go, then it is renamed into
        place (written under a dot name: plain readers skip it till then)."""
        listing = self.listing("off").require()
        parts = [p for p in listing.parts if first <= p.span[0] and p.span[1] <= last]
        if len(parts) <= 1:
            return
        target = part_name(first, last)
        merged = self.matches_dir / (MERGED + target)
        self._merge(merged, overlapping(parts))
        try:
            half = describe(merged)
        except OSError as e:
            raise storage_error(merged, e) from None
        m = self._manifest()
        merged_away = {p.name for p in parts}
        others = [e for e in m.live.values() if e.name not in merged_away]
        sides = {e.name: e for e in m.live.values() if e.name in merged_away and e.sides}
        own = sides.pop(target, None)
        entry = Entry(
            target,
            half,
            None if own is None else own.moves,
            at=MERGED + target,
            timing=None if own is None else own.timing,
            exchanges=None if own is None else own.exchanges,
        )
        left = [replace(e, matches=None, at=None) for e in sides.values()]
        retired = [p.name for p in parts if p.name != target]
        self._rewrite(manifest.rewritten(m, [*others, *left, entry], retired))  # the commit point
        # The parts it replaces go before it comes in: a plain reader of
        # matches/ (which skips dot files) never sees a match twice.
        self._remove_retired(retired)
        try:
            os.replace(merged, self.matches_dir / target)
        except OSError as e:
            raise storage_error(self.matches_dir / target, e) from None
        self.clean()

    def _remove_retired(self, names: list[str]) -> None:
        for name in names:
            try:
                (self.matches_dir / name).unlink(missing_ok=True)
            except OSError as e:
                raise storage_error(self.matches_dir / name, e) from None

    def _merge(self, path: Path, groups: list[list[Part]]) -> None:
        try:
            with pq.ParquetWriter(
                path, pq.read_schema(groups[0][0].matches), compression=COMPRESSION
            ) as out:
                # Written in row groups of MOVES_ROW_GROUP rows, not one per
                # part: a part's 50 rows a group made the merged file slower
                # to write and to read (4 times, 100,000 matches).
                held: list[pa.Table] = []
                rows = 0
                for group in groups:
                    tables = [pq.ParquetFile(part.matches).read() for part in group]
                    merged = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
                    held.append(merged.sort_by("match_id") if len(tables) > 1 else merged)
                    rows += held[-1].num_rows
                    if rows >= MOVES_ROW_GROUP:
                        table = pa.concat_tables(held)
                        whole = rows - rows % MOVES_ROW_GROUP
                        out.write_table(table.slice(0, whole), row_group_size=MOVES_ROW_GROUP)
                        held, rows = [table.slice(whole)], rows - whole
                if rows:
                    out.write_table(pa.concat_tables(held), row_group_size=MOVES_ROW_GROUP)
        except OSError as e:
            path.unlink(missing_ok=True)
            raise storage_error(path, e) from None

    def drop_damaged(self, moves: bool) -> list[str]:
        """Before a resume: parts whose files are missing or do not read are
        removed, so their matches are played again (store/damage.py)."""
        from .damage import drop_damaged

        before = self._manifest().live
        dropped = drop_damaged(self, moves)
        if before != self._manifest().live and (self.path / layout.CHAIN).exists():
            chained.repaired(self)  # (what went, said in the chain)
        return dropped

    def publish_head(self) -> str | None:
        """The chain's head written into run.json (its public part), and
        returned (None: a directory without a chain)."""
        if not (self.path / layout.CHAIN).exists():
            return None
        meta = self.meta()
        head = chain.head(self.path, meta.get("seed_commitment"))
        if meta.get("chain_head") != head:
            write_run(self.path, {**meta, "chain_head": head})
        return head
