"""The ladder's player (``ladder play``, ``ladder serve``'s child): staged
versions checked and played, a submission during a run joining the next
one, a failing run survived, and kills that lose nothing: a check cut
short is made again, a run cut short resumes and plays every match once.
Bots run as processes at three seats, one deal (the player is what is
tested; tests/ladder/test_season.py plays the sandbox)."""

import os
import signal
import subprocess
import time

import pytest

from bohnarena.ladder import live, player
from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.player import DUE, Player
from bohnarena.ladder.settings import LadderError, load_settings
from bohnarena.ladder.submission import DEFERRED, INCOMING, recover, submit
from tests.support.leagues import kill_9_when

from .builders import file_bot
from .conftest import LADDER, match_ids, passed, run


@pytest.fixture
def trio(ladder):
    """A ladder at three seats, one deal, one match a batch: three bots
    play 3 matches, a fourth adds 9."""
    text = (ladder / "ladder.toml").read_text()
    text = text.replace('isolation = "sandbox"', 'isolation = "process"')
    text = text.replace("players = 4", "players = 3").replace("deals = 2 ", "deals = 1 ")
    (ladder / "ladder.toml").write_text(text + "batch_size = 1\n")
    return ladder


def stage(ladder, tmp_path, *names, check=None):
    settings, catalog = load_settings(ladder), Catalog(ladder)
    try:
        return [
            submit(ladder, settings, catalog, n, file_bot(tmp_path, n.title()), None, None, check)[
                0
            ]
            for n in names
        ]
    finally:
        catalog.close()


def a_player(ladder, lines, check=passed):
    return Player(ladder, lambda: load_settings(ladder), lines.append, workers=1, check=check)


def states(ladder):
    catalog = Catalog(ladder)
    try:
        return {v.name: v.state for v in catalog.versions()}
    finally:
        catalog.close()


@pytest.mark.slow
def test_staged_versions_are_checked_and_played_and_one_sent_during_a_run_joins_the_next(
    trio, tmp_path, monkeypatch
):
    stage(trio, tmp_path, "ann", "bob", "cy")
    assert set(states(trio).values()) == {"pending"}
    update, sent = live.Writer.update, []

    def submit_meanwhile(self, played, planned, standings):
        update(self, played, planned, standings)
        if not sent:  # the run has begun: dee is staged while it plays
            sent.extend(stage(trio, tmp_path, "dee"))

    monkeypatch.setattr(live.Writer, "update", submit_meanwhile)
    lines = []
    me = a_player(trio, lines)
    first = me.step()
    assert first is not None and (first.played, first.total) == (3, 3)
    assert states(trio) == {"ann": "active", "bob": "active", "cy": "active", "dee": "pending"}
    assert not any(b.startswith("dee.") for b in player.played(trio))
    assert "run: the active versions changed" in lines
    second = me.step()
    assert second is not None and (second.played, second.total) == (9, 12)
    assert states(trio)["dee"] == "active"
    assert sorted(match_ids(trio)) == list(range(12))
    assert me.step() is None  # nothing new: no run
    assert not (trio / DUE).exists() and live.read(trio) is None
    assert any(line.startswith("dee.") and line.endswith(" is active") for line in lines)


def test_a_failing_run_is_said_and_the_player_goes_on(trio, tmp_path, monkeypatch):
    stage(trio, tmp_path, "ann", "bob", "cy")
    failures = [LadderError("the disk is full"), RuntimeError("a bug")]

    def failing(*args, **kwargs):
        raise failures.pop(0)

    monkeypatch.setattr(player, "run_ladder", failing)
    lines = []
    me = a_player(trio, lines)
    assert me.step() is None
    assert lines[-1] == "the run failed: the disk is full"
    assert (trio / DUE).exists()  # (a player started again tries it at once)
    assert me.step() is None and len(failures) == 1  # not tried again at once
    stage(trio, tmp_path, "dee")  # but when the versions change
    assert me.step() is None and not failures
    assert lines[-1] == "the run failed: RuntimeError: a bug"


def test_a_rejected_version_is_said_and_the_others_play_on(trio, tmp_path, monkeypatch):
    from bohnarena.ladder.check import Verdict

    stage(trio, tmp_path, "ann")
    monkeypatch.setattr(player, "run_ladder", lambda *a, **k: pytest.fail("ran"))
    lines = []
    a_player(trio, lines, check=lambda *_: Verdict("it \x1b[31mcrashed")).step()
    assert states(trio) == {"ann": "rejected"}
    [said] = lines  # (the command line's echo escapes the bot's text)
    assert said.startswith("ann.") and said.endswith(" is rejected: it \x1b[31mcrashed")


@pytest.mark.slow
def test_a_player_killed_while_it_checks_checks_again(trio, tmp_path, monkeypatch):
    [ann] = stage(trio, tmp_path, "ann")
    proc = subprocess.Popen(
        [*LADDER, "play", str(trio)], start_new_session=True, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 60
    while time.time() < deadline and states(trio)["ann"] != "validating":
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    catalog = Catalog(trio)
    assert catalog.get(ann.id).state == "validating"  # as the kill left it
    assert (trio / "bots" / ann.hash / "ann.py").is_file()
    assert recover(trio, catalog) == []
    assert (catalog.get(ann.id).state, catalog.get(ann.id).reason) == ("pending", DEFERRED)
    assert not list((trio / INCOMING).iterdir())
    lines = []
    monkeypatch.setattr(player, "run_ladder", lambda *a, **k: pytest.fail("ran"))
    a_player(trio, lines).step()
    assert catalog.get(ann.id).state == "active"
    assert lines == [f"{ann.bot} is active"]  # (one bot: no run)


@pytest.mark.slow
def test_a_player_killed_during_a_run_resumes_it_and_plays_every_match_once(trio, tmp_path):
    stage(trio, tmp_path, "ann", "bob", "cy", "dee", check=passed)
    kill_9_when([*LADDER, "play", str(trio), "-j", "1"], trio / "results", 3)
    assert (trio / DUE).exists() and (trio / live.LIVE).exists()
    assert live.read(trio) is None  # (its writer is gone)
    done = len(match_ids(trio))
    assert 3 <= done < 12
    lines = []
    summary = a_player(trio, lines).step()
    assert "run: the last run did not end" in lines
    assert summary is not None and (summary.played, summary.total) == (12 - done, 12), lines
    assert sorted(match_ids(trio)) == list(range(12))
    assert not (trio / DUE).exists()


@pytest.mark.slow
def test_sigterm_stops_the_player_and_its_run_resumes(trio, tmp_path):
    stage(trio, tmp_path, "ann", "bob", "cy", "dee", check=passed)
    proc = subprocess.Popen(
        [*LADDER, "play", str(trio), "-j", "1"],
        start_new_session=True,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    while time.time() < deadline and not list((trio / "results" / "matches").glob("part-*")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "the run stopped after" in err and "the player stops" in err
    assert (trio / DUE).exists() and not (trio / live.LIVE).exists()
    r = subprocess.run([*LADDER, "run", str(trio)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(match_ids(trio)) == list(range(12))


def test_run_every_minutes_starts_a_run_when_nothing_changed(trio, tmp_path, monkeypatch):
    stage(trio, tmp_path, "ann", "bob", check=passed)
    catalog = Catalog(trio)  # as if a run played them 90 s ago
    (trio / "league.toml").write_text("".join(f'[bots."{v.bot}"]\n' for v in catalog.active()))
    catalog.record_run(time.time() - 100, 0, 0, [])
    with catalog.transaction() as db:
        db.execute("UPDATE runs SET finished = finished - 90")
    catalog.close()
    runs = []

    def stub(*args, **kwargs):
        runs.append(1)
        raise LadderError("not played here")

    monkeypatch.setattr(player, "run_ladder", stub)
    lines, text = [], (trio / "ladder.toml").read_text()
    for minutes, ran in [("0", 0), ("2", 0), ("1.5", 1)]:  # (0: none; 90 s is not 2 minutes)
        every = text.replace("run_every_minutes = 0 ", f"run_every_minutes = {minutes} ")
        (trio / "ladder.toml").write_text(every)
        assert a_player(trio, lines).step() is None
        assert len(runs) == ran, minutes
    assert lines == ["run: 1.5 minutes passed", "the run failed: not played here"]


@pytest.mark.parametrize("value", ["-1", "true", '"daily"', "600000"])
def test_a_bad_run_every_minutes_is_one_line_exit_2(ladder, value):
    text = (ladder / "ladder.toml").read_text()
    (ladder / "ladder.toml").write_text(
        text.replace("run_every_minutes = 0 ", f"run_every_minutes = {value} ")
    )
    r = run("ladder", "play", ladder)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "run_every_minutes must be a number from 0 to 525600" in r.output
