"""The catalog: SQLite in WAL mode with a schema version; a version's
states; the old version retired in the transaction that makes the new one
active; the ratings kept after each run."""

import sqlite3

import pytest

from bohnarena.ladder import catalog
from bohnarena.ladder.catalog import CATALOG, SCHEMA_VERSION, Catalog
from bohnarena.ladder.settings import LadderError
from bohnarena.rating.skill import BotStanding


def test_a_new_catalog_is_wal_with_its_schema_version(tmp_path):
    Catalog(tmp_path, create=True).close()
    db = sqlite3.connect(tmp_path / CATALOG)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_catalog_of_another_schema_version_is_refused(tmp_path):
    Catalog(tmp_path, create=True).close()
    db = sqlite3.connect(tmp_path / CATALOG)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(LadderError, match="schema version"):
        Catalog(tmp_path)
    with pytest.raises(LadderError, match="not a ladder"):
        Catalog(tmp_path / "nowhere")


def test_a_new_version_retires_the_old_at_once(tmp_path):
    c = Catalog(tmp_path, create=True)
    v1 = c.add("mine", "a" * 32, "file", {"file": "m.py", "attr": "M"}, "m.py", "t1")
    assert c.get(v1).state == "pending" and c.active() == []
    assert c.activate(v1) is None
    v2 = c.add("mine", "b" * 32, "file", {"file": "m.py", "attr": "M"}, "m.py", "t2")
    other = c.add("theirs", "c" * 32, "file", {"file": "t.py", "attr": "T"}, "t.py", "t3")
    c.activate(other)
    old = c.activate(v2)
    assert old is not None and old.id == v1
    assert [v.bot for v in c.active()] == ["mine.bbbbbbbb", "theirs.cccccccc"]
    assert c.get(v1).state == "retired" and c.get(v1).reason == "replaced by bbbbbbbb"
    assert c.retire("theirs", "gone").bot == "theirs.cccccccc"
    with pytest.raises(LadderError, match="no active version"):
        c.retire("theirs", "again")


def test_a_failed_transaction_changes_nothing(tmp_path):
    c = Catalog(tmp_path, create=True)
    v1 = c.add("mine", "a" * 32, "file", {}, "m.py", "t1")

    def activate_then_fail():
        with c.transaction() as db:
            db.execute("UPDATE versions SET state = 'active' WHERE id = ?", (v1,))
            raise RuntimeError

    with pytest.raises(RuntimeError):
        activate_then_fail()
    assert c.get(v1).state == "pending"


def test_ratings_are_kept_per_version_per_run(tmp_path):
    c = Catalog(tmp_path, create=True)
    v1 = c.add("mine", "a" * 32, "file", {}, "m.py", "t1")
    v2 = c.add("theirs", "b" * 32, "file", {}, "t.py", "t2")
    c.record_run(0.0, 8, 8, [(v1, BotStanding("x", 30, 2, 8)), (v2, BotStanding("y", 20, 2, 8))])
    c.record_run(1.0, 0, 8, [(v1, BotStanding("x", 31, 1, 8))])
    rows = [(s.run, s.bot, s.mu) for s in c.history()]
    assert rows == [(1, "mine.aaaaaaaa", 30), (1, "theirs.bbbbbbbb", 20), (2, "mine.aaaaaaaa", 31)]
    assert [s.run for s in c.history("theirs")] == [1]
    assert c.last_ratings()[v1][0] == 31 and c.last_ratings()[v2][0] == 20


def test_a_suspended_version_leaves_the_league_until_it_is_reinstated(tmp_path):
    c = Catalog(tmp_path, create=True)
    v1 = c.add("mine", "a" * 32, "file", {}, "m.py", "t1")
    c.activate(v1)
    c.suspend(v1, "faulted in 8 of its 8 matches")
    assert c.active() == [] and c.get(v1).state == "suspended"
    assert c.get(v1).reason == "faulted in 8 of its 8 matches"
    assert c.reinstate("mine").id == v1
    assert [v.id for v in c.active()] == [v1] and c.get(v1).reason == ""
    with pytest.raises(LadderError, match="no suspended version to reinstate"):
        c.reinstate("mine")
    # A new version replaces a suspended one for good; one may be retired.
    c.suspend(v1, "again")
    v2 = c.add("mine", "b" * 32, "file", {}, "m.py", "t2")
    c.activate(v2)
    assert c.get(v1).state == "retired" and c.get(v1).reason == "replaced by bbbbbbbb"
    c.suspend(v2, "bad")
    assert c.retire("mine", "gone").id == v2 and c.get(v2).state == "retired"


def test_a_catalog_of_schema_1_is_upgraded_with_its_versions_and_ratings(tmp_path):
    old = tmp_path / CATALOG
    db = sqlite3.connect(old)
    script = catalog.SCHEMA.replace(", 'suspended'", "").replace(
        "user_version = 2", "user_version = 1"
    )
    db.executescript(script)
    db.execute("INSERT INTO entries VALUES ('mine', 0)")
    db.execute(
        "INSERT INTO versions (name, hash, kind, entry, source, state, submitted, changed)"
        " VALUES ('mine', ?, 'file', '{}', 'm.py', 'active', 0, 0)",
        ("a" * 32,),
    )
    db.execute("INSERT INTO runs VALUES (1, 0, 1, 8, 8)")
    db.execute("INSERT INTO ratings VALUES (1, 1, 30, 2, 24, 8, 3)")
    db.commit()
    db.close()
    c = Catalog(tmp_path)
    assert c.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    (v1,) = c.active()
    c.suspend(v1.id, "bad")  # the new state is allowed
    assert c.get(v1.id).state == "suspended" and c.last_ratings()[v1.id][0] == 30
    assert c.db.execute("PRAGMA foreign_key_check").fetchall() == []
    v2 = c.add("mine", "b" * 32, "file", {}, "m.py", "t2")
    assert v2 == 2  # ids go on from where they were
