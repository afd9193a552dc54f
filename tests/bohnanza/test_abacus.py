"""The abacus (bots/abacus.py): the bean counter's search on fast
playouts; legal in every edition, and a seed plays the same match."""

from __future__ import annotations

import pytest

from bohnarena.bohnanza import play_match, ruleset
from bohnarena.core.plugins import entry_point
from bohnarena_bots.abacus import AbacusBot

from .test_beancounter import TABLES, table


class Quick(AbacusBot):
    """A small budget: the quick loop's matches take a second."""

    playouts = 8
    min_deals = 1
    horizon_rounds = 1


@pytest.mark.parametrize(("edition", "players", "options"), TABLES)
def test_it_answers_legally_in_every_edition(edition, players, options):
    me = Quick()
    bots = table(me, players)
    k = len(options) + players // 2  # not always the first seat
    bots = bots[-k:] + bots[:-k]
    result, records = play_match(ruleset(edition, players, **options), players, bots)
    assert not any(result.faults)
    assert me.searches > 10
    assert not [r for r in records if r[0] == "fault"]


def test_the_same_seed_plays_the_same_match():
    rules = ruleset("classic", 4)
    runs = [play_match(rules, 5, table(Quick(), 4)) for _ in range(2)]
    assert runs[0] == runs[1]


def test_it_is_shipped():
    ep = entry_point("abacus")
    assert ep is not None and ep.load() is AbacusBot
