"""The chain of what was played (docs/fairness.md, "The chain"):
``chain.jsonl``, one line a link, only ever appended. Each commit appends a
link naming its part, the ids of its matches, a digest of their rows and
the hash of each side file (moves, timing, exchanges); a repair before a
resume appends one saying which matches it dropped. Each line holds
``prev``, the hash of the line before it (of the seed commitment for the
first), so the last line's hash, the head, stands for everything before
it: dropping, reordering or rewriting any link changes every hash after
it.

The chain sits beside the manifest, not in it, because a compaction
rewrites the manifest whole (parts merged): the rows a link digests are
found wherever they are now, so a head noted before a compaction checks
after it.

    link(line)  = hex SHA-256(b"bohnarena chain v1\\0" + the line's UTF-8 text)
    genesis     = hex SHA-256(b"bohnarena chain v1\\0" + b"genesis\\0" + seed_commitment)
    rows digest = hex SHA-256 over each row's canonical line, in id order:
                  JSON of the row (keys sorted, no spaces) and a newline
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from . import layout
from .parts import ResultsError, storage_error

DOMAIN = b"bohnarena chain v1\0"
NAME = layout.CHAIN


def link(line: str) -> str:
    """The hash of a chain line (its text without the newline)."""
    return hashlib.sha256(DOMAIN + line.encode("utf-8")).hexdigest()


def genesis(commitment: str | None) -> str:
    """What the first link's ``prev`` is: the chain is bound to the seed
    committed before it (none: the empty text)."""
    return hashlib.sha256(DOMAIN + b"genesis\0" + (commitment or "").encode()).hexdigest()


def row_line(row: Mapping[str, Any]) -> bytes:
    return (json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n").encode()


def digest(rows: Iterable[Mapping[str, Any]]) -> str:
    """The rows digest of ``rows`` (in id order)."""
    h = hashlib.sha256()
    for row in rows:
        h.update(row_line(row))
    return h.hexdigest()


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: int(r["match_id"]))


def spans(ids: Iterable[int]) -> list[list[int]]:
    """``ids`` as [first, last] runs."""
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def expand(runs: Any) -> list[int]:
    return [i for first, last in runs for i in range(int(first), int(last) + 1)]


def commit_body(name: str, rows: list[dict[str, Any]], sides: Mapping[str, str]) -> dict[str, Any]:
    """A commit's link: its part, its matches' ids and rows digest, its side files' hashes."""
    return {
        "commit": name,
        "ids": spans(r["match_id"] for r in rows),
        "rows": digest(rows),
        "sides": dict(sides),
    }


def _lines(path: Path) -> tuple[list[str], int]:
    """The complete lines of the chain file, and the bytes they take (a
    torn last line, an append a crash cut short, is not part of it)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as e:
        raise ResultsError(f"cannot read {path}: {e.strerror or e}") from None
    whole = data.rfind(b"\n") + 1
    text = data[:whole].decode("utf-8", errors="replace")
    return text.split("\n")[:-1], whole


def lines(directory: Path) -> list[str]:
    return _lines(directory / NAME)[0]


def head(directory: Path, commitment: str | None) -> str:
    """The hash of the chain's last line (its genesis when it has none)."""
    found = lines(directory)
    return link(found[-1]) if found else genesis(commitment)


def _last(path: Path) -> tuple[str | None, int]:
    """The chain's last complete line (None: it has none) and where its
    complete lines end, read from the end: a commit costs the same
    whatever the chain's length."""
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        return None, 0
    with f:
        size = f.seek(0, os.SEEK_END)
        tail, at = b"", size
        while at > 0 and tail.count(b"\n") < 2:
            step = min(at, 1 << 16)
            at -= step
            f.seek(at)
            tail = f.read(step) + tail
    whole = at + tail.rfind(b"\n") + 1
    body = tail[: tail.rfind(b"\n")]
    if whole == 0 or whole <= at:
        return None, whole
    return body[body.rfind(b"\n") + 1 :].decode("utf-8", errors="replace"), whole


def append(directory: Path, body: Mapping[str, Any], commitment: str | None) -> str:
    """``body`` appended as a link after the chain's head; returns the new head."""
    path = directory / NAME
    last, whole = _last(path)
    prev = link(last) if last is not None else genesis(commitment)
    line = json.dumps({**body, "prev": prev}, sort_keys=True, separators=(",", ":"))
    try:
        with open(path, "ab") as f:
            f.truncate(whole)  # (a torn line goes)
            f.write(line.encode("utf-8") + b"\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise storage_error(path, e) from None
    return link(line)


@dataclass
class Unit:
    """A link's matches: their ids and the digest of their rows."""

    line: int
    part: str
    ids: list[int]
    rows: str


@dataclass
class Expected:
    """What the chain says the results hold now, and what it found wrong
    in itself (a link not linked to the one before, a line that does not read)."""

    units: dict[int, Unit] = field(default_factory=dict)
    owner: dict[int, int] = field(default_factory=dict)  # match id -> its unit's line
    sides: dict[tuple[str, str], tuple[str | None, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # each line's hash, in order
    twice: list[tuple[int, int, int]] = field(default_factory=list)  # id, first line, again

    def take(self, unit: Unit) -> None:
        for i in unit.ids:
            if i in self.owner:
                self.twice.append((i, self.owner[i], unit.line))
            self.owner[i] = unit.line
        self.units[unit.line] = unit


def replay(found: list[str], commitment: str | None) -> Expected:
    """The chain's lines followed from its genesis."""
    out = Expected()
    prev = genesis(commitment)
    for number, line in enumerate(found, 1):
        try:
            body = json.loads(line)
            if not isinstance(body, dict):
                raise ValueError("not an object")
            if body.get("prev") != prev:
                out.problems.append(
                    f"chain line {number}: not linked to the line before it"
                    " (a link dropped, reordered or rewritten)"
                )
            _follow(out, number, body)
        except (ValueError, KeyError, TypeError) as e:
            out.problems.append(f"chain line {number} does not read ({e})")
        prev = link(line)
        out.links.append(prev)
    return out


def _follow(out: Expected, number: int, body: dict[str, Any]) -> None:
    if "commit" in body:
        out.take(Unit(number, str(body["commit"]), expand(body["ids"]), str(body["rows"])))
        for table, sha in body["sides"].items():
            out.sides[(str(body["commit"]), table)] = (sha, number)
    elif "adopted" in body:  # the results a run began chaining from (written before chains)
        out.take(Unit(number, "adopted", expand(body["ids"]), str(body["rows"])))
        for part, halves in body["sides"].items():
            for table, sha in halves.items():
                out.sides[(part, table)] = (sha, number)
    elif "dropped" in body:  # a repair: matches played again, files written again
        for i in expand(body["dropped"]):
            line = out.owner.pop(i, None)
            if line is not None:
                out.units[line].ids.remove(i)
        for line, rows in body["rows"].items():
            out.units[int(line)].rows = rows
        for part, halves in body["sides"].items():
            for table, sha in halves.items():
                out.sides[(part, table)] = (sha, number)
    else:
        raise ValueError("no commit, adopted or dropped key")
