"""Drawn tables (issue 26, part 4; docs/ladder.md, "Matchmaking that
scales"): beyond ``full_tables`` a newcomer plays ``deals`` deals at tables
drawn for it, every seat equally often, each opponent met floor(k) or
ceil(k) times, the same tables from the same seed and name; a league that
stays under the limit plays what it played without it; growing one rates
its new matches only, to the same numbers as rating everything again."""

import dataclasses
from collections import Counter
from math import ceil, floor

import pytest

from bohnarena.analysis.results import read_results
from bohnarena.core.entry import LeagueError
from bohnarena.league.drawn import drawn_tables
from bohnarena.league.file import parse_league
from bohnarena.league.growth import Generation, GrowthError, check_growth, schedule_of
from bohnarena.run import dispatch

from .test_growing import count_ratings, grow, run


@pytest.mark.parametrize(
    ("field", "players", "deals"),
    [(199, 4, 10), (199, 4, 300), (4, 4, 7), (5, 4, 13), (9, 3, 100), (3, 4, 5), (6, 2, 20)],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_opponent_is_met_floor_or_ceil_of_its_share(field, players, deals, seed):
    others = [f"o{i}" for i in range(field)]
    tables = drawn_tables("new", others, players, deals, seed)
    assert len(tables) == deals
    assert all(t[0] == "new" and len(set(t)) == players for t in tables)
    met = Counter(o for t in tables for o in t[1:])
    share = deals * (players - 1) / field
    assert all(floor(share) <= met[o] <= ceil(share) for o in others)


def test_the_draw_follows_the_seed_and_the_newcomer_only():
    others = [f"o{i}" for i in range(50)]
    once = drawn_tables("new.1234abcd", others, 4, 10, 7)
    assert once == drawn_tables("new.1234abcd", others[::-1], 4, 10, 7)  # (field order aside)
    assert once != drawn_tables("new.1234abcd", others, 4, 10, 8)
    assert once != drawn_tables("new.5678abcd", others, 4, 10, 7)


def league_of(bots, full_tables=100, deals=3, players=4):
    data = {"name": "x", "players": players, "deals": deals, "full_tables": full_tables}
    return parse_league({**data, "bots": dict.fromkeys(bots, "random")})


BOTS = [f"e{i:03d}" for i in range(201)]


@pytest.mark.slow
def test_two_hundred_entries_and_one_more_schedule_its_matches_only():
    grown_one_at_a_time = [Generation(tuple(BOTS[:n]), 3) for n in range(1, 202)]
    before = schedule_of(league_of(BOTS[:200]), 11, grown_one_at_a_time[:200])
    after = schedule_of(league_of(BOTS), 11, grown_one_at_a_time)
    assert len(after) - len(before) == 3 * 4  # 3 deals at one table, 4 seatings
    assert [before.spec(i) for i in range(len(before))] == [
        after.spec(i) for i in range(len(before))
    ]
    added = [after.spec(i) for i in after.spans[-1]]
    assert sorted(m.deal for m in added) == sorted(list(range(3)) * 4)
    assert Counter(m.seats.index("e200") for m in added) == {0: 3, 1: 3, 2: 3, 3: 3}
    assert all(after.stands(m.table, m.deal) for m in added)
    # a rerun (or a resumed run) schedules the same tables
    again = schedule_of(league_of(BOTS), 11, grown_one_at_a_time)
    assert [again.spec(i) for i in after.spans[-1]] == added


def test_retiring_an_entry_takes_its_tables_out_of_the_standings():
    gens = [Generation(tuple(BOTS[:n]), 2) for n in range(1, 41)]
    gens.append(Generation(tuple(BOTS[1:40]), 2))
    plan = schedule_of(league_of(BOTS[1:40], deals=2), 5, gens)
    assert len(plan.spans[-1]) == 0  # nothing to play
    standing = [plan.spec(i) for i in plan.standing_ids()]
    assert standing and all("e000" not in m.seats for m in standing)
    kept = [plan.spec(i) for i in range(len(plan)) if "e000" not in plan.spec(i).seats]
    assert sorted(m.id for m in kept) == sorted(m.id for m in standing)


@pytest.mark.parametrize("full_tables", [100, 2])  # its full tables; its drawn ones
def test_an_entry_that_comes_back_stands_again_at_its_tables(full_tables):
    # (a ladder's suspended version, reinstated: its matches stand again,
    # none is played twice)
    gens = [Generation(tuple(BOTS[:n]), 2) for n in range(1, 7)]
    whole = schedule_of(league_of(BOTS[:6], full_tables, 2), 5, gens)
    away = [*gens, Generation(tuple(BOTS[:5]), 2)]
    back = [*away, Generation(tuple(BOTS[:6]), 2)]
    plan = schedule_of(league_of(BOTS[:6], full_tables, 2), 5, back)
    assert len(plan.spans[-2]) == len(plan.spans[-1]) == 0  # nothing to play
    assert plan.standing_ids() == whole.standing_ids()
    assert any("e005" in plan.spec(i).seats for i in plan.standing_ids())


def test_under_the_limit_a_league_plays_its_full_round_robin():
    for n in range(1, 9):
        gens = [Generation(tuple(BOTS[:k]), 2 + k % 2) for k in range(1, n + 1)]
        with_limit = schedule_of(league_of(BOTS[:n], 10**6, 2 + n % 2), 3, gens)
        league = dataclasses.replace(league_of(BOTS[:n], 10**6, 2 + n % 2), full_tables=None)
        without = schedule_of(league, 3, gens)
        assert len(with_limit) == len(without)
        assert with_limit.standing_ids() == without.standing_ids()
        assert sorted((m.seats, m.deal) for m in with_limit) == sorted(
            (m.seats, m.deal) for m in without
        )


def test_full_tables_is_checked_and_kept():
    with pytest.raises(LeagueError, match="full_tables"):
        league_of(BOTS[:5], 0)
    with pytest.raises(GrowthError, match="full_tables changed"):
        check_growth(league_of(BOTS[:5], 10), league_of(BOTS[:6], 20))


@pytest.mark.slow
def test_a_drawn_league_grown_rates_its_new_matches_as_a_full_replay(league, tmp_path, monkeypatch):
    bots = {f"r{i}": "random" for i in range(8)}
    path, out = league(bots=bots, players=4, deals=2, extra="full_tables = 3\n"), tmp_path / "out"
    first = run(path, out)
    assert first.complete and first.played == 8 * 2 * 4  # C(7, 3) = 35 > 3: drawn
    grow(path, {**bots, "r8": "random"})
    rated = count_ratings(monkeypatch)
    second = run(path, out)
    assert second.played == 2 * 4 and len(rated) == 8  # the kept ratings go on
    (out / "ratings.parquet").unlink()
    again = read_results(out)  # TrueSkill over every match again, in id order
    assert second.ranking is not None and second.ranking.rows() == again.ranking.rows()
    assert second.results is not None
    assert (second.results.curve.mu == again.curve.mu).all()


@pytest.mark.slow
def test_a_grown_league_starts_only_its_new_bots_before_it_runs(league, tmp_path, monkeypatch):
    bots = {f"r{i}": "random" for i in range(5)}
    extra = 'full_tables = 3\n[run]\nisolation = "process"\n'
    path, out = league(bots=bots, players=4, deals=1, extra=extra), tmp_path / "out"
    assert run(path, out).complete
    started = []
    real = dispatch.preflight

    def counting(game, entry, *rest):
        started.append(entry.name)
        return real(game, entry, *rest)

    monkeypatch.setattr(dispatch, "preflight", counting)
    grow(path, {**bots, "r5": "random"})
    assert run(path, out).played == 4 and started == ["r5"]  # the others started when they joined
    started.clear()
    again = dispatch.run_league(path, out, workers=2, progress=False, restart=True)
    assert again.complete and sorted(started) == sorted([*bots, "r5"])  # afresh: every bot
