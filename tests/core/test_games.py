"""The game seam: a third game installed as a plugin plays through run, rank
and replay; broken game plugins break nothing else; games import no runner
layer."""

import ast
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.core.test_loading import fake_dist, fake_site, one_line_error

ROOT = Path(__file__).resolve().parents[2]
TOY = Path(__file__).resolve().parents[1] / "plugin_game" / "toy3.py"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def site(tmp_path, monkeypatch):
    yield from fake_site(tmp_path, monkeypatch, ("toy3", "broken_game", "bad_capabilities"))


@pytest.fixture
def toy(site):
    """The three-card toy game (tests/plugin_game/toy3.py), installed with its bots."""
    shutil.copy(TOY, site / "toy3.py")
    fake_dist(
        site,
        "toy3",
        "[bohnarena.games]\ntoy3 = toy3:GAME\n"
        "[bohnarena.bots]\ntoy-greedy = toy3:GreedyBot\ntoy-random = toy3:RandomBot\n",
        top_level="toy3\n",
    )
    return site


@pytest.mark.slow
def test_a_third_game_plays_through_run_rank_and_replay(toy, tmp_path):
    league = tmp_path / "toy.toml"
    league.write_text(
        'name = "toy"\ngame = "toy3"\nplayers = 3\ndeals = 4\nseed = 5\n'
        '[bots]\ngreedy = "toy-greedy"\nrandom = "toy-random"\nfirst = "toy3:ToyBot"\n'
    )
    out = tmp_path / "out"
    r = run("run", league, "--out", out, "-j", "1", "--no-progress")
    assert r.exit_code == 0, r.output
    ranking = run("rank", out)
    assert ranking.exit_code == 0 and "greedy" in ranking.output, ranking.output
    verified = run("replay", out, "--verify-all")
    assert verified.exit_code == 0, verified.output
    assert "verified 12 matches: every one replays" in verified.output
    replayed = run("replay", out, "--match", 1)
    assert replayed.exit_code == 0 and "takes card" in replayed.output, replayed.output
    at = run("replay", out, "--match", 1, "--at", 6)
    assert at.exit_code == 0 and at.output.startswith("After move 6"), at.output
    played = run("play", "--game", "toy3", "toy-greedy", "toy-random")
    assert played.exit_code == 0 and "Three cards" in played.output, played.output
    listing = run("bots")
    assert any(line.split()[:2] == ["toy-greedy", "toy3"] for line in listing.output.splitlines())
    assert run("check-bot", "--game", "toy3", "toy-random").exit_code == 0
    assert run("check-game", "toy3").exit_code == 0  # (by its registered name)


def test_a_game_without_a_wire_refuses_bots_out_of_process(toy):
    r = run("play", "--game", "toy3", "--isolation", "process", "toy-greedy", "toy-random")
    one_line_error(r, "toy3 bots run in process only")


def test_a_game_registered_under_another_name_is_refused(toy):
    fake_dist(toy, "alias", "[bohnarena.games]\nalias = toy3:GAME\n")
    r = run("play", "--game", "alias", "toy-greedy", "toy-random")
    one_line_error(r, "game 'alias' (toy3:GAME) calls itself 'toy3'")


def test_capabilities_are_declared_and_a_game_that_declares_none_gets_none(toy):
    from bohnarena.core.game import NO_CAPABILITIES, capabilities, get_game, sparring_bots

    (toy / "bad_capabilities.py").write_text(
        "from toy3 import ThreeCards\n"
        "class Bad(ThreeCards):\n    name = 'bad'\n    capabilities = {'new_state': None}\n"
        "GAME = Bad()\n"
    )
    fake_dist(toy, "badcaps", "[bohnarena.games]\nbad = bad_capabilities:GAME\n")
    toy3, card = get_game("toy3"), get_game("bohnanza")
    assert capabilities(toy3) == NO_CAPABILITIES
    assert sparring_bots(toy3) == toy3.shipped_bots  # the default opponents
    assert capabilities(card).new_state is not None
    assert sparring_bots(card) == ("planner", "trader", "random")  # declared
    bench = run("bench", "--game", "toy3", "-p", "2", "-n", "5", "-r", "1")
    assert bench.exit_code == 0 and "playouts" not in bench.output, bench.output
    one_line_error(
        run("play", "--game", "bad", "toy-greedy", "toy-random"),
        "its capabilities are not a bohnarena.core.game.Capabilities",
    )


def test_broken_game_plugins_break_no_other_game(site):
    (site / "broken_game.py").write_text("raise ImportError('no such engine')\n")
    fake_dist(site, "brokengame", "[bohnarena.games]\nbroken = broken_game:GAME\n")
    fake_dist(site, "notagame", "[bohnarena.games]\nnotagame = os:path\n")
    fake_dist(site, "malformed", "[bohnarena.games]\nnoequals\n[console_scripts\n")
    fake_dist(site, "dupe1", "[bohnarena.games]\ndupe = os:path\n")
    fake_dist(site, "dupe2", "[bohnarena.games]\ndupe = os:sep\n")
    assert run("play", "-q", "planner", "random", "trader").exit_code == 0
    assert run("play", "-q", "--game", "wuerfel", "wuerfel-greedy", "wuerfel-random").exit_code == 0
    listing = run("bots")
    assert listing.exit_code == 0 and "planner" in listing.output, listing.output
    one_line_error(
        run("play", "--game", "broken", "a", "b"),
        "game 'broken' (broken_game:GAME) does not load: ImportError: no such engine",
    )
    one_line_error(run("play", "--game", "notagame", "a", "b"), "is not a bohnarena.core.game.Game")
    one_line_error(run("play", "--game", "dupe", "a", "b"), "is registered by 2 distributions")
    one_line_error(
        run("play", "--game", "nosuch", "a", "b"),
        "unknown game 'nosuch' (known: bohnanza, broken, dupe, notagame, wuerfel)",
    )


#: What a game's package may import of bohnarena: the seam and the
#: game-agnostic helpers below it (never leagues, plugins, seats' factories,
#: limits, processes or the runner), module by module.
GAME_MAY_IMPORT = {
    *("core.game", "core.botapi", "core.errors", "core.seeding", "core.untrusted"),
    *("core.protocol_schema", "core.textplay", "core.text"),
    *("referee.gamestate", "referee.frames", "referee.seats", "referee.replaylog"),
    "viewer.film",
}


#: Modules kept at a game's old paths for bot authors: re-exports of a
#: module that moved out of the game (they import it; nothing imports them).
REEXPORTS = {"bohnanza/pettingzoo_env.py"}


def bohnarena_imports(path, package):
    """The bohnarena modules (or names in them) a module of bohnarena/<package>
    imports, by absolute name."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ["bohnarena", package][: 3 - node.level] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield from (f"{module}.{a.name}" for a in node.names)


@pytest.mark.parametrize("package", ["bohnanza", "wuerfel"])
def test_games_import_no_runner_layer(package):
    for path in sorted((ROOT / "bohnarena" / package).glob("*.py")):
        if f"{package}/{path.name}" in REEXPORTS:
            continue
        for name in bohnarena_imports(path, package):
            parts = name.split(".")
            if parts[0] == "bohnarena" and parts[1] != package:
                assert ".".join(parts[1:3]) in GAME_MAY_IMPORT, f"{path.name} imports {name}"
