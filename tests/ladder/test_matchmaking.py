"""Matchmaking that scales (issue 26, part 4): a ladder of 200 entries
grown by one schedules that entry's matches only, at tables drawn for it,
the same on every run. The ladder's state is built directly (no 200
conformance checks): its catalog, and its results' history of one entry
added per run."""

import hashlib
from collections import Counter

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.season import write_league
from bohnarena.ladder.settings import load_settings
from bohnarena.league.file import load_league
from bohnarena.league.growth import Generation, generations_json, schedule_of
from bohnarena.league.schedule import format_tables
from bohnarena.store.growing import Growth


def add_entry(catalog, name):
    digest = hashlib.sha256(name.encode()).hexdigest()
    entry = {"file": "bot.py", "attr": "Mine"}
    catalog.activate(catalog.add(name, digest, "file", entry, "bot.py", ""))


@pytest.mark.slow
def test_a_ladder_of_200_grown_by_one_schedules_its_matches_only(ladder):
    settings = load_settings(ladder)
    catalog = Catalog(ladder)
    for i in range(200):
        add_entry(catalog, f"author{i:03d}")
    old_text = write_league(ladder, settings, catalog).read_text()
    league = load_league(ladder / "league.toml")
    bots = list(league.bots)
    history = [Generation(tuple(bots[:n]), league.deals) for n in range(1, 201)]
    meta = {"generations": generations_json(schedule_of(league, 0, history), history)}
    add_entry(catalog, "newcomer")
    text = write_league(ladder, settings, catalog).read_text()
    newcomer = catalog.active()[-1].bot
    catalog.close()
    growth = Growth(old_text, meta, text)
    plan = growth.schedule
    added = [plan.spec(i) for i in plan.spans[-1]]
    # its deals (2) at one table each, under the table's 4 seatings: nothing else
    assert len(added) == 2 * 4 and all(newcomer in m.seats for m in added)
    assert Counter(m.seats.index(newcomer) for m in added) == {0: 2, 1: 2, 2: 2, 3: 2}
    assert len(plan) - len(added) == len(schedule_of(league, 0, history))
    assert growth.schedule.spans[:-1] == schedule_of(league, 0, history).spans
    # the same tables again on another run (or a resumed one)
    again = Growth(old_text, meta, text).schedule
    assert [again.spec(i) for i in again.spans[-1]] == added


def test_raising_deals_extends_the_full_tables_and_leaves_drawn_ones_at_their_deal(ladder):
    """Five entries play full round-robins (C(4, 3) = 4 tables a deal, at
    most full_tables = 4); the sixth would have 10, so it plays its 2 deals
    at tables drawn for it. Deals raised to 3: the full tables get deal 2,
    the drawn tables nothing, and both stay in the standings."""
    text = (ladder / "ladder.toml").read_text().replace("full_tables = 100", "full_tables = 4")
    (ladder / "ladder.toml").write_text(text)
    catalog = Catalog(ladder)
    texts, history = [], []

    def grow():
        texts.append(write_league(ladder, load_settings(ladder), catalog).read_text())
        league = load_league(ladder / "league.toml")
        history.append(Generation.of(league))
        meta = {"generations": generations_json(schedule_of(league, 0, history), history)}
        return league, meta

    for i in range(5):
        add_entry(catalog, f"author{i}")
    first, _ = grow()
    add_entry(catalog, "newcomer")
    grow()
    (ladder / "ladder.toml").write_text(text.replace("deals = 2 ", "deals = 3 "))
    _, meta = grow()
    newcomer = catalog.active()[-1].bot
    catalog.close()
    plan = Growth(texts[-2], meta, texts[-1]).schedule
    drawn = [plan.spec(i) for i in plan.spans[1]]
    assert len(drawn) == 2 * 4 and all(newcomer in m.seats for m in drawn)
    added = [plan.spec(i) for i in plan.spans[2]]
    # deal 2 at each of the 5 full tables (of the first five), under 4 seatings
    assert len(added) == 5 * 4 and {m.deal for m in added} == {2}
    assert all(newcomer not in m.seats for m in added)
    assert {tuple(sorted(m.seats)) for m in added} == {
        tuple(sorted(t)) for t in format_tables(list(first.bots), 4)
    }
    assert all(plan.stands(*plan.locate(i)) for i in [*plan.spans[1], *plan.spans[2]])
