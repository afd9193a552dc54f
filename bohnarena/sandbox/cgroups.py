"""Control groups around a sandbox, where this machine lets us make them
(cgroup v1 hierarchies we may write, as root usually): a cap on its
processes (``pids``) and on all the memory its processes use, shared memory
and files in its /tmp included (``memory``). Elsewhere the sandbox relies on
rlimits and the zygote's own process count."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "bohnarena-"
_COUNT = itertools.count()


def _own(controller: str) -> Path | None:
    """This process's group in the v1 hierarchy of ``controller``."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(","):
                return ROOT / controller / path.lstrip("/")
    except OSError:
        pass
    return None


def _sweep(parent: Path) -> None:
    """Remove groups of runs that are gone (a worker that was killed)."""
    for group in parent.glob(f"{PREFIX}*"):
        pid = group.name[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                group.rmdir()
            except OSError:
                pass


class Groups:
    """The groups of one sandbox: made, entered by its first process before
    it starts (so all it starts stays inside), removed when it is killed."""

    def __init__(self, processes: int, memory_bytes: int) -> None:
        self.paths: list[Path] = []
        self.caps_processes = False
        name = f"{PREFIX}{os.getpid()}-{next(_COUNT)}"
        for controller, limits in (
            ("pids", {"pids.max": processes}),
            ("memory", {"memory.limit_in_bytes": memory_bytes}),
        ):
            parent = _own(controller)
            if parent is None or not parent.is_dir():
                continue
            _sweep(parent)
            group = parent / name
            try:
                group.mkdir()
                for key, value in limits.items():
                    (group / key).write_text(str(value))
            except OSError:
                _remove(group)
                continue
            self.paths.append(group)
            self.caps_processes |= controller == "pids"

    def enter(self) -> None:
        """In the child, before exec (async-signal-light: plain writes)."""
        for group in self.paths:
            try:
                with open(group / "cgroup.procs", "w") as f:
                    f.write("0")
            except OSError:
                pass

    def remove(self) -> None:
        for group in self.paths:
            _remove(group)
        self.paths = []


def _remove(group: Path) -> None:
    for _ in range(100):  # its last processes may take a moment to go
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)
