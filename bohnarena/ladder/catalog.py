"""A ladder's catalog: its entries, their versions and each version's
rating after each ``ladder run``, in SQLite (WAL: readers never wait for a
writer). Match data stays in the results directory's Parquet files.

A version is content-addressed (its hash is the hash of what was
submitted) and moves through ``pending`` (copied in) -> ``validating``
(its conformance check) -> ``active`` or ``rejected``; an active version
becomes ``retired`` when a new version of its entry is accepted, or when
the organiser retires it, and ``suspended`` when it faults too often in a
run (season.py), until the organiser reinstates it. Every change of state
is one transaction."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .settings import LadderError

CATALOG = "catalog.sqlite"
#: Bumped when the tables change; a catalog of another version is refused.
SCHEMA_VERSION = 2
STATES = ("pending", "validating", "rejected", "active", "retired", "suspended")
VERSIONS = f"""
CREATE TABLE {{table}} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL REFERENCES entries(name),
    hash TEXT NOT NULL,
    kind TEXT NOT NULL,
    entry TEXT NOT NULL,
    source TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ({", ".join(f"'{s}'" for s in STATES)})),
    reason TEXT NOT NULL DEFAULT '',
    submitted REAL NOT NULL,
    changed REAL NOT NULL,
    token TEXT NOT NULL DEFAULT ''
);
"""
SCHEMA = f"""
CREATE TABLE entries (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL
);
{VERSIONS.format(table="versions")}
CREATE INDEX versions_by_name ON versions(name, state);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    played INTEGER NOT NULL,
    total INTEGER NOT NULL
);
CREATE TABLE ratings (
    run INTEGER NOT NULL REFERENCES runs(id),
    version INTEGER NOT NULL REFERENCES versions(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    score REAL NOT NULL,
    matches INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    PRIMARY KEY (run, version)
);
PRAGMA user_version = {SCHEMA_VERSION};
"""


@dataclass(frozen=True)
class Version:
    id: int
    name: str
    hash: str
    kind: str  # file, package, command, wheel, sdist
    entry: dict[str, Any]  # how it runs, relative to its directory (submission.py)
    source: str  # what was submitted (its file or directory name)
    state: str
    reason: str
    submitted: float
    changed: float
    token: str = ""

    @property
    def bot(self) -> str:
        """Its name in the ladder's league: the entry's and its hash's start."""
        return f"{self.name}.{self.hash[:8]}"


@dataclass(frozen=True)
class Snapshot:
    run: int
    finished: float
    bot: str
    state: str
    mu: float
    sigma: float
    score: float
    matches: int
    wins: int


class Catalog:
    def __init__(self, ladder: Path, create: bool = False) -> None:
        path = ladder / CATALOG
        if not create and not path.is_file():
            raise LadderError(f"{ladder} is not a ladder (no {CATALOG}): bohnarena ladder init")
        try:
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            found = self.db.execute("PRAGMA user_version").fetchone()[0]
            if create and found == 0:
                self.db.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")
                found = SCHEMA_VERSION
            if found == 1:
                found = self._upgrade()
        except sqlite3.Error as e:
            raise LadderError(f"cannot open the catalog {path}: {e}") from None
        if found != SCHEMA_VERSION:
            self.db.close()
            raise LadderError(
                f"{path} is a catalog of schema version {found}; this bohnarena reads "
                f"version {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self.db.close()

    def _upgrade(self) -> int:
        """A catalog of schema 1 brought to 2 (the state ``suspended``): its
        versions table made anew, as SQLite changes a CHECK, in one transaction."""
        self.db.execute("PRAGMA foreign_keys = OFF")  # (the ratings keep pointing at the ids)
        self.db.executescript(
            "BEGIN IMMEDIATE;"
            f" {VERSIONS.format(table='versions_2')}"
            " INSERT INTO versions_2 SELECT * FROM versions;"
            " DROP TABLE versions;"
            " ALTER TABLE versions_2 RENAME TO versions;"
            " CREATE INDEX versions_by_name ON versions(name, state);"
            f" PRAGMA user_version = {SCHEMA_VERSION};"
            " COMMIT;"
        )
        self.db.execute("PRAGMA foreign_keys = ON")
        return SCHEMA_VERSION

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One writer at a time (BEGIN IMMEDIATE): all of it or nothing."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def add(
        self,
        name: str,
        digest: str,
        kind: str,
        entry: dict[str, Any],
        source: str,
        token: str,
        reason: str = "",
    ) -> int:
        """A new version of ``name`` (the entry made if new), pending;
        ``token``: its submitter's, whose lock says it still runs (submission.py)."""
        now, text = time.time(), json.dumps(entry, sort_keys=True)
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO entries VALUES (?, ?)", (name, now))
            cur = db.execute(
                "INSERT INTO versions"
                " (name, hash, kind, entry, source, state, reason, submitted, changed, token)"
                " VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
                (name, digest, kind, text, source, reason, now, now, token),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def set_state(self, version: int, state: str, reason: str = "", was: str = "") -> bool:
        """``was``: only if the version is in that state. Whether it changed."""
        with self.transaction() as db:
            return self._set(db, version, state, reason, was)

    @staticmethod
    def _set(db: sqlite3.Connection, version: int, state: str, reason: str, was: str = "") -> bool:
        cur = db.execute(
            "UPDATE versions SET state = ?, reason = ?, changed = ? WHERE id = ?"
            + (" AND state = ?" if was else ""),
            (state, reason, time.time(), version, *([was] if was else [])),
        )
        return cur.rowcount > 0

    def activate(self, version: int) -> Version | None:
        """``version`` active and its entry's active version (returned) retired,
        at once (a suspended one too: replaced, it is not reinstated)."""
        with self.transaction() as db:
            new = self._get(db, version)
            old = self._active_of(db, new.name)
            if old is not None:
                self._set(db, old.id, "retired", f"replaced by {new.hash[:8]}")
            for gone in self._of(db, new.name, "suspended"):
                self._set(db, gone.id, "retired", f"replaced by {new.hash[:8]}")
            self._set(db, version, "active", "")
            return old

    def suspend(self, version: int, reason: str) -> None:
        """An active ``version`` out of the league until it is reinstated."""
        with self.transaction() as db:
            if self._get(db, version).state == "active":
                self._set(db, version, "suspended", reason)

    def reinstate(self, name: str) -> Version:
        """Entry ``name``'s suspended version active again (returned)."""
        with self.transaction() as db:
            found = self._of(db, name, "suspended")
            if not found:
                raise LadderError(f"{name!r} has no suspended version to reinstate")
            self._set(db, found[-1].id, "active", "")
            return found[-1]

    def retire(self, name: str, reason: str) -> Version:
        """Entry ``name``'s active (or suspended) version retired (returned)."""
        with self.transaction() as db:
            old = self._active_of(db, name) or next(iter(self._of(db, name, "suspended")), None)
            if old is None:
                raise LadderError(f"{name!r} has no active version to retire")
            self._set(db, old.id, "retired", reason)
            return old

    def versions(self, name: str | None = None, states: Sequence[str] = STATES) -> list[Version]:
        """Versions in submission order (the league's bot order: kept bots keep it)."""
        marks = ", ".join("?" * len(states))
        query = f"SELECT * FROM versions WHERE state IN ({marks})"
        args: list[Any] = [*states]
        if name is not None:
            query += " AND name = ?"
            args.append(name)
        return [_version(r) for r in self.db.execute(query + " ORDER BY id", args)]

    def active(self) -> list[Version]:
        return self.versions(states=("active",))

    def get(self, version: int) -> Version:
        return self._get(self.db, version)

    @staticmethod
    def _get(db: sqlite3.Connection, version: int) -> Version:
        return _version(db.execute("SELECT * FROM versions WHERE id = ?", (version,)).fetchone())

    @staticmethod
    def _of(db: sqlite3.Connection, name: str, state: str) -> list[Version]:
        rows = db.execute(
            "SELECT * FROM versions WHERE name = ? AND state = ? ORDER BY id", (name, state)
        )
        return [_version(r) for r in rows]

    @classmethod
    def _active_of(cls, db: sqlite3.Connection, name: str) -> Version | None:
        found = cls._of(db, name, "active")
        return found[0] if found else None

    def record_run(
        self, started: float, played: int, total: int, ratings: Sequence[tuple[int, Any]]
    ) -> int:
        """A ``ladder run`` and each version's rating after it (``ratings``:
        (version id, a BotStanding)), in one transaction."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO runs (started, finished, played, total) VALUES (?, ?, ?, ?)",
                (started, time.time(), played, total),
            )
            assert cur.lastrowid is not None
            db.executemany(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(cur.lastrowid, v, s.mu, s.sigma, s.score, s.matches, s.wins) for v, s in ratings],
            )
            return cur.lastrowid

    def last_run(self) -> float | None:
        """When the last ``ladder run`` ended (None: none has)."""
        row = self.db.execute("SELECT MAX(finished) FROM runs").fetchone()
        return None if row is None else row[0]

    def history(self, name: str | None = None) -> list[Snapshot]:
        """Each version's rating after each run, oldest run first."""
        query = (
            "SELECT r.run, runs.finished, v.name, v.hash, v.state, r.mu, r.sigma, r.score,"
            " r.matches, r.wins FROM ratings r JOIN runs ON runs.id = r.run"
            " JOIN versions v ON v.id = r.version"
        )
        args: tuple[str, ...] = ()
        if name is not None:
            query, args = query + " WHERE v.name = ?", (name,)
        rows = self.db.execute(query + " ORDER BY r.run, v.id", args)
        return [
            Snapshot(run, fin, f"{n}.{h[:8]}", st, mu, sg, sc, m, w)
            for run, fin, n, h, st, mu, sg, sc, m, w in rows
        ]

    def last_ratings(self) -> dict[int, tuple[float, float, float, int, int]]:
        """Each version's rating after the last run that rated it."""
        rows = self.db.execute(
            "SELECT version, mu, sigma, score, matches, wins FROM ratings r"
            " WHERE run = (SELECT MAX(run) FROM ratings WHERE version = r.version)"
        )
        return {v: (mu, sg, sc, m, w) for v, mu, sg, sc, m, w in rows}


def _version(row: tuple[Any, ...]) -> Version:
    vid, name, digest, kind, entry, source, state, reason, submitted, changed, token = row
    return Version(
        vid, name, digest, kind, json.loads(entry), source, state, reason, submitted, changed, token
    )
