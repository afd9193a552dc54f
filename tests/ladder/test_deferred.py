"""A submission staged now and checked later (the site's upload, then
``ladder serve``'s player): pending with its files in place and nothing of
it run, then validated by the same code as ``ladder submit``'s."""

import fcntl

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.check import Verdict
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import (
    DEFERRED,
    INCOMING,
    Rejected,
    recover,
    submit,
    validate,
)
from bohnarena.ladder.unpack import SubmissionError

from .builders import file_bot


def never(league, entry):
    raise AssertionError("the check ran")


def passes(league, entry):
    return Verdict()


@pytest.fixture
def staged(ladder, tmp_path):
    settings, catalog = load_settings(ladder), Catalog(ladder)
    version, _old = submit(ladder, settings, catalog, "mine", file_bot(tmp_path), None, None, None)
    yield ladder, settings, catalog, version
    catalog.close()


def test_a_deferred_submission_is_pending_and_nothing_of_it_ran(staged):
    ladder, _settings, catalog, version = staged
    assert (version.state, version.reason) == ("pending", DEFERRED)
    assert (ladder / "bots" / version.hash / "mine.py").is_file()
    assert recover(ladder, catalog) == []  # no submitter waits on it: still pending, not killed
    assert catalog.get(version.id).state == "pending"
    assert not any((ladder / INCOMING).iterdir())


def test_validate_makes_it_active_and_retires_the_old(staged, tmp_path):
    ladder, settings, catalog, first = staged
    active, old = validate(ladder, settings, catalog, first, passes)
    assert (active.state, active.reason, old) == ("active", "", None)
    v2 = file_bot(tmp_path, extra="# v2\n")
    second, _ = submit(ladder, settings, catalog, "mine", v2, None, None, None)
    assert catalog.get(first.id).state == "active"  # until the new one passes
    active, old = validate(ladder, settings, catalog, second, passes)
    assert active.id == second.id and old is not None and old.id == first.id
    assert catalog.get(first.id).state == "retired"
    with pytest.raises(SubmissionError, match="is active, not pending"):
        validate(ladder, settings, catalog, second, never)


def test_validate_rejects_what_fails_its_check_and_its_files_go(staged):
    ladder, settings, catalog, version = staged
    with pytest.raises(Rejected, match="is rejected: it crashed") as e:
        validate(ladder, settings, catalog, version, lambda *_: Verdict("it crashed", ["x"]))
    assert e.value.verdict.stderr == ["x"]
    assert (catalog.get(version.id).state, catalog.get(version.id).reason) == (
        "rejected",
        "it crashed",
    )
    assert not (ladder / "bots" / version.hash).exists()


def test_the_same_version_twice_is_refused_while_it_waits(staged, tmp_path):
    ladder, settings, catalog, _version = staged
    with pytest.raises(SubmissionError, match="already has this version pending"):
        submit(ladder, settings, catalog, "mine", file_bot(tmp_path), None, None, None)


def test_a_version_whose_check_was_killed_is_pending_again(staged):
    ladder, settings, catalog, version = staged

    def stopped(league, entry):  # a stop (SIGTERM, Ctrl-C) while it is checked
        assert catalog.get(version.id).state == "validating"
        lock = ladder / INCOMING / f"{version.token}.lock"
        with open(lock) as f, pytest.raises(BlockingIOError):  # the checker holds it
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        validate(ladder, settings, catalog, version, stopped)
    assert (catalog.get(version.id).state, catalog.get(version.id).reason) == ("pending", DEFERRED)
    assert (ladder / "bots" / version.hash / "mine.py").is_file()
    # a kill -9 runs no handler: what it leaves is validating, its lock free
    catalog.set_state(version.id, "validating", DEFERRED)
    with open(ladder / INCOMING / f"{version.token}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a checker at work: left alone
        recover(ladder, catalog)
        assert catalog.get(version.id).state == "validating"
    assert recover(ladder, catalog) == []
    assert (catalog.get(version.id).state, catalog.get(version.id).reason) == ("pending", DEFERRED)


def test_a_check_that_breaks_rejects_it_as_interrupted(staged):
    ladder, settings, catalog, version = staged

    def broken(league, entry):
        raise OSError("no space left")

    with pytest.raises(OSError, match="no space left"):
        validate(ladder, settings, catalog, version, broken)
    assert catalog.get(version.id).state == "rejected"
    assert "interrupted" in catalog.get(version.id).reason
    assert not (ladder / "bots" / version.hash).exists()


def test_recover_changes_no_version_its_holder_just_ended(staged):
    ladder, settings, catalog, version = staged
    stale = catalog.versions(states=("pending",))
    validate(ladder, settings, catalog, version, passes)
    assert not catalog.set_state(stale[0].id, "pending", DEFERRED, was="validating")
    assert catalog.get(version.id).state == "active"
