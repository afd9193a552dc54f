"""A finished match's table goes with its last reference: no cycle keeps it
(and its records) for the collector, which a worker turns off for a batch
(before, every match of a batch lived until the batch ended)."""

import gc
import weakref

import pytest

from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot


@pytest.mark.parametrize(
    ("game", "bots"),
    [("bohnanza", ["planner", "random", "planner"]), ("wuerfel", ["wuerfel-greedy"] * 3)],
)
def test_a_finished_match_is_freed_without_the_collector(game, bots):
    from importlib import import_module

    g = get_game(game)
    match_class = import_module(f"bohnarena.{game}.match").Match
    rules = g.rules(g.editions()[0], 3, {})
    players = [load_bot(spec, g.bot_base)() for spec in bots]
    enabled = gc.isenabled()
    gc.disable()
    try:
        m = match_class(rules, 5, players)
        m.play()
        assert len(m.records) > 10
        table = weakref.ref(m.table)
        del m
        assert table() is None  # freed at once, no collection run
    finally:
        if enabled:
            gc.enable()
