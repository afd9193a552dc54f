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
        tables = [
            o for o in gc.get_objects() if type(o).__name__ == "Table" and hasattr(o, "hands")
        ]
        print(f"snoop: found {len(tables)} engine tables", file=sys.stderr, flush=True)
        return False


# -- in process: bugs beyond Exception (tests/hostile/test_inprocess.py) ----
class ExitsZero(Bot):
    def plant_second(self, view):
        sys.exit(0)


class RaisesKeyboardInterrupt(Bot):
    def plant_second(self, view):
        raise KeyboardInterrupt


class RaisesGeneratorExit(Bot):
    def plant_second(self, view):
        raise GeneratorExit


class Bare(BaseException):
    def __str__(self):  # its message is never rendered: this would hang the worker
        while True:
            pass


class RaisesBaseException(Bot):
    def plant_second(self, view):
        raise Bare("bare")


class InitRaises(Bot):
    def __init__(self):
        raise SystemExit(3)


class InitSleeps(Bot):
    def __init__(self):
        time.sleep(10**6)


class StartSleeps(Bot):
    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        time.sleep(10**6)


class DecisionsSleep(Bot):
    def decisions(self, rules):
        time.sleep(10**6)


class EndExits(Bot):
    def end(self, result):
        sys.exit(1)


class SwallowsTimeout(Bot):
    def plant_second(self, view):
        while True:
            try:
                time.sleep(1)
            except:  # noqa: E722 - the bug under test
                pass


class SwallowsTimeoutBusy(Bot):
    """The same, busy in Python code rather than asleep in C. Its loop is
    inside the ``try``: a signal is handled at a loop's jump back, and one
    handled at a jump outside the ``try`` would not be swallowed."""

    def plant_second(self, view):
        while True:
            try:
                while True:
                    x = 0
                    for i in range(10**5):
                        x += i
            except:  # noqa: E722
                continue


class SilencesTheWatchdog(Bot):
    """Stops the watchdog's timer, ignores its signal, and loops for ever."""

    def plant_second(self, view):
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass


class SpendsBank(Bot):
    """Each decision fits the decision limit; together they overrun the bank."""

    def plant_second(self, view):
        time.sleep(0.3)
        return False


class PropertyRaises(Bot):
    """Its decision is a property that raises on lookup."""

    @property
    def plant_second(self):
        raise SystemExit(5)


from bohnarena.wuerfel.bot import Bot as DiceBot  # noqa: E402


class DiceInitSleeps(DiceBot):
    def __init__(self):
        time.sleep(10**6)
