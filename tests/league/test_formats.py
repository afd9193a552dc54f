"""League formats and seatings (issue 15, part 4): every schedule complete,
balanced, deterministic, deal-major and resumable."""

import json
from collections import Counter
from itertools import combinations, permutations

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.entry import LeagueError
from bohnarena.league.file import load_league, parse_league
from bohnarena.league.schedule import Schedule, format_tables, nth_permutation
from bohnarena.run.dispatch import run_league
from tests.support.leagues import reseal

BOTS = ["h", "a", "b", "c", "d"]
FORMATS = [("round-robin", None, None), ("gauntlet", "h", None), ("paired", "h", "a")]
SEATINGS = ["rotations", "permutations"]


def plan(fmt, hero, challenger, seatings, players=3, deals=2, bots=BOTS, seed=3):
    found = format_tables(bots, players, fmt, hero, challenger)
    return Schedule(tuple(found), players, deals, seed, seatings)


@pytest.mark.parametrize("seatings", SEATINGS)
@pytest.mark.parametrize(("fmt", "hero", "challenger"), FORMATS)
@pytest.mark.parametrize("players", [3, 4])
def test_complete_deterministic_and_deal_major(fmt, hero, challenger, seatings, players):
    s = plan(fmt, hero, challenger, seatings, players)
    ms = list(s)
    per_table = players if seatings == "rotations" else len(list(permutations(range(players))))
    assert len(ms) == len(s) == len(s.tables) * 2 * per_table
    assert [m.id for m in ms] == list(range(len(ms)))
    assert Counter((m.table, m.deal, m.rotation) for m in ms) == Counter(
        {(t, d, r): 1 for t in range(len(s.tables)) for d in range(2) for r in range(per_table)}
    )
    assert [m.deal for m in ms] == sorted(m.deal for m in ms)  # deal-major
    assert ms == list(plan(fmt, hero, challenger, seatings, players))
    assert all(s.spec(m.id) == m for m in reversed(ms))  # any id alone
    for m in ms:  # every seating seats exactly the table's bots
        assert Counter(m.seats) == Counter(s.tables[m.table])


@pytest.mark.parametrize("seatings", SEATINGS)
@pytest.mark.parametrize(("fmt", "hero", "challenger"), FORMATS)
def test_every_bot_plays_every_seat_equally_often(fmt, hero, challenger, seatings):
    ms = list(plan(fmt, hero, challenger, seatings, players=3))
    seat_counts = Counter((b, s) for m in ms for s, b in enumerate(m.seats))
    for bot in BOTS:
        counts = {seat_counts[bot, s] for s in range(3)}
        assert len(counts) == 1, (bot, counts)
    games = Counter(b for m in ms for b in m.seats)
    field = [b for b in BOTS if b not in (hero, challenger)]
    assert len({games[b] for b in field}) == 1  # the field alike
    if hero is not None:
        assert all(hero in m.seats or challenger in m.seats for m in ms)
    if challenger is not None:
        assert games[hero] == games[challenger] and not any(
            hero in m.seats and challenger in m.seats for m in ms
        )


@pytest.mark.parametrize(("fmt", "hero", "challenger"), FORMATS)
def test_permutations_balance_who_sits_where_relative_to_whom(fmt, hero, challenger):
    ms = list(plan(fmt, hero, challenger, "permutations", players=4))
    pairs = Counter(
        (m.seats[i], m.seats[j], i, j) for m in ms for i in range(4) for j in range(4) if i != j
    )
    for x, y in combinations(BOTS, 2):
        counts = {pairs[x, y, i, j] for i in range(4) for j in range(4) if i != j}
        assert len(counts) == 1, (x, y, counts)


def test_rotations_keep_a_tables_cyclic_order():
    ms = list(plan("round-robin", None, None, "rotations", players=4))
    left = Counter((m.seats[i], m.seats[(i + 1) % 4]) for m in ms for i in range(4))
    assert left["h", "a"] and not left["a", "h"]  # a always sits after h


def test_paired_swaps_the_hero_for_the_challenger_and_nothing_else():
    s = plan("paired", "h", "a", "permutations", players=3)
    ms = list(s)
    assert len(s.tables) == 2 * 3  # C(3, 2) opponent pairs, each for h and for a
    for t in range(0, len(s.tables), 2):
        for m in (m for m in ms if m.table == t):
            twin = s.spec(m.id + len(s.seatings))
            assert twin.table == t + 1 and (twin.deal, twin.rotation) == (m.deal, m.rotation)
            assert twin.seats == tuple("a" if b == "h" else b for b in m.seats)


def test_a_small_field_repeats_in_league_order():
    assert format_tables(["h", "x"], 4, "gauntlet", "h") == [("h", "x", "x", "x")]
    assert format_tables(["h", "x", "y"], 4, "gauntlet", "h") == [("h", "x", "y", "x")]
    assert format_tables(["h", "c", "x"], 3, "paired", "h", "c") == [
        ("h", "x", "x"),
        ("c", "x", "x"),
    ]


def test_permutations_in_itertools_order():
    for n in range(1, 6):
        assert [nth_permutation(n, k) for k in range(len(list(permutations(range(n)))))] == list(
            permutations(range(n))
        )


def league_data(**extra):
    return {
        "name": "t",
        "players": 3,
        "deals": 1,
        "bots": {"h": "random", "a": "random", "b": "random"},
        **extra,
    }


@pytest.mark.parametrize("seatings", SEATINGS)
@pytest.mark.parametrize(("fmt", "hero", "challenger"), FORMATS)
def test_a_league_counts_its_matches_without_a_seed(fmt, hero, challenger, seatings):
    extra = {"format": fmt, "hero": hero, "challenger": challenger, "seatings": seatings}
    data = league_data(
        deals=2,
        seed="secret",
        bots=dict.fromkeys(BOTS, "random"),
        **{k: v for k, v in extra.items() if v is not None},
    )
    league = parse_league(data)
    assert league.seed is None  # no schedule without a seed: the count needs none
    whole = plan(fmt, hero, challenger, seatings)
    assert league.match_count == len(whole) and league.per_deal == whole.per_deal


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"format": "swiss"}, "format must be one of"),
        ({"format": "gauntlet"}, "missing key 'hero'"),
        ({"format": "gauntlet", "hero": "z"}, "hero 'z' is not a bot"),
        ({"hero": "h"}, 'hero goes with format = "round-robin"'),
        ({"format": "gauntlet", "hero": "h", "challenger": "a"}, "challenger goes with"),
        ({"format": "paired", "hero": "h", "challenger": "h"}, "must be different"),
        ({"seatings": "shuffled"}, "seatings must be one of"),
    ],
)
def test_bad_formats_are_one_line_errors(extra, message):
    with pytest.raises(LeagueError, match=message):
        parse_league(league_data(**extra))


def test_a_gauntlet_needs_an_opponent():
    data = league_data(format="gauntlet", hero="h")
    data["bots"] = {"h": "random"}
    with pytest.raises(LeagueError, match="at least one opponent"):
        parse_league(data)


FORMAT_LINES = {
    "round-robin": "",
    "gauntlet": 'format = "gauntlet"\nhero = "planner"\n',
    "paired": 'format = "paired"\nhero = "planner"\nchallenger = "trader"\n',
}


def matches(out):
    return pq.read_table(out / "matches").sort_by("match_id").drop_columns(["duration_s"])


@pytest.mark.parametrize(
    ("fmt", "seatings"),
    [
        pytest.param(f, s, marks=[] if (f, s) == ("gauntlet", "permutations") else pytest.mark.slow)
        for f in FORMAT_LINES
        for s in SEATINGS
    ],
)
@pytest.mark.slow
def test_runs_resume_and_shards_merge_to_the_whole_league(league, tmp_path, fmt, seatings):
    bots = {"planner": "planner", "trader": "random", "r1": "random", "r2": "random"}
    extra = FORMAT_LINES[fmt] + f'seatings = "{seatings}"\n[run]\nbatch_size = 5\n'
    path = league(deals=1, bots=bots, extra=extra, players=3)
    whole = run_league(path, tmp_path / "whole", workers=1, progress=False, moves=False)
    assert whole.complete and whole.played == len(load_league(path).schedule())
    meta = json.loads((tmp_path / "whole" / "run.json").read_text())
    assert (meta["format"], meta["seatings"]) == (fmt, seatings)
    for k in (1, 2):
        run_league(path, tmp_path / f"s{k}", workers=1, progress=False, shard=(k, 2), moves=False)
    r = CliRunner().invoke(
        cli, ["merge", str(tmp_path / "m"), str(tmp_path / "s1"), str(tmp_path / "s2")]
    )
    assert r.exit_code == 0, r.output
    assert matches(tmp_path / "m").equals(matches(tmp_path / "whole"))
    # a resume plays only what a lost part held
    (part,) = (tmp_path / "m" / "matches").glob("*.parquet")
    table = pq.read_table(part)
    kept = table.num_rows // 2
    pq.write_table(table.slice(0, kept), part.with_name(f"part-000000000-{kept - 1:09d}.parquet"))
    part.unlink()
    reseal(tmp_path / "m")
    again = run_league(path, tmp_path / "m", workers=2, progress=False, moves=False)
    assert again.done_before == kept and again.complete
    assert matches(tmp_path / "m").equals(matches(tmp_path / "whole"))
    assert again.ranking.rows() == whole.ranking.rows()


@pytest.mark.slow
def test_identical_bots_score_identically_under_permutations(league, tmp_path):
    bots = {"planner": "planner", "r1": "random", "r2": "random", "r3": "random"}
    path = league(players=4, deals=2, bots=bots, extra='seatings = "permutations"\n')
    s = run_league(path, tmp_path / "out", workers=1, progress=False, moves=False)
    rows = {r["bot"]: r for r in s.ranking.rows()}
    for key in ("matches", "wins", "mean_coins", "mean_place"):
        assert rows["r1"][key] == rows["r2"][key] == rows["r3"][key], key


@pytest.mark.slow
def test_an_old_run_without_a_format_reads_as_round_robin(league, tmp_path):
    path = league(deals=1)
    run_league(path, tmp_path / "out", workers=1, progress=False, moves=False)
    meta_file = tmp_path / "out" / "run.json"
    meta = json.loads(meta_file.read_text())
    for key in ("format", "hero", "challenger", "seatings"):
        del meta[key]
    meta_file.write_text(json.dumps(meta))
    ok = CliRunner().invoke(cli, ["rank", str(tmp_path / "out")])
    assert ok.exit_code == 0, ok.output
    meta_file.write_text(json.dumps({**meta, "seatings": "permutations"}))
    bad = CliRunner().invoke(cli, ["rank", str(tmp_path / "out")])
    assert bad.exit_code == 2 and "records format round-robin with permutations" in bad.output
