"""Round-robin tables, duplicate deals, seat rotations and seeds."""

from collections import Counter
from itertools import combinations

from bohnarena.league.schedule import match_count, schedule, tables


def test_every_table_every_deal_every_rotation_once():
    bots = ["a", "b", "c", "d", "e"]
    ms = list(schedule(bots, 4, 3, 9))
    assert len(ms) == match_count(bots, 4, 3) == 5 * 3 * 4
    assert [m.id for m in ms] == list(range(len(ms)))
    assert {frozenset(m.seats) for m in ms} == {frozenset(c) for c in combinations(bots, 4)}
    assert Counter((m.table, m.deal, m.rotation) for m in ms) == Counter(
        {(t, d, r): 1 for t in range(5) for d in range(3) for r in range(4)}
    )


def test_each_bot_plays_each_seat_of_each_deal_once_per_table():
    ms = list(schedule(["a", "b", "c", "d"], 4, 2, 1))
    for deal in range(2):
        seats = Counter((b, s) for m in ms if m.deal == deal for s, b in enumerate(m.seats))
        assert set(seats.values()) == {1} and len(seats) == 16
    per_bot = Counter(b for m in ms for b in m.seats)
    assert set(per_bot.values()) == {8}


def test_duplicate_deals_share_a_seed_across_tables_and_rotations():
    ms = list(schedule(["a", "b", "c", "d", "e"], 3, 4, 77))
    by_deal = {}
    for m in ms:
        by_deal.setdefault(m.deal, set()).add(m.seed)
    assert all(len(s) == 1 for s in by_deal.values()) and len({*map(min, by_deal.values())}) == 4


def test_seeds_depend_only_on_master_seed_and_deal():
    a = list(schedule(["x", "y", "z"], 3, 3, 1))
    b = list(schedule(["x", "y", "z"], 3, 3, 1))
    c = list(schedule(["x", "y", "z"], 3, 3, 2))
    assert a == b and [m.seed for m in a] != [m.seed for m in c]


def test_fewer_bots_than_seats_repeat_in_league_order():
    assert tables(["a", "b"], 4) == [("a", "b", "a", "b")]
    assert tables(["a", "b", "c"], 5) == [("a", "b", "c", "a", "b")]
