"""A league of bots served over HTTP plays exactly what the same bots play
in process, move for move, in both games."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from bohnarena.run.dispatch import run_league
from tests.external.http.conftest import league_text, served

pytestmark = pytest.mark.slow  # leagues against services in processes of their own


def _tables(out):
    matches = pq.read_table(out / "matches").drop(["duration_s"]).to_pylist()
    return matches, pq.read_table(out / "moves").to_pylist()


def test_a_league_of_http_bots_plays_as_the_same_bots_in_process(tmp_path, serve):
    names = ("planner", "trader", "random")
    local = tmp_path / "local.toml"
    local.write_text(league_text({n: f'"{n}"' for n in names}, deals=2))
    remote = tmp_path / "remote.toml"
    urls = {n: serve(n) for n in names}
    remote.write_text(league_text({n: served(urls[n]) for n in names}, deals=2))
    a = run_league(local, tmp_path / "a", workers=1, progress=False)
    b = run_league(remote, tmp_path / "b", workers=1, progress=False)
    assert a.complete and b.complete and b.played == a.played == 6
    assert _tables(tmp_path / "b") == _tables(tmp_path / "a")
    facts = json.loads((tmp_path / "b" / "run.json").read_text())
    assert facts["services"] == urls  # the URL, as the league gives it
    assert (
        facts["bots"]["planner"]
        != json.loads((tmp_path / "a" / "run.json").read_text())["bots"]["planner"]
    )


def test_the_dice_game_is_served_over_http_too(tmp_path, serve):
    names = ("wuerfel-greedy", "wuerfel-random")
    extra, ed = 'game = "wuerfel"\n', "standard"
    local = tmp_path / "local.toml"
    local.write_text(league_text({n: f'"{n}"' for n in names}, players=2, extra=extra, edition=ed))
    remote = tmp_path / "remote.toml"
    urls = {n: serve(n, "--game", "wuerfel") for n in names}
    remote.write_text(
        league_text({n: served(urls[n]) for n in names}, players=2, extra=extra, edition=ed)
    )
    a = run_league(local, tmp_path / "a", workers=1, progress=False)
    b = run_league(remote, tmp_path / "b", workers=1, progress=False)
    assert a.complete and b.complete and b.played == 2
    assert _tables(tmp_path / "b") == _tables(tmp_path / "a")
