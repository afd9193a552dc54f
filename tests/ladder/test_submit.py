"""Submissions refused before anything of them runs, and submissions whose
submitter was killed: found and rejected, their files removed. These need
no sandbox: the check is never reached (tests/ladder/test_season.py plays it)."""

import fcntl
import json
from functools import partial

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.check import Verdict, validate
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import INCOMING, recover, submit
from bohnarena.ladder.unpack import SubmissionError

from .builders import file_bot, wheel
from .conftest import run


def never(league, entry):
    raise AssertionError("the check ran")


def state(ladder):
    """What a submission may change: the catalog's rows and the files."""
    c = Catalog(ladder)
    rows = [(v.id, v.state) for v in c.versions()]
    c.close()
    files = sorted(str(p.relative_to(ladder)) for p in ladder.rglob("*") if ".lock" not in p.name)
    return rows, files


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda t: [str(wheel(t, t / "m", requires="requests"))], "requires requests"),
        (lambda t: [str(t / "nothing.whl")], "does not exist"),
        (lambda t: [str(t / "mine.py")], "name the bot's class"),
        (lambda t: [str(t), "--command", "cat /etc/shadow"], "outside the bot's directory"),
        (lambda t: [str(t), "--command", "bash ../league.toml"], "outside the bot's directory"),
        (lambda t: [file_bot(t).rpartition(":")[0] + ":Mine", "--bot", "x"], None),
    ],
)
def test_a_refused_submission_changes_nothing(ladder, tmp_path, make, match):
    (tmp_path / "mine.py").write_text("x = 1\n")
    before = state(ladder)
    args = make(tmp_path)
    if match is None:  # the control: this one gets as far as its check
        settings, catalog = load_settings(ladder), Catalog(ladder)
        with pytest.raises(AssertionError, match="the check ran"):
            submit(ladder, settings, catalog, "mine", args[0], None, None, never)
        assert [v.state for v in catalog.versions()] == ["rejected"]
        assert json.loads(json.dumps(catalog.versions()[0].entry))["attr"] == "Mine"
        return
    r = run("ladder", "submit", ladder, "mine", *args)
    assert r.exit_code == 2 and match in r.output and r.output.count("\n") == 1, r.output
    assert state(ladder) == before


def test_bad_input_is_one_line_exit_2(ladder, tmp_path):
    cases = [
        (["ladder", "submit", tmp_path / "none", "x", "x.py:X"], "is not a ladder"),
        (["ladder", "submit", ladder, "bad name", "x.py:X"], "entry name"),
        (["ladder", "submit", ladder, "bob.v2", "x.py:X"], "no '.': a version is NAME.hash8"),
        (["ladder", "retire", ladder, "nobody"], "no active version"),
        (["ladder", "reinstate", ladder, "nobody"], "no suspended version to reinstate"),
        (["ladder", "run", ladder], "no active version to play"),
        (["ladder", "init", ladder], "is a ladder already"),
    ]
    for args, match in cases:
        r = run(*args)
        assert r.exit_code == 2 and match in r.output and r.output.count("\n") == 1, r.output
    (ladder / "ladder.toml").write_text("colour = 1\n" + (ladder / "ladder.toml").read_text())
    r = run("ladder", "list", ladder)
    assert r.exit_code == 0  # list reads the catalog alone
    r = run("ladder", "run", ladder)
    assert r.exit_code == 2 and "unknown key 'colour'" in r.output
    for share in ("1.5", "-0.1", '"a lot"', "true"):
        (ladder / "ladder.toml").write_text(f"suspend_fault_share = {share}\n")
        r = run("ladder", "run", ladder)
        assert r.exit_code == 2 and "suspend_fault_share must be a number from 0 to 1" in r.output


def test_a_submission_whose_submitter_died_is_rejected_and_its_files_go(ladder, tmp_path):
    settings, catalog = load_settings(ladder), Catalog(ladder)

    def killed(league, entry):  # what a kill leaves: the row validating, the files there
        raise SystemExit

    with pytest.raises(SystemExit):
        submit(ladder, settings, catalog, "mine", file_bot(tmp_path), None, None, killed)
    # the handler above already rejected it; a kill -9 would not have: forge that
    with catalog.transaction() as db:
        db.execute("UPDATE versions SET state = 'validating', token = 'dead'")
    (ladder / "bots" / "x").mkdir(parents=True)
    version = catalog.versions()[0]
    (ladder / "bots" / version.hash).mkdir()
    (ladder / INCOMING / "alive").mkdir(parents=True)
    (ladder / INCOMING / "dead").mkdir()
    with open(ladder / INCOMING / "alive.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a submitter at work: its files stay
        left = recover(ladder, catalog)
        assert [v.id for v in left] == [version.id]
        assert catalog.get(version.id).state == "rejected"
        assert "interrupted" in catalog.get(version.id).reason
        assert not (ladder / "bots" / version.hash).exists()
        assert (ladder / INCOMING / "alive").is_dir() and not (ladder / INCOMING / "dead").exists()


def test_the_check_sees_the_ladders_league(ladder, tmp_path):
    settings, catalog = load_settings(ladder), Catalog(ladder)
    seen = []

    def check(league, entry):
        seen.append((league.players, league.deals, entry.isolation, entry.packages))
        return Verdict()

    version, old = submit(ladder, settings, catalog, "mine", file_bot(tmp_path), None, None, check)
    assert seen == [(4, 2, "sandbox", ("bohnarena_bots",))] and old is None
    assert version.state == "active" and (ladder / "bots" / version.hash / "mine.py").is_file()
    again, old = submit(
        ladder, settings, catalog, "mine", file_bot(tmp_path, extra="# v2\n"), None, None, check
    )
    assert old is not None and old.id == version.id and again.hash != version.hash
    v2 = file_bot(tmp_path, extra="# v2\n")
    with pytest.raises(SubmissionError, match="already has this version active"):
        submit(ladder, settings, catalog, "mine", v2, None, None, check)


def test_the_check_plays_the_ladders_own_edition_and_table(ladder, tmp_path):
    # every seat of the ladder's table, each match twice; not every edition
    text = (ladder / "ladder.toml").read_text()
    text = text.replace('edition = "classic"', 'edition = "riogrande"')
    text = text.replace("players = 4\n", "players = 3\n").replace('"sandbox"', '"process"')
    (ladder / "ladder.toml").write_text(text)
    settings, catalog = load_settings(ladder), Catalog(ladder)
    assert settings.players == 3
    labels = []
    check = partial(validate, progress=labels.append)
    version, _ = submit(ladder, settings, catalog, "mine", file_bot(tmp_path), None, None, check)
    assert version.state == "active"
    assert labels == [f"riogrande 3p seat {s}" for s in range(3)]
    catalog.close()
