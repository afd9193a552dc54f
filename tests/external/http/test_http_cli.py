"""A URL is a bot spec on the command line too: ``play``, ``compare`` and
``check-bot`` (there it may be on loopback: the operator typed it)."""

from __future__ import annotations

import json
import tomllib

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
    bots = tomllib.loads((tmp_path / "c" / "league.toml").read_text())["bots"]
    assert bots[verdict["a"]] == {"spec": url, "allow_private": True}


@pytest.mark.slow
def test_check_bot_passes_a_service(serve):
    url = serve("wuerfel-greedy", "--game", "wuerfel")
    r = bohnarena("check-bot", url, "--game", "wuerfel")
    assert r.exit_code == 0, r.output
    assert "PASS" in r.output and "warning" not in r.output  # kept alive, answered at once


@pytest.mark.slow
def test_an_http10_service_passes_check_bot_which_says_what_it_costs(serve):
    # http.server's default: every answer closes its connection (docs/http-bots.md)
    url = serve("wuerfel-greedy", "--game", "wuerfel", "--http10")
    r = bohnarena("check-bot", url, "--game", "wuerfel")
    assert r.exit_code == 0, r.output
    assert "faults: none" in r.output and "PASS" in r.output
    assert "warning: the service answers in HTTP/1.0" in r.output


def test_check_bot_warns_of_nagle_for_a_served_bot_whose_decisions_all_take_about_40_ms():
    from bohnarena.tools.conformance import Report

    def warned(served, times):
        return any("Nagle" in line for line in Report(served=served, times=times).lines())

    delayed = [0.0401 + 0.0008 * (i % 10) for i in range(200)]  # 40-48 ms: delayed ACKs
    assert warned(True, delayed)
    assert not warned(False, delayed)  # a process has no socket to fix
    thinking = [0.001 * i for i in range(100)]  # a median near 50 ms, but spread out
    assert not warned(True, thinking) and not warned(True, [0.0003] * 100)
