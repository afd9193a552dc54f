"""A ladder directory moved elsewhere plays on: its league file names its
bots relative to it (``bots/<hash>/...``) and their source hashes are taken
from there, so the moved ladder's results are the same league with the
same bots, and a run plays only what is new."""

import shutil

import pytest

from bohnarena.core.game import get_game
from bohnarena.league.file import parse_league
from bohnarena.run.provenance import source_hash

from .builders import command_dir, file_bot
from .conftest import join, run_ok
from .test_kills import match_ids


@pytest.mark.slow
def test_a_moved_ladder_plays_on_with_the_same_bots(processes, tmp_path):
    join(processes, "dee", str(command_dir(tmp_path)), "bash bot.sh")  # dee: a command bot now
    run_ok(processes, 8, 0)
    assert str(processes) not in (processes / "league.toml").read_text()  # relative paths
    moved = tmp_path / "elsewhere" / "spring"
    moved.parent.mkdir()
    shutil.move(processes, moved)
    run_ok(moved, 0, 8)
    join(moved, "eve", file_bot(tmp_path, "Bot4"))
    run_ok(moved, 32, 8)  # eve's 4 new tables; the first 8 stand
    assert sorted(match_ids(moved)) == list(range(40))


def test_a_leagues_bots_beside_it_hash_the_same_wherever_it_is(tmp_path):
    """Paths relative to the league file are resolved against its directory
    (from any working directory) and hashed relative to ``home``."""
    hashes = []
    for where in ("a", "b/c"):
        home = tmp_path / where
        (home / "bots").mkdir(parents=True)
        (home / "bots" / "mine.py").write_text("from bohnarena_bots.random_bot import RandomBot\n")
        (home / "bots" / "bot.sh").write_text("exec true\n")
        bots = {
            "mine": {"spec": "bots/mine.py:RandomBot", "isolation": "process"},
            "shell": {"command": ["bash", "bots/bot.sh"], "dir": "bots", "isolation": "process"},
        }
        league = parse_league({"players": 3, "deals": 1, "name": "x", "bots": bots}, "", "x", home)
        assert league.bots["mine"].spec == f"{home.resolve()}/bots/mine.py:RandomBot"
        assert league.bots["shell"].command == ("bash", f"{home.resolve()}/bots/bot.sh")
        base = get_game("bohnanza").bot_base
        hashes.append([source_hash(e, base, home.resolve()) for e in league.bots.values()])
    assert hashes[0] == hashes[1]
