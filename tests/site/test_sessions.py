"""Logins kept on the server, without one: a session id is random and
kept only as its hash; it names its holder until it expires, is closed,
or its token is revoked or replaced."""

import sqlite3

from bohnarena.ladder.tokens import TokenBook
from bohnarena.site.sessions import MOST_SESSIONS, SESSION_SECONDS, Sessions


def test_a_session_names_its_holder_until_it_ends(tmp_path):
    book = TokenBook(tmp_path)
    token = book.add("ann")
    ann = book.holder(token)
    sessions = Sessions(tmp_path)
    session = sessions.open(ann, token, now=1000.0)
    assert token not in session and len(session) >= 43
    assert sessions.holder(session, now=1000.0) == ann
    assert Sessions(tmp_path).holder(session, now=1000.0) == ann  # (a restart keeps it)
    assert sessions.holder(session, now=1000.0 + SESSION_SECONDS) is None
    other = sessions.open(ann, token, now=1000.0)
    assert other != session
    sessions.close(session)
    assert sessions.holder(session, now=1000.0) is None
    assert sessions.holder(other, now=1000.0) == ann  # (another browser stays)


def test_a_revoked_or_replaced_token_ends_its_sessions(tmp_path):
    book = TokenBook(tmp_path)
    token = book.add("ann")
    sessions = Sessions(tmp_path)
    session = sessions.open(book.holder(token), token, now=1000.0)
    book.revoke("ann")
    assert sessions.holder(session, now=1000.0) is None
    book.add("ann")  # a new token for the same holder does not bring it back
    assert sessions.holder(session, now=1000.0) is None


def test_the_table_keeps_no_session_id_nor_token(tmp_path):
    book = TokenBook(tmp_path)
    token = book.add("ann")
    sessions = Sessions(tmp_path)
    session = sessions.open(book.holder(token), token)
    with sqlite3.connect(tmp_path / "site.sqlite") as db:
        rows = db.execute("SELECT * FROM sessions").fetchall()
    assert len(rows) == 1 and not {session, token} & {str(v) for v in rows[0]}


def test_junk_and_expired_sessions(tmp_path):
    book = TokenBook(tmp_path)
    token = book.add("ann")
    sessions = Sessions(tmp_path)
    old = sessions.open(book.holder(token), token, now=0.0)
    for junk in (None, "", "x", "a" * 5000, token, "\udcff"):
        assert sessions.holder(junk) is None
        sessions.close(junk)
    sessions.open(book.holder(token), token, now=SESSION_SECONDS + 1.0)  # sweeps the expired
    with sqlite3.connect(tmp_path / "site.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    assert sessions.holder(old, now=1.0) is None


def test_a_new_login_ends_the_one_it_replaces(tmp_path):
    """A browser that logs in again ends its previous session: a copy of
    that cookie would outlive every logout its holder could make."""
    book = TokenBook(tmp_path)
    token = book.add("ann")
    ann, sessions = book.holder(token), Sessions(tmp_path)
    first = sessions.open(ann, token, now=1000.0)
    elsewhere = sessions.open(ann, token, now=1000.0)
    second = sessions.open(ann, token, now=1000.0, replacing=first)
    assert sessions.holder(first, now=1000.0) is None
    assert sessions.holder(second, now=1000.0) == ann
    assert sessions.holder(elsewhere, now=1000.0) == ann  # (another browser's stays)
    for junk in ("", "x", "a" * 5000, "\udcff"):
        sessions.open(ann, token, now=1000.0, replacing=junk)


def test_a_holder_keeps_a_bounded_number_of_logins(tmp_path):
    """Logging in again and again ends the oldest logins, not the disk; no
    other holder's."""
    book = TokenBook(tmp_path)
    ann_token, bob_token = book.add("ann"), book.add("bob")
    ann, bob, sessions = book.holder(ann_token), book.holder(bob_token), Sessions(tmp_path)
    bobs = sessions.open(bob, bob_token, now=1000.0)
    opened = [sessions.open(ann, ann_token, now=1000.0 + i) for i in range(MOST_SESSIONS + 5)]
    assert [sessions.holder(s, now=2000.0) for s in opened[:5]] == [None] * 5
    assert all(sessions.holder(s, now=2000.0) == ann for s in opened[5:])
    assert sessions.holder(bobs, now=2000.0) == bob
    with sqlite3.connect(tmp_path / "site.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == MOST_SESSIONS + 1
