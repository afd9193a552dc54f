"""Matches worth watching (issue 27, part 3), on six matches made by hand
whose upsets, margins, lengths and faults are worked out below: each filter
and each sort of `matches` finds exactly the matches it should, in order, and
the report picks a few per bot and per pairing, each once."""

import pytest

from bohnarena.analysis.notable import Query, find, report_picks, scores
from bohnarena.rating.skill import BotStanding, Ranking
from bohnarena.rating.stats import collect

BOTS = ["a", "b", "c", "d"]
#: Scores (mu - 3 sigma with sigma 0): a 30, b 20, c 10, d 0.
RANKING = Ranking([BotStanding(b, mu=30.0 - 10 * i, sigma=0.0) for i, b in enumerate(BOTS)])

#: id: deal, seats, coins, places, faults, turns; then what follows from them.
MATCHES = {
    # no upset; margin 5
    0: (0, "abc", (10, 5, 3), (1, 2, 3), (0, 0, 0), 20),
    # c over b (10); margin 7; d faults twice
    1: (0, "bcd", (2, 9, 1), (2, 1, 3), (0, 0, 2), 25),
    # d over a (30, seat 2 over seat 1), c over a (20), d over c (10); margin 8; c faults
    2: (1, "cad", (4, 4, 12), (2, 3, 1), (1, 0, 0), 22),
    # no upset; margin 1; b faults 3 times
    3: (1, "dba", (6, 7, 8), (3, 2, 1), (0, 3, 0), 30),
    # d over a (30, seat 1 over seat 0), d over b (20); first place shared in coins: margin 0
    4: (1, "adb", (5, 5, 1), (2, 1, 3), (0, 0, 0), 25),
    # c over a (20), c over b (10); margin 0
    5: (2, "bac", (3, 9, 9), (3, 2, 1), (0, 0, 0), 18),
}


def made():
    rows = [
        {
            "match_id": mid,
            "deal": deal,
            "seats": list(seats),
            "coins": list(coins),
            "ranks": list(places),
            "winners": [s for s, p in enumerate(places) if p == 1],
            "faults": list(faults),
            "turns": turns,
            "duration_s": 0.1,
        }
        for mid, (deal, seats, coins, places, faults, turns) in MATCHES.items()
    ]
    m = collect(rows, BOTS)
    return m, scores(m, RANKING)


def ids(**query):
    m, score = made()
    for key in ("bot", "against"):
        if key in query:
            query[key] = BOTS.index(query[key])
    found, total = find(m, score, Query(limit=None, **query))
    assert total == len(found)
    return [int(m.match_id[f.row]) for f in found]


@pytest.mark.parametrize(
    "query, expected",
    [
        ({}, [0, 1, 2, 3, 4, 5]),
        ({"bot": "a"}, [0, 2, 3, 4, 5]),
        ({"bot": "a", "seat": 0}, [0, 4]),
        ({"bot": "a", "seat": 1}, [2, 5]),
        ({"bot": "d", "against": "b"}, [1, 3, 4]),
        ({"deal": 1}, [2, 3, 4]),
        ({"faulted": True}, [1, 2, 3]),
        ({"bot": "c", "faulted": True}, [2]),
        ({"bot": "a", "faulted": True}, []),
        ({"deal": 1, "bot": "b", "seat": 2}, [4]),
    ],
)
def test_each_filter_finds_exactly_its_matches_in_id_order(query, expected):
    assert ids(**query) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        # largest gap first, ties by id; only matches with an upset
        ({"sort": "upset"}, [2, 4, 5, 1]),
        # only the pairs with b in them: d over b 20, c over b 10 (twice)
        ({"sort": "upset", "bot": "b"}, [4, 1, 5]),
        ({"sort": "upset", "bot": "d", "against": "a"}, [2, 4]),
        ({"sort": "upset", "bot": "a", "against": "b"}, []),
        ({"sort": "longest"}, [3, 1, 4, 2, 0, 5]),
        ({"sort": "faults"}, [3, 1, 2, 0, 4, 5]),
        # with a bot: its own faults
        ({"sort": "faults", "bot": "d"}, [1, 2, 3, 4]),
        ({"sort": "margin"}, [2, 1, 0, 3, 4, 5]),
        ({"sort": "margin", "deal": 1}, [2, 3, 4]),
        ({"sort": "id", "bot": "c"}, [0, 1, 2, 5]),
    ],
)
def test_each_sort_orders_the_matches_largest_first_then_by_id(query, expected):
    assert ids(**query) == expected


def test_an_upset_says_which_seats_and_the_sorted_values_and_the_limit():
    m, score = made()
    found, total = find(m, score, Query(sort="upset", limit=2))
    assert total == 4 and len(found) == 2
    assert [(f.value, f.ahead, f.behind) for f in found] == [(30.0, 2, 1), (30.0, 1, 0)]
    found, _ = find(m, score, Query(sort="margin", limit=None))
    assert [f.value for f in found] == [8, 7, 5, 1, 0, 0]
    found, _ = find(m, score, Query(sort="longest", limit=1))
    assert [f.value for f in found] == [30]


def test_the_report_picks_each_bots_win_upset_and_faults_then_each_pairings_upset_once():
    m, score = made()
    picks = report_picks(m, score, order=[0, 1, 2, 3])
    got = {int(m.match_id[p.row]): p.why for p in picks}
    assert list(got) == [0, 1, 2, 4, 3]
    assert got == {
        0: ["a's biggest win (by 5 coins)"],
        1: [
            "c's biggest win (by 7 coins)",
            "d faulted most (2 faults)",
            "largest upset: c over b (10.00)",
        ],
        2: [
            "d's biggest win (by 8 coins)",
            "a's largest upset suffered (30.00)",
            "c's largest upset suffered (10.00)",
            "c faulted most (1 fault)",
            "largest upset: d over a (30.00)",
            "largest upset: c over a (20.00)",
            "largest upset: d over c (10.00)",
        ],
        4: ["b's largest upset suffered (20.00)", "largest upset: d over b (20.00)"],
        3: ["b faulted most (3 faults)"],
    }
    capped = report_picks(m, score, order=[0, 1, 2, 3], most=2)
    assert [int(m.match_id[p.row]) for p in capped] == [0, 1]


def test_no_matches_no_picks():
    m = collect([], BOTS)
    score = scores(m, RANKING)
    assert report_picks(m, score, [0, 1, 2, 3]) == []
    assert find(m, score, Query(sort="upset")) == ([], 0)
