"""``fresh_decks`` (docs/leagues.md, "Growing a league"): a league that grows
deals each generation's new matches from decks of its own, so the matches
of a finished generation show nothing of a match to come; its first
generation plays as a league without the key does."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.entry import LeagueError
from bohnarena.core.seeding import derive_seed
from bohnarena.league.file import parse_league
from bohnarena.league.schedule import Block, Schedule
from bohnarena.run.dispatch import run_league

from .test_growing import BOTS, grow

TEXT = """name = "t"
edition = "classic"
players = 3
deals = 2
seed = 5
{extra}
[bots]
a = "planner"
b = "random"
c = "planner"
"""


def two_generations(fresh: bool) -> Schedule:
    """Three tables of 2 deals, then a fourth table and 2 deals more."""
    blocks = (Block(0, range(2), (0, 1, 2), 3), Block(18, range(2, 4), (0, 1, 2, 3), 3))
    tables = (("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d"), ("b", "c", "d"))
    return Schedule(
        tables, 3, 4, 77, blocks=blocks, spans=(range(18), range(18, 42)), fresh_decks=fresh
    )


def test_each_generation_deals_its_own_decks_and_the_first_as_before():
    shared, fresh = two_generations(False), two_generations(True)
    for m in shared:
        assert m.seed == derive_seed(77, "deal", m.deal)
    for m in fresh:
        generation = 0 if m.id < 18 else 1
        assert fresh.generation(m.id) == generation
        want = (
            derive_seed(77, "deal", m.deal)
            if generation == 0
            else derive_seed(77, "deal", 1, m.deal)
        )
        assert m.seed == want
    # a deal both generations play: the same deck without the key, two with it
    seeds = {(fresh.generation(m.id), m.deal, m.seed) for m in fresh if m.deal < 2}
    assert {s for g, _, s in seeds if g == 0}.isdisjoint({s for g, _, s in seeds if g == 1})


def test_the_key_is_read_and_checked():
    assert parse_league(__import__("tomllib").loads(TEXT.format(extra=""))).fresh_decks is False
    on = TEXT.format(extra="fresh_decks = true")
    assert parse_league(__import__("tomllib").loads(on)).fresh_decks is True
    with pytest.raises(LeagueError, match="fresh_decks"):
        parse_league(__import__("tomllib").loads(TEXT.format(extra='fresh_decks = "yes"')))


def seeds_by_id(out: Path) -> dict[int, tuple[int, int]]:
    rows = pq.read_table(out / "matches").to_pylist()
    return {r["match_id"]: (r["deal"], r["seed"]) for r in rows}


@pytest.mark.slow
def test_a_grown_league_with_fresh_decks_deals_new_decks_and_verifies(league, tmp_path):
    plain, fresh = (
        league(name="p", bots=BOTS, deals=1),
        league(name="f", bots=BOTS, deals=1, extra="fresh_decks = true\n"),
    )
    outs = {}
    for path in (plain, fresh):
        out = outs[path] = tmp_path / path.stem
        assert run_league(path, out, workers=2, progress=False).complete
    # the first generation: the same matches with the key or without
    assert seeds_by_id(outs[plain]) == seeds_by_id(outs[fresh])
    for path in (plain, fresh):
        grow(path, {**BOTS, "e": "random"}, deals=2)
        assert run_league(path, outs[path], workers=2, progress=False).complete
    first = {d: s for i, (d, s) in seeds_by_id(outs[fresh]).items() if i < 12}
    added = {(deal, seed) for i, (deal, seed) in seeds_by_id(outs[fresh]).items() if i >= 12}
    assert all(seed != first.get(deal) for deal, seed in added)  # no deck dealt again
    assert all(seed == derive_seed(5, "deal", 1, deal) for deal, seed in added), (
        "a match's seed is not its generation's deck"
    )
    shared = {(d, s) for i, (d, s) in seeds_by_id(outs[plain]).items() if i >= 12 and d == 0}
    assert shared <= {(0, first[0])}  # without the key, deal 0's deck again
    r = CliRunner().invoke(cli, ["replay", str(outs[fresh]), "--verify-all", "-j", "1"])
    assert r.exit_code == 0, r.output
    # turned on or off later, it would change what the results were played under
    fresh.write_text(fresh.read_text().replace("fresh_decks = true\n", ""))
    r = CliRunner().invoke(cli, ["run", str(fresh), "--out", str(outs[fresh]), "--no-progress"])
    assert r.exit_code == 2 and "fresh_decks changed" in r.output, r.output
