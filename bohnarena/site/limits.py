"""The site's small SQLite file in the ladder (``site.sqlite``: its logins
too, sessions.py), and each holder's submissions counted in it, so a
restarted server goes on counting: at most
``count`` in any ``window`` seconds. An attempt is counted when its upload
starts (one that fails counts too: the limit is on the work it asks for)."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

SITE_DB = "site.sqlite"


@dataclass(frozen=True)
class RateLimit:
    count: int = 10
    window: float = 3600.0


def site_db(ladder: Path) -> sqlite3.Connection:
    """A connection to the ladder's ``site.sqlite`` (autocommit: each caller
    opens its own transactions; WAL: readers never wait for a writer)."""
    db = sqlite3.connect(ladder / SITE_DB, timeout=30, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    return db


class Submissions:
    def __init__(self, ladder: Path, limit: RateLimit) -> None:
        self.ladder, self.limit = ladder, limit
        with closing(site_db(ladder)) as db:
            db.execute("CREATE TABLE IF NOT EXISTS submissions (holder TEXT NOT NULL, at REAL)")
            db.execute("CREATE INDEX IF NOT EXISTS by_holder ON submissions (holder, at)")

    def take(self, holder: str, now: float | None = None) -> float | None:
        """Count one submission of ``holder``: None when it is within the
        limit, else the seconds until the next one may come (nothing counted)."""
        now = time.time() if now is None else now
        with closing(site_db(self.ladder)) as db:
            db.execute("BEGIN IMMEDIATE")
            since = now - self.limit.window
            rows = db.execute(
                "SELECT at FROM submissions WHERE holder = ? AND at > ? ORDER BY at",
                (holder, since),
            ).fetchall()
            if len(rows) >= self.limit.count:
                db.execute("ROLLBACK")
                first: float = rows[len(rows) - self.limit.count][0]
                return first - since
            db.execute("DELETE FROM submissions WHERE at <= ?", (since,))
            db.execute("INSERT INTO submissions VALUES (?, ?)", (holder, now))
            db.execute("COMMIT")
            return None
