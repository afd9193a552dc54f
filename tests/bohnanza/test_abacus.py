"""The abacus (bots/abacus.py) is shipped (its matches: test_beancounter.py)."""

from __future__ import annotations

from bohnarena.core.plugins import entry_point
from bohnarena_bots.abacus import AbacusBot


def test_it_is_shipped():
    ep = entry_point("abacus")
    assert ep is not None and ep.load() is AbacusBot
