"""A bot's view tells it the league's match id (issue 16, part 3), in
process and out of it, and a rerun tells it the same."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from tests.support.leagues import hostile


@pytest.mark.slow
def test_match_id_reaches_the_bot_in_process_and_out(tmp_path: Path) -> None:
    league = tmp_path / "m.toml"
    spec = hostile("MatchIdNoter")
    league.write_text(
        'name = "m"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = 3\n[bots]\n'
        f'inproc = "{spec}"\n'
        f'proc = {{ spec = "{spec}", isolation = "process" }}\n'
        'random = "random"\n'
    )
    out = tmp_path / "out"
    assert run_league(league, out, workers=1, progress=False).complete
    moves = pq.read_table(out / "moves").to_pylist()
    notes = [r for r in moves if r["kind"] == "note"]
    seats = {r["match_id"]: r["seats"] for r in pq.read_table(out / "matches").to_pylist()}
    assert {seats[r["match_id"]][r["seat"]] for r in notes} == {"inproc", "proc"}
    assert all(r["note"] == f"match {r['match_id']}" for r in notes)
    assert len({r["match_id"] for r in notes}) == len(seats) > 1
    r = CliRunner().invoke(cli, ["replay", str(out), "--match", str(max(seats)), "--rerun"])
    assert r.exit_code == 0, r.output
