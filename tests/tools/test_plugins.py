"""Bot discovery, the plugin kit (new-bot) and the conformance check (check-bot)."""

import random
import re
import time
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.bohnanza import Bot
from bohnarena.cli import cli
from bohnarena.core.entry import BotEntry
from bohnarena.core.game import get_game
from bohnarena.referee.limits import Limits
from bohnarena.tools.conformance import check_bot
from tests.conftest import sandboxed


class Coinflip(Bot):
    """Uses the global random module: not reproducible from the match seed."""

    def plant_second(self, view):
        return random.random() < 0.5


class NotesTheClock(Bot):
    """Plays the same moves every time; its notes say what time it is."""

    def plant(self, view, card):
        self.note(f"at {time.perf_counter_ns()} ns")
        return super().plant(view, card)


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


@sandboxed
def test_check_bot_passes_shipped_bots_and_fails_bad_ones():
    assert run("check-bot", "trader").exit_code == 0
    bad = run("check-bot", "tests/hostile/bots.py:Garbage")
    assert bad.exit_code == 1 and "illegal" in bad.output and "FAIL" in bad.output
    report = check_bot(get_game("bohnanza"), BotEntry("c", spec=f"{__file__}:Coinflip"), Limits())
    assert report.nondeterministic and not report.passed
    clock = BotEntry("c", spec=f"{__file__}:NotesTheClock")
    assert not check_bot(get_game("bohnanza"), clock, Limits()).nondeterministic  # moves, not notes


@pytest.mark.slow
def test_check_bot_shows_its_progress_and_is_quiet_off_a_terminal():
    game = get_game("bohnanza")
    seats = sum(players for _, players, _ in game.conformance_configs())
    shown = CliRunner().invoke(cli, ["check-bot", "random", "--progress"])
    assert shown.exit_code == 0 and "PASS" in shown.stdout
    bar = shown.stderr.replace("\r", "\n")
    assert f"{seats}/{seats}" in bar and "seat/s" in bar
    edition, players, _ = game.conformance_configs()[-1]
    assert f"{edition} {players}p" in bar and f"seat {players - 1}" in bar  # the seat playing
    assert "99th percentile" in shown.stdout
    quiet = CliRunner().invoke(cli, ["check-bot", "random"])  # (stderr is no terminal here)
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_check_bot_plays_only_the_edition_and_table_asked():
    shown = CliRunner().invoke(
        cli, ["check-bot", "planner", "-e", "riogrande", "-p", "3", "--progress"]
    )
    assert shown.exit_code == 0 and "matches played: 3 " in shown.stdout
    bar = shown.stderr.replace("\r", "\n")
    # (the bar's last count may be cleared before it is drawn: its total and labels are)
    assert "/3 " in bar and "riogrande 3p seat 2" in bar and "classic" not in bar
    for wrong in (["-e", "nope"], ["-p", "9"], ["-e", "classic", "-p", "7"]):
        r = CliRunner().invoke(cli, ["check-bot", "planner", *wrong])
        assert (
            r.exit_code == 2 and r.output.count("\n") == 1 and "Error: bohnanza has no" in r.output
        )


@pytest.mark.slow
@sandboxed
def test_check_bot_reports_timeouts_and_times():
    r = run("check-bot", "tests/hostile/bots.py:SleepsForever", "--decision-seconds", "0.05")
    assert r.exit_code == 1 and "timeout" in r.output
    ok = run("check-bot", "planner")
    assert "decision time: median" in ok.output and "worst" in ok.output


@pytest.mark.slow
@sandboxed
def test_check_bot_runs_a_bot_in_another_language():
    r = run("check-bot", "--command", "bash bots/first_choice.sh")
    assert r.exit_code == 0, r.output


def test_check_bot_bad_spec_is_one_line():
    r = run("check-bot", "nonesuch")
    assert r.exit_code == 2 and "unknown bot" in r.output


@pytest.mark.slow
def test_new_bot_writes_a_plugin_package_that_conforms(tmp_path):
    r = run("new-bot", "my-bot", "--dir", tmp_path)
    assert r.exit_code == 0, r.output
    root = tmp_path / "my-bot"
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["bohnarena.bots"] == {
        "my-bot": "bohnarena_my_bot.bot:MyBotBot"
    }
    # the package's own test runs (here on the file, as the package is not installed)
    own_test = (root / "tests" / "test_conformance.py").read_text()
    spec = f"{root / 'bohnarena_my_bot' / 'bot.py'}:MyBotBot"
    scope: dict = {}
    exec(own_test.replace('spec="my-bot"', f"spec={spec!r}"), scope)
    scope["test_bohnarena_my_bot_conforms"]()
    league = tomllib.loads((root / "league.toml").read_text())
    assert league["bots"]["my-bot"] == "my-bot"
    assert check_bot(get_game("bohnanza"), BotEntry("m", spec=spec), Limits()).passed
    again = run("new-bot", "my-bot", "--dir", tmp_path)
    assert again.exit_code == 2 and "already exists" in again.output
    assert run("new-bot", "Bad Name").exit_code == 2
    shipped = run("new-bot", "random", "--dir", tmp_path)
    assert shipped.exit_code == 2 and "installed already" in shipped.output
    assert not (tmp_path / "random").exists()


def test_new_bot_refuses_a_name_two_installed_bots_clash_on(tmp_path, monkeypatch):
    import bohnarena.tools.newbot as newbot
    from bohnarena.core.plugins import Registered

    clash = Registered({}, {"twice": ()}, {})  # registered by two distributions
    monkeypatch.setattr(newbot, "registered", lambda: clash)
    r = run("new-bot", "twice", "--dir", tmp_path)
    assert r.exit_code == 2 and "installed already" in r.output
    assert not (tmp_path / "twice").exists()


def test_bots_lists_registered_bots_with_origin_and_version():
    r = run("bots")
    line = next(x for x in r.output.splitlines() if x.startswith("trader"))
    assert "bohnarena_bots.trader:TraderBot" in line and "bohnarena" in line
    assert line.split()[1] == "bohnanza"


def test_the_readme_names_every_shipped_bot():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    shipped = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    names = shipped["project"]["entry-points"]["bohnarena.bots"]
    named = [n for n in names if re.search(rf"[`\s]{re.escape(n)}[`\s]", readme)]
    assert named == list(names) and "abacus" in named
