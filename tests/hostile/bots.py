"""Bots that attack the arena. Each misbehaves in plant_second (asked every
turn it has a card left), so it misbehaves in every match."""

import gc
import os
import random
import sys
import time

from bohnarena.bohnanza import Bot


class Raises(Bot):
    def plant_second(self, view):
        raise RuntimeError("always")


class SleepsForever(Bot):
    def plant_second(self, view):
        time.sleep(10**6)


class BusyLoop(Bot):
    def plant_second(self, view):
        while True:
            pass


class Garbage(Bot):
    def plant_second(self, view):
        return {"yes": "please"}

    def plant(self, view, card):
        return 99


class Exits(Bot):
    def plant_second(self, view):
        os._exit(7)


class Hoards(Bot):
    def plant_second(self, view):
        hoard = []
        while True:
            hoard.append(bytearray(50 * 1024 * 1024))


class Floods(Bot):
    """Answers with a message far over the output limit."""

    def plant_second(self, view):
        return [0] * (1024 * 1024)


class Prints(Bot):
    """Prints a lot: it goes to its log (capped), never into the protocol."""

    def plant_second(self, view):
        print("x" * (256 * 1024))
        return False


class Reseeds(Bot):
    def plant_second(self, view):
        random.seed(0)
        random.random()
        return False


class Snoops(Bot):
    """Looks for the engine's table among all objects, to read other hands."""

    def plant_second(self, view):
        tables = [o for o in gc.get_objects()
                  if type(o).__name__ == "Table" and hasattr(o, "hands")]
        print(f"snoop: found {len(tables)} engine tables", file=sys.stderr, flush=True)
        return False
