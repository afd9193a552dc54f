"""``bohnarena check-game``: the shipped games and the toy game pass; a game
that leaks a hand, one that does not reproduce, one whose wire loses an
answer and one whose searchable state leaves a part out fail on the check
that says so; a spec that is no game is a usage error."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.core.test_loading import one_line_error

GAMES = Path(__file__).resolve().parents[1] / "plugin_game"


def check(spec):
    return CliRunner().invoke(cli, ["check-game", str(spec)])


def verdicts(r):
    """The check's lines by check name: (pass/FAIL/skip, reason)."""
    lines = r.output.strip().splitlines()
    out = {}
    for line in lines[:-1]:
        mark, rest = line.split(" ", 1)
        name, reason = rest.split(": ", 1)
        out[name] = (mark, reason)
    return out, lines[-1]


def test_the_toy_game_passes_and_what_it_does_not_declare_is_skipped():
    r = check(f"{GAMES / 'toy3.py'}:GAME")
    assert r.exit_code == 0, r.output
    lines, last = verdicts(r)
    assert {k: mark for k, (mark, _) in lines.items()} == {
        "rules": "pass",
        "plays": "pass",
        "reproducible": "pass",
        "replays": "pass",
        "views hide": "skip",
        "wire": "skip",
    }
    assert "toy-greedy, toy-random" in lines["plays"][1]  # its bots, found in its module
    assert "Capabilities.new_state" in lines["views hide"][1]
    assert last == "PASS: 6 checks, 0 failed, 2 not declared"


def test_a_game_that_plays_a_seed_two_ways_fails_reproducible():
    r = check(f"{GAMES / 'unseeded.py'}:GAME")
    assert r.exit_code == 1, r.output
    lines, last = verdicts(r)
    assert lines["reproducible"] == ("FAIL", "standard 2p: the same seed played differently")
    assert lines["plays"][0] == "pass" and last.startswith("FAIL: 6 checks, 2 failed")


@pytest.mark.slow
def test_a_view_that_shows_another_seats_hand_fails_views_hide():
    r = check(f"{GAMES / 'leaky.py'}:GAME")
    assert r.exit_code == 1, r.output
    lines, last = verdicts(r)
    mark, reason = lines["views hide"]
    assert mark == "FAIL" and reason.startswith("classic 3p, turn "), reason
    assert "wire:discard is [" in reason, reason
    assert "in a sample that re-dealt what the seat cannot see" in reason
    # (and the bot's side, dealing a sample from what was sent, sees another discard pile)
    assert lines["wire"][1].endswith("in a sample dealt from the state sent with the view")
    failed = [name for name, (mark, _) in lines.items() if mark != "pass"]
    assert failed == ["views hide", "wire"] and last == "FAIL: 9 checks, 2 failed"


@pytest.mark.slow
def test_a_wire_that_loses_an_answer_fails_wire():
    r = check(f"{GAMES / 'lossy.py'}:GAME")
    assert r.exit_code == 1, r.output
    lines, _ = verdicts(r)
    assert lines["wire"][0] == "FAIL", r.output
    where, problem = lines["wire"][1].split(": ", 1)
    assert where.startswith("standard 2p, turn ") and where.endswith("'s harvest"), where
    assert problem == "the answer 'redeem' does not come back"
    assert [name for name, (mark, _) in lines.items() if mark != "pass"] == ["wire"]


@pytest.mark.slow
def test_a_searchable_state_sent_without_a_part_fails_wire():
    r = check(f"{GAMES / 'stateless.py'}:GAME")
    assert r.exit_code == 1, r.output
    lines, _ = verdicts(r)
    assert lines["wire"][0] == "FAIL", r.output
    assert lines["wire"][1].endswith(
        "'s harvest: the state breaks the schema: \"'winners' is a required property\""
    )
    assert [name for name, (mark, _) in lines.items() if mark != "pass"] == ["wire"]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bohnanza", "wuerfel"])
def test_the_shipped_games_pass_every_check(game):
    r = check(game)
    assert r.exit_code == 0, r.output
    lines, last = verdicts(r)
    assert all(mark == "pass" for mark, _ in lines.values()), r.output
    assert set(lines) >= {"views hide", "wire", "capability new_state", "capability viewer"}
    assert "each valid under the protocol's schema" in lines["wire"][1]
    assert last == f"PASS: {len(lines)} checks, 0 failed"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuch.py:GAME", "game file nosuch.py does not exist"),
        ("json:dumps", "json:dumps (function) is not a bohnarena.core.game.Game"),
        ("no_such_module_h44:GAME", "cannot import no_such_module_h44"),
        ("json:GAME", "json has no 'GAME'"),
        ("nogame", "unknown game 'nogame'"),
        (f"{GAMES / 'toy3.py'}:Rules", "is not a bohnarena.core.game.Game"),
    ],
)
def test_a_spec_that_is_no_game_is_a_usage_error(spec, message):
    one_line_error(check(spec), message)


def test_a_game_that_plays_no_match_passes_no_check_of_its_matches():
    from bohnarena.core.plugins import load_module
    from bohnarena.tools.gamecheck import check_game

    toy3 = load_module(str(GAMES / "toy3.py"))

    class Tableless(toy3.ThreeCards):
        def play(self, rules, seed, players):
            raise RuntimeError("no table")

    verdicts = {v.check: v for v in check_game(Tableless())}
    assert verdicts["rules"].passed
    assert not verdicts["plays"].passed
    assert verdicts["plays"].reason == "standard 2p: raised RuntimeError: no table"
    for name in ("reproducible", "replays"):
        assert verdicts[name].passed is False
        assert verdicts[name].reason == "nothing to check: no rule set played through"


def test_a_check_that_raises_is_that_checks_finding_where_it_raised():
    from types import SimpleNamespace

    from bohnarena.core.plugins import load_module
    from bohnarena.tools.watch import Watcher

    def boom(view):
        raise ValueError("boom")

    wire = SimpleNamespace(rules_json=lambda rules: {}, rules_from_json=dict, view_json=boom)
    toy3 = load_module(str(GAMES / "toy3.py"))
    watcher = Watcher(toy3.GAME, wire, None)
    watcher.start(None, 1, "standard 2p")
    watcher(None, "take", SimpleNamespace(turn=3, seat=1), (), 0)  # (what a bot's take reports)
    assert watcher.findings.problems == {
        "wire": "standard 2p, turn 3, seat 1's take: raised ValueError: boom"
    }
