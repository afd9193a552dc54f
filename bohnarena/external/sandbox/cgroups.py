"""Control groups around a sandbox, where this machine lets us make them
(cgroup hierarchies we may write, as root usually): a cap on its processes
(``pids``) and on all the memory its processes use, shared memory and files
in its /tmp included (``memory``), the worker's cores (``cpuset``), all
cgroup v1; and a CPU weight (v1 ``cpu.shares``, or v2 ``cpu.weight``) that
is the least there is but while the engine waits on the sandbox (its
turn), so that off its turn no number of its processes or sessions takes
another seat's time. Elsewhere the sandbox relies on rlimits and the
zygote's own process count, and its CPU is not contained
(:func:`cpu_contained`: the run warns).

Not the v1 freezer, which would stop a sandbox outright off its turn: a
frozen process does not die of SIGKILL until thawed (a worker killed while
its sandbox is frozen would leave it frozen for good), and freezing 30 busy
processes took 72 ms here, where a weight is written in microseconds."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
SELF = Path("/proc/self/cgroup")
PREFIX = "bohnarena-"
_COUNT = itertools.count()
#: (file, weight on its turn, weight off it): v1's default share is a
#: session's (an autogroup's, 1024), 2 the least; v2's 100 and 1.
V1_CPU = ("cpu.shares", b"1024", b"2")
V2_CPU = ("cpu.weight", b"100", b"1")


def _own(controller: str) -> Path | None:
    """This process's group in the v1 hierarchy of ``controller``."""
    try:
        for line in SELF.read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(","):
                return ROOT / controller / path.lstrip("/")
    except OSError:
        pass
    return None


def _cpu_parent() -> tuple[Path, tuple[str, bytes, bytes]] | None:
    """Where a sandbox's CPU group goes and how its weight is written: the
    v1 ``cpu`` hierarchy if mounted, else, in v2, beside this process's own
    group (a group that holds processes may not hand controllers down; the
    root may), where the ``cpu`` controller is already handed down there
    (enabling it is the host's choice, not ours)."""
    v1 = _own("cpu")
    if v1 is not None and (v1 / V1_CPU[0]).exists():
        return v1, V1_CPU
    try:
        if not (ROOT / "cgroup.controllers").exists():
            return None
        path = next(line[3:] for line in SELF.read_text().splitlines() if line.startswith("0::"))
        own = ROOT / path.strip("/")
        parent = own if own == ROOT else own.parent
        if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
            return None
    except (OSError, StopIteration):
        return None
    return parent, V2_CPU


UNCONTAINED_CPU = (
    "this machine gives the sandbox no CPU group (cgroup v1 cpu, or v2 with its cpu "
    "controller delegated: as root, usually): a sandboxed bot's processes can take "
    "the CPU of the other seats on its core and have them charged timeouts "
    "(docs/writing-a-bot.md, the threat table)."
)


@functools.cache
def cpu_contained() -> bool:
    """Can this process give a sandbox a CPU group of its own (tried once)?"""
    found = _cpu_parent()
    if found is None:
        return False
    probe = found[0] / f"{PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir()
        (probe / found[1][0]).write_bytes(found[1][2])
    except OSError:
        return False
    finally:
        _remove(probe)
    return True


def _sweep(parent: Path, weight: tuple[str, bytes] | None = None) -> None:
    """Remove groups of runs that are gone (a worker that was killed). A CPU
    group's ``weight`` is raised first: the death signal its sandbox got
    with its worker takes CPU to act, which the least weight may not give."""
    for group in parent.glob(f"{PREFIX}*"):
        pid = group.name[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                if weight is not None:
                    (group / weight[0]).write_bytes(weight[1])
                group.rmdir()
            except OSError:
                pass


class Groups:
    """The groups of one sandbox: made, entered by its first process before
    it starts (so all it starts stays inside), removed when it is killed.
    Its CPU weight is the least there is but in :meth:`turn`."""

    def __init__(self, processes: int, memory_bytes: int) -> None:
        self.paths: list[Path] = []
        self.caps_processes = False
        self._weight: int | None = None  # its CPU weight file, held open
        self._turn, self._rest = b"", b""
        name = f"{PREFIX}{os.getpid()}-{next(_COUNT)}"
        self._cpu_group(name)
        cores = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        for controller, limits in (
            ("pids", lambda _: {"pids.max": processes}),
            ("memory", lambda _: {"memory.limit_in_bytes": memory_bytes}),
            # the worker's core, which a command bot's sched_setaffinity cannot leave
            ("cpuset", lambda parent: {"cpuset.cpus": cores, "cpuset.mems": _mems(parent)}),
        ):
            parent = _own(controller)
            if parent is None or not parent.is_dir():
                continue
            _sweep(parent)
            group = parent / name
            try:
                group.mkdir()
                for key, value in limits(parent).items():
                    (group / key).write_text(str(value))
            except OSError:
                _remove(group)
                continue
            self.paths.append(group)
            self.caps_processes |= controller == "pids"

    def _cpu_group(self, name: str) -> None:
        found = _cpu_parent() if cpu_contained() else None
        if found is None:
            return
        parent, (weight, self._turn, self._rest) = found
        _sweep(parent, (weight, self._turn))
        group = parent / name
        try:
            group.mkdir()
            self._weight = os.open(group / weight, os.O_WRONLY | os.O_CLOEXEC)
            os.write(self._weight, self._rest)
        except OSError:
            self._close()
            _remove(group)
            return
        self.paths.append(group)

    @property
    def weighs_cpu(self) -> bool:
        """Does this sandbox's CPU weight follow its turns?"""
        return self._weight is not None

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """While the engine waits on the sandbox: a session's weight, the
        least again after (two writes, microseconds)."""
        self._write(self._turn)
        try:
            yield
        finally:
            self._write(self._rest)

    def ending(self) -> None:
        """Its processes are being killed: a session's weight for good, for
        dying takes CPU too (starved, they outlast the group's removal)."""
        self._write(self._turn)
        self._close()

    def _write(self, weight: bytes) -> None:
        if self._weight is not None:
            try:
                os.write(self._weight, weight)
            except OSError:
                pass

    def _close(self) -> None:
        if self._weight is not None:
            os.close(self._weight)
            self._weight = None

    def enter(self) -> None:
        """In the child, before exec (async-signal-light: plain writes)."""
        for group in self.paths:
            try:
                with open(group / "cgroup.procs", "w") as f:
                    f.write("0")
            except OSError:
                pass

    def remove(self) -> None:
        self._close()
        for group in self.paths:
            _remove(group)
        self.paths = []


def _mems(parent: Path) -> str:
    return (parent / "cpuset.mems").read_text().strip()


def _remove(group: Path) -> None:
    for _ in range(100):  # its last processes may take a moment to go
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)
