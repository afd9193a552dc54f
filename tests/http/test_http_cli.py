"""A URL is a bot spec on the command line too: ``play``, ``compare`` and
``check-bot`` (there it may be on loopback: the operator typed it)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli


def bohnarena(*args):
    return CliRunner().invoke(cli, [*map(str, args)])


def test_play_takes_a_url(serve):
    url = serve("planner")
    here = bohnarena("play", url, "random", "trader", "--seed", "3", "-q")
    local = bohnarena("play", "planner", "random", "trader", "--seed", "3", "-q")
    assert here.exit_code == 0, here.output
    # The same result as the same bot in process (its name aside).
    assert here.output.replace(url, "planner").split() == local.output.split()


@pytest.mark.slow
def test_compare_a_service_with_the_same_bot_in_process(tmp_path, serve):
    url = serve("planner")
    r = bohnarena(
        *("compare", url, "planner", "--deals", "2", "--out", tmp_path / "c"),
        *("-j", "1", "--format", "json"),
    )
    assert r.exit_code == 0, r.output
    verdict = json.loads(r.output[r.output.index("{") :])
    assert verdict["a"].startswith("127.0.0.1-") and verdict["pairs"] == 8
    # Move for move the same bot: every paired difference is nil.
    assert all(f["mean"] == f["sd"] == 0 for f in verdict["figures"].values())
    text = (tmp_path / "c" / "league.toml").read_text()
    assert f'{{ spec = "{url}", allow_private = true }}' in text


@pytest.mark.slow
def test_check_bot_passes_a_service(serve):
    url = serve("wuerfel-greedy", "--game", "wuerfel")
    r = bohnarena("check-bot", url, "--game", "wuerfel")
    assert r.exit_code == 0, r.output
    assert "PASS" in r.output
