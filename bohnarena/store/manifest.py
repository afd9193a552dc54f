"""The manifest of a results directory: what each committed part holds.

``manifest.jsonl`` is a header line, then a line per part as it was
committed: its name (the id range), and for its matches file and its moves
file the rows, the size and a SHA-256 of the bytes. A commit appends its
line (the commit point: a part counts as done once its line is in); a
compaction, a resume that drops damaged parts and a merge rewrite the file
whole and bump the header's generation, which tells a reader that parts it
listed may have moved. Readers check the parts on disk against it: a part
edited, missing, or on disk without a line (a copy) is refused by name.

A part has up to three files: its matches, its moves and its timing (each
decision's think time; version 3). They need not share a line (version
2): a compaction merges the matches files of a generation into one and
leaves every moves and timing file where its batch wrote it, under a line
of its own with no matches half (its matches are in the merged file whose
range holds it).

The check catches any edit made without rewriting the manifest. Whoever
rewrites it as well is caught by ``replay --verify-all`` where results and
moves disagree (docs/logs.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import BohnarenaError
from . import layout

NAME = layout.MANIFEST
#: The manifest's own version (run.json's "manifest" says a run keeps one).
#: 2: a line may have no matches half (a moves file a compaction left in place);
#: 3: a line may have a timing half.
VERSION = 3
#: The versions this bohnarena reads (an older one is rewritten as 3 by the next run).
READS = (1, 2, 3)
TABLES = layout.TABLES
#: The tables whose files stay where their batch wrote them (compaction merges matches only).
SIDES = layout.SIDES
PART = re.compile(r"^part-(\d{9})-(\d{9})\.parquet$")
MERGED = ".tmp-merged-"  # a compaction's merged part before its renames


@dataclass(frozen=True)
class Half:
    """One file of a part (its matches, moves or timing) as committed."""

    rows: int
    size: int
    sha256: str

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "bytes": self.size, "sha256": self.sha256}


@dataclass(frozen=True)
class Entry:
    """A committed part: ``name`` is part-FIRST-LAST.parquet in each table it has a file in."""

    name: str
    #: None: side files whose matches are in a merged matches file (a compaction's)
    matches: Half | None
    moves: Half | None  # None: played without move logs, or its moves are in other parts
    #: Where its file is until it is renamed to ``name`` (a compaction's
    #: merged matches file, a moves file written again without the records
    #: of a lost row); a reader looks there first, in each table.
    at: str | None = None
    #: None: played without logs, or by a bohnarena before timing (log format 3)
    timing: Half | None = None
    #: None: no seat of its matches plays in words (docs/logs.md, "exchanges")
    exchanges: Half | None = None

    @property
    def span(self) -> tuple[int, int]:
        m = PART.match(self.name)
        assert m is not None
        return int(m[1]), int(m[2])

    def half(self, table: str) -> Half | None:
        half: Half | None = getattr(self, table)
        return half

    def with_half(self, table: str, half: Half | None) -> Entry:
        """This entry with ``table``'s file as ``half``."""
        halves = {t: self.half(t) for t in TABLES} | {table: half}
        return Entry(
            self.name,
            halves["matches"],
            halves["moves"],
            self.at,
            halves["timing"],
            halves["exchanges"],
        )

    @property
    def sides(self) -> bool:
        """It has a moves, a timing or an exchanges file."""
        return any(self.half(t) is not None for t in SIDES)

    def line(self) -> str:
        body: dict[str, Any] = {
            "part": self.name,
            "matches": None if self.matches is None else self.matches.as_json(),
            "moves": None if self.moves is None else self.moves.as_json(),
        }
        for side in ("timing", "exchanges"):
            if (half := self.half(side)) is not None:
                body[side] = half.as_json()
        if self.at is not None:
            body["at"] = self.at
        return json.dumps(body) + "\n"


@dataclass
class Manifest:
    generation: int = 0
    live: dict[str, Entry] = field(default_factory=dict)  # by name, in commit order
    #: Parts a compaction replaced whose files may still be there (never read).
    retired: set[str] = field(default_factory=set)
    #: The last line was cut short (an append a crash interrupted): not committed.
    torn: bool = False
    #: The version its header says (a run rewrites an older one before it appends).
    version: int = VERSION
    #: What its lines hold that no run wrote: a part listed twice, a half
    #: its header's version has not (``replay --verify-all`` reports them).
    oddities: list[str] = field(default_factory=list)

    def known(self, table: str, name: str) -> bool:
        """A file ``name`` in ``table`` that some line accounts for."""
        entry = self.live.get(name)
        return name in self.retired or (entry is not None and entry.half(table) is not None)

    def leftover(self, table: str, name: str) -> bool:
        """A file a compaction replaced (never read; the next run removes it)."""
        entry = self.live.get(name)
        return name in self.retired and (entry is None or entry.half(table) is None)

    def owner(self, entry: Entry) -> Entry | None:
        """The matches file that holds the matches of a moves file without
        one of its own: the widest whose range holds it (its compaction's)."""
        first, last = entry.span
        holding = [
            e
            for e in self.live.values()
            if e.matches is not None and e.span[0] <= first and last <= e.span[1]
        ]
        return max(holding, key=lambda e: e.span[1] - e.span[0], default=None)

    def text(self) -> str:
        head = json.dumps({"manifest": VERSION, "generation": self.generation}) + "\n"
        lines = [e.line() for e in self.live.values()]
        lines += [
            json.dumps({"retired": n}) + "\n"
            for n in sorted(self.retired)
            if any(self.leftover(t, n) for t in TABLES)
        ]
        return head + "".join(lines)


class ManifestError(BohnarenaError, ValueError):
    """A manifest that does not read (store.py turns it into a ResultsError)."""


def _half(value: Any) -> Half:
    return Half(int(value["rows"]), int(value["bytes"]), str(value["sha256"]))


def _part(value: Any) -> str:
    """A part's name, never a path elsewhere (a line is read, then acted on)."""
    if not isinstance(value, str) or not PART.match(value):
        raise ValueError(f"{value!r} is not a part's name")
    return value


def parse(text: str) -> Manifest:
    lines = text.split("\n")
    torn = lines[-1] != ""  # an unfinished append: everything before it stands
    lines = lines[:-1]
    if not lines:
        raise ManifestError("it is empty")
    try:
        head = json.loads(lines[0])
        if head.get("manifest") not in READS:
            raise ManifestError(
                f"it is version {head.get('manifest')}; this bohnarena reads versions"
                f" {', '.join(map(str, READS))}"
            )
        manifest = Manifest(int(head["generation"]), torn=torn, version=head["manifest"])
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ManifestError(f"line 1 does not read ({e})") from None
    for number, line in enumerate(lines[1:], 2):
        try:
            body = json.loads(line)
            if "retired" in body:
                manifest.retired.add(_part(body["retired"]))
                continue
            name, at = _part(body["part"]), body.get("at")
            halves = {t: body[t] if t in ("matches", "moves") else body.get(t) for t in TABLES}
            if at not in (None, MERGED + name):
                raise ValueError(f"'at' {at!r} is not its merged file")
            if all(h is None for h in halves.values()):
                raise ValueError("a part with no file")
            entry = Entry(
                name,
                None if halves["matches"] is None else _half(halves["matches"]),
                None if halves["moves"] is None else _half(halves["moves"]),
                at,
                None if halves["timing"] is None else _half(halves["timing"]),
                None if halves["exchanges"] is None else _half(halves["exchanges"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ManifestError(f"line {number} does not read ({e})") from None
        manifest.oddities += _odd(manifest, entry, number)
        manifest.live[entry.name] = entry  # (a part listed twice: its last line)
    return manifest


def _odd(manifest: Manifest, entry: Entry, number: int) -> list[str]:
    """What line ``number`` holds that no run of its header's version wrote."""
    odd = []
    was = manifest.live.get(entry.name)
    # (a batch whose every match errored has a part of no rows: played again
    # whole, its retry's part has its name)
    if was is not None and (was.matches is None or was.matches.rows):
        odd.append(f"line {number} lists {entry.name} again")
    if entry.timing is not None and manifest.version < 3:
        odd.append(
            f"line {number} has a timing half, which manifest version {manifest.version} has not"
        )
    if entry.matches is None and manifest.version < 2:
        odd.append(f"line {number} has no matches half: every line of manifest version 1 has one")
    return odd


def rewritten(old: Manifest | None, live: Iterable[Entry], retired: Iterable[str] = ()) -> Manifest:
    """The manifest that replaces ``old``: a generation on."""
    return Manifest(
        0 if old is None else old.generation + 1,
        {e.name: e for e in live},
        set(retired),
    )


def describe(path: Path) -> Half:
    """What a part's file is: rows (from its footer), size and hash."""
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
        size = f.tell()
    return Half(pq.read_metadata(path).num_rows, size, digest)


def difference(path: Path, half: Half, hash_it: bool, rows_too: bool = False) -> str | None:
    """How the file at ``path`` differs from what was committed, or None.
    ``hash_it`` False compares the size only (a cheap look at a moves part);
    ``rows_too``: the rows its footer says too (a line edited, its hash not)."""
    # one open file: what is sized is what is hashed (never blocking on a
    # FIFO, never reading a device forever)
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
        found = os.fstat(f.fileno())
        if not stat.S_ISREG(found.st_mode):
            return "it is not a regular file"
        size = found.st_size
        if size == half.size and (
            not hash_it or hashlib.file_digest(f, "sha256").hexdigest() == half.sha256
        ):
            if not rows_too or (rows := _rows(path)) == half.rows:
                return None
            return f"{rows} rows, its line says {half.rows}"
    rows = _rows(path)
    if rows is None:
        return f"it does not read: corrupt or truncated? {half.rows} rows were committed"
    if rows != half.rows:
        return f"{rows} rows, {half.rows} committed"
    if size != half.size:
        return f"{size:,} bytes, {half.size:,} committed"
    return "the same size, other bytes"


def _rows(path: Path) -> int | None:
    """The rows a Parquet file's footer says it holds (None: it does not read)."""
    try:
        return int(pq.read_metadata(path).num_rows)
    except (pa.ArrowException, OSError):
        return None
