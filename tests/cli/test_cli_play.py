"""`bohnarena play`, `bench` and `bots` through click's CliRunner."""

import pytest
from click.testing import CliRunner

from bohnarena.bohnanza.rules import edition_names, player_counts
from bohnarena.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize(
    "edition,players", [(e, p) for e in edition_names() for p in player_counts(e)]
)
def test_play_every_edition_and_player_count(edition, players):
    bots = ["planner", "trader", "random"] * 3
    r = run("play", "--edition", edition, "--seed", "7", *bots[:players])
    assert r.exit_code == 0, r.output
    assert "== Turn 1: seat 0" in r.output and "Winner: seat" in r.output
    assert "plants" in r.output and "draws" in r.output


def test_play_shows_trades_harvests_reshuffles_and_draft():
    r = run(
        "play",
        "-e",
        "anniversary",
        "-o",
        "extra_bean=jumping",
        "-s",
        "3",
        "trader",
        "trader",
        "random",
        "trader",
    )
    assert r.exit_code == 0, r.output
    for text in (
        "offers",
        "TRADE:",
        "harvests field",
        "coin(s)",
        "shuffled into a new draw pile",
        "The game ends",
    ):
        assert text in r.output, text


def test_play_accepts_file_and_module_specs(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text("from bohnarena.bohnanza import Bot\nclass Mine(Bot):\n    name = 'mine'\n")
    r = run("play", "-e", "classic", f"{bot}:Mine", "bohnarena_bots.planner:PlannerBot", "random")
    assert r.exit_code == 0, r.output
    assert "seat 0 (Mine)" in r.output  # by its spec, as in a process or the sandbox
    assert "seat 1 (PlannerBot)" in r.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["play", "-e", "classic", "planner", "planner"], "is for 3, 4, 5 players, not 2"),
        (["play", "-e", "riogrande"] + ["planner"] * 8, "not 8"),
        (["play", "-e", "nope", "planner", "planner", "planner"], "unknown edition"),
        (["play", "-e", "classic", "nobot", "planner", "planner"], "unknown bot 'nobot'"),
        (["play", "-e", "classic", "missing.py:X", "planner", "planner"], "does not exist"),
        (["play", "-e", "classic", "bohnarena.cli:main", "planner", "planner"], "not a bot class"),
        (
            ["play", "-e", "classic", "bohnarena_bots.planner:Nope", "planner", "planner"],
            "has no class 'Nope'",
        ),
        (["play", "-e", "classic", "no.such.module:X", "planner", "planner"], "cannot import"),
        (
            ["play", "-e", "classic", "-o", "bogus=1", "planner", "planner", "planner"],
            "unknown rule option",
        ),
        (["play", "-e", "classic", "-o", "novalue", "planner", "planner", "planner"], "key=value"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_syntax_error_in_a_bot_file_names_the_line(tmp_path):
    bot = tmp_path / "broken.py"
    bot.write_text("x = 1\ndef oops(:\n")
    r = run("play", f"{bot}:X", "planner", "planner")
    assert r.exit_code == 2 and "line 2" in r.output


@pytest.mark.slow
def test_bench_reports_games_per_second():
    r = run("bench", "-n", "20", "-r", "1", "--playouts", "5", "-b", "planner", "-b", "trader")
    assert r.exit_code == 0, r.output
    assert "games/s on one core" in r.output and "planner, trader, planner, trader" in r.output
    assert "random playouts/s" in r.output


def test_bench_seats_the_games_own_bot_by_default():
    r = run("bench", "--game", "wuerfel", "-n", "5", "-r", "1", "--playouts", "0")
    assert r.exit_code == 0, r.output
    assert "wuerfel-greedy" in r.output and "playouts" not in r.output


def test_bots_lists_shipped_bots_and_help_is_useful():
    r = run("bots")
    assert all(n in r.output for n in ("random", "planner", "trader"))
    for cmd in ([], ["play"], ["bench"], ["bots"]):
        h = run(*cmd, "--help")
        assert h.exit_code == 0 and "Usage:" in h.output
