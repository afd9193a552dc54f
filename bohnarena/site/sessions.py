"""Logins kept on the server, in the ladder's ``site.sqlite``: a browser's
cookie is a random session id (256 bits) and the table keeps only its
SHA-256, the holder and the hash of the token it logged in with, and when
it ends. So the cookie carries no token, a logout or a revoke ends the
login at once (a copied cookie included), and a restart keeps them."""

from __future__ import annotations

import hashlib
import secrets
import time
from contextlib import closing
from pathlib import Path

from ..ladder.tokens import Holder, TokenBook, TokenError, digest
from .limits import site_db

#: How long a login lasts.
SESSION_SECONDS = 12 * 3600
#: The longest cookie value taken as a session id (ours are 43 characters).
LONGEST_ID = 128
#: The most logins a holder keeps at once: one more ends its oldest (so a
#: token's holder logging in again and again cannot fill ``site.sqlite``).
MOST_SESSIONS = 20


def _key(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()


class Sessions:
    def __init__(self, ladder: Path) -> None:
        self.ladder = ladder
        with closing(site_db(ladder)) as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS sessions (id_sha256 TEXT PRIMARY KEY, "
                "holder TEXT NOT NULL, token_sha256 TEXT NOT NULL, until REAL NOT NULL)"
            )

    def open(
        self, holder: Holder, token: str, now: float | None = None, replacing: str | None = None
    ) -> str:
        """A new login of ``holder`` (who showed ``token``): its cookie's value.
        ``replacing``: the browser's previous session id, ended (a copy of
        it must not outlive the login that took its place)."""
        now = time.time() if now is None else now
        session = secrets.token_urlsafe(32)
        with closing(site_db(self.ladder)) as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM sessions WHERE until <= ?", (now,))
            if replacing and len(replacing) <= LONGEST_ID:
                db.execute("DELETE FROM sessions WHERE id_sha256 = ?", (_key(replacing),))
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?)",
                (_key(session), holder.name, digest(token), now + SESSION_SECONDS),
            )
            db.execute(
                "DELETE FROM sessions WHERE holder = ? AND rowid NOT IN (SELECT rowid "
                "FROM sessions WHERE holder = ? ORDER BY until DESC, rowid DESC LIMIT ?)",
                (holder.name, holder.name, MOST_SESSIONS),
            )
            db.execute("COMMIT")
        return session

    def holder(self, session: str | None, now: float | None = None) -> Holder | None:
        """Who is logged in by ``session`` (None: no such login, ended or
        expired, or its token revoked or replaced since)."""
        if not session or len(session) > LONGEST_ID:
            return None
        now = time.time() if now is None else now
        with closing(site_db(self.ladder)) as db:
            row = db.execute(
                "SELECT holder, token_sha256 FROM sessions WHERE id_sha256 = ? AND until > ?",
                (_key(session), now),
            ).fetchone()
        if row is None:
            return None
        name, token_sha256 = row
        try:
            holder = TokenBook(self.ladder).holder_of_digest(token_sha256)
        except TokenError:
            return None
        return holder if holder is not None and holder.name == name else None

    def close(self, session: str | None) -> None:
        """End the login ``session`` (nothing if there is none)."""
        if session and len(session) <= LONGEST_ID:
            with closing(site_db(self.ladder)) as db:
                db.execute("DELETE FROM sessions WHERE id_sha256 = ?", (_key(session),))
