"""Bots that misbehave on purpose, for the runner's tests."""

import os

from bohnarena.bohnanza import Bot


class ExitInSeatZero(Bot):
    """Kills its worker process whenever it plays the start seat."""

    def plant_second(self, view):
        if view.seat == 0:
            os._exit(3)
        return False


class RaiseAlways(Bot):
    def plant_second(self, view):
        raise RuntimeError("always")

    def plant(self, view, card):
        raise RuntimeError("always")


class Noter(Bot):
    """Notes every plant (and a note over the limit): its notes go to the log only."""

    def plant(self, view, card):
        self.note(f"planting {card} " + "x" * 300 * (view.turn == 1))
        return super().plant(view, card)


class MatchIdNoter(Bot):
    """Notes the match id its view tells it, at every plant it is asked."""

    def plant(self, view, card):
        self.note(f"match {view.match_id}")
        return super().plant(view, card)


class ExitZeroInSeatOne(Bot):
    """Ends its worker, with the exit code of success, whenever it plays seat 1."""

    def plant_second(self, view):
        if view.seat == 1:
            os._exit(0)
        return False


class SameButNeverExits(Bot):
    """ExitInSeatZero's play, without the exit (what its other matches play)."""

    def plant_second(self, view):
        return False


class ExitAtStartInSeatOne(Bot):
    """Kills its worker in its start hook whenever it sits in seat 1."""

    def start(self, seat, rules, rng):
        if seat == 1:
            os._exit(4)
        super().start(seat, rules, rng)


class ExitInConstructor(Bot):
    """Kills its worker as it is built, in every match."""

    def __init__(self):
        os._exit(5)


class ExitWhenDropped(Bot):
    """Kills its worker when the engine drops it after a match in seat 0:
    in no call of its own."""

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        self.fatal = seat == 0

    def __del__(self):
        if getattr(self, "fatal", False):
            os._exit(6)


class SilenceWatchdogInSeatZero(Bot):
    """Whenever it plays the start seat: stops the watchdog's timer, ignores
    its signal, and loops for ever."""

    def plant_second(self, view):
        import signal  # (here: test_run.py names the lines above)

        if view.seat == 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            while True:
                pass
        return False


class StrayThenExitInSeatZero(Bot):
    """Whenever it plays the start seat: starts a process in a session of its
    own (it keeps the worker's output open), then kills its worker."""

    def plant_second(self, view):
        if view.seat == 0:
            import subprocess

            subprocess.Popen(["sleep", "4247"], start_new_session=True)
            os._exit(3)
        return False
