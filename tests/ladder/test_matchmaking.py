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
