"""Bots run as a ``process`` (tests/hostile/test_process.py): each tries
what the threat table says that mode contains, and reports on its stderr
(``bots/<name>.log``): "GOT ..." is a breach."""

import ctypes
import os
import signal
import subprocess
import sys
import tempfile

from bohnarena.bohnanza import Bot


def report(what):
    print(what, file=sys.stderr, flush=True)


class KillsItsWorkerInSeatZero(Bot):
    """Whenever it plays the start seat, kills the process that plays the match."""

    def plant_second(self, view):
        if view.seat == 0:
            os.kill(os.getppid(), signal.SIGKILL)
        return False


class RemembersInModule(Bot):
    """Looks for what an earlier match left in its module."""

    seen = 0

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        if RemembersInModule.seen:
            report("GOT state from an earlier match")
        RemembersInModule.seen += 1


class SpawnsInItsSession(Bot):
    """Starts a child in its own session (no setsid), to outlive the match."""

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        subprocess.Popen(["sleep", "4246"])


class WritesBigFile(Bot):
    """Writes a file larger than its cap (x16 output_kb)."""

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        with tempfile.TemporaryFile() as f:
            try:
                for _ in range(64):
                    f.write(b"x" * 65536)
                    f.flush()
                report("GOT a 4 MB file")
            except OSError as e:
                report(f"capped at {f.tell()} bytes: {e.strerror}")


_PR_GET_DUMPABLE = 3


class NotesWhetherDumpable(Bot):
    """In process: notes whether the process playing its match is dumpable."""

    def plant(self, view, card):
        self.note(f"dumpable {ctypes.CDLL(None).prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)}")
        return super().plant(view, card)


class StopsItsWorkerInSeatZero(Bot):
    """Whenever it plays the start seat, stops the process that plays the match."""

    def plant_second(self, view):
        if view.seat == 0:
            os.kill(os.getppid(), signal.SIGSTOP)
        return False
