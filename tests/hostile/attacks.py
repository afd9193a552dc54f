"""Bots that attack the arena from inside the sandbox. Each tries its attack
in every plant_second (asked every turn) and reports what it got through
its stderr log, which the tests read: "GOT ..." is a breach.

The tests copy this file into a directory of its own and append the
``TARGETS`` (paths, pids and a port of the organiser's machine) to the copy.
"""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from bohnarena.bohnanza import Bot

TARGETS: dict = {}  # the test appends the real ones to its copy of this file


def targets():
    return TARGETS


def report(what):
    print(what, file=sys.stderr, flush=True)


class Reads(Bot):
    """Reads the league file (the master seed), results, other bots, /proc."""

    def plant_second(self, view):
        t = targets()
        for path in [*t.get("secrets", []), "/proc/1/environ", "/etc/passwd"]:
            try:
                data = Path(path).read_bytes() if Path(path).is_file() else os.listdir(path)
                report(f"GOT {path}: {str(data)[:60]}" if data else f"empty {path}")
            except OSError:
                report(f"sealed {path}")
        for path in t.get("listed", []):
            try:
                report(f"listed {path}: {sorted(os.listdir(path))}")
            except OSError:
                report(f"listed {path}: []")
        report(f"env {sorted(os.environ)}")
        report(f"pids {sorted(p for p in os.listdir('/proc') if p.isdigit())}")
        return False


class Signals(Bot):
    """Signals everything it can reach: the worker, its group, every pid."""

    def plant_second(self, view):
        t = targets()
        for pid in [os.getppid(), *t.get("pids", [])]:
            for sig in (signal.SIGSTOP, signal.SIGINT, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                    report(f"signalled {pid} with {sig.name}")
                except OSError:
                    pass
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.killpg(os.getpgid(0), sig)
            except OSError:
                pass
        return False


class Writes(Bot):
    """Writes a .pth into site-packages, files next to the league, many files."""

    def plant_second(self, view):
        for d in targets().get("writable", []):
            try:
                (Path(d) / "evil.pth").write_text("import os; os._exit(9)\n")
                report(f"GOT a write in {d}")
            except OSError:
                report(f"sealed {d}")
        written = 0
        try:
            for i in range(100_000):
                (Path("/tmp") / f"f{i}").write_bytes(b"x" * 65536)
                written += 1
        except OSError:
            pass
        report(f"tmp files {written}")
        return False


class Spawns(Bot):
    """Starts children that would outlive the match."""

    def plant_second(self, view):
        try:
            subprocess.Popen(["sleep", "4242"], start_new_session=True)
            report("GOT a child")
        except OSError as e:
            report(f"no child: {e}")
        try:
            if os.fork() == 0:
                os.setsid()
                os.execvp("sleep", ["sleep", "4243"])
            report("GOT a fork")
        except OSError as e:
            report(f"no fork: {e}")
        return False


class Connects(Bot):
    """Reaches for the network: a listener on the organiser's loopback."""

    def plant_second(self, view):
        port = targets().get("port")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            report("GOT a connection")
        except OSError as e:
            report(f"no network: {e}")
        return False


class Remembers(Bot):
    """Leaves state in /tmp and in its module to find in a later match."""

    seen = 0

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        if Path("/tmp/mark").exists() or Remembers.seen:
            report("GOT state from an earlier match")
        Remembers.seen += 1

    def plant_second(self, view):
        Path("/tmp/mark").write_text("here")
        return False


class Nests(Bot):
    """Leaves a tree in /tmp nested deeper than the recursion limit (its
    supervisor empties /tmp after each match), and says which supervisor
    (pid 1, by its start time) served each match."""

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        if Path("/tmp/deep").exists():
            report("GOT a tree from an earlier match")
        with open("/proc/1/stat") as f:
            report(f"supervisor started at {f.read().rsplit(')', 1)[1].split()[19]}")
        self.nested = False

    def plant_second(self, view):
        if not self.nested:
            self.nested = True
            depth, fd = 0, os.open("/tmp", os.O_RDONLY)
            try:  # by names relative to a directory: no path grows past PATH_MAX
                for _ in range(targets().get("depth", 2000)):
                    os.mkdir("deep", dir_fd=fd)
                    fd, old = os.open("deep", os.O_RDONLY, dir_fd=fd), fd
                    os.close(old)
                    depth += 1
                os.close(os.open("leaf", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
            except OSError as e:
                report(f"stopped: {e}")
            os.close(fd)
            report(f"nested {depth}")
        return False
