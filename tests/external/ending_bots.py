"""Bots for tests/external/test_protocol_end.py: what a bot is told at the end."""

import json
import sys

from bohnarena_bots.random_bot import RandomBot


class ReportsItsEnd(RandomBot):
    """Writes the result its ``end`` was given on its stderr (the seat's log)."""

    def end(self, result):
        told = {"turns": result.turns, "faults": list(result.faults), "coins": list(result.coins)}
        print(json.dumps(told), file=sys.stderr, flush=True)


class RaisesOnPlanting(RandomBot):
    """A fault at every second planting: the match has faults to tell."""

    def plant_second(self, view):
        raise ValueError("a bug")
