"""Never a sandbox of the host's root user.

bubblewrap started by root maps the sandbox's user to root outside: without
capabilities, but root's files and root-only kernel knobs (``/proc/sys``)
are still its to write. So when the runner is root, bubblewrap runs as an
unprivileged user (``nobody``) instead. That user may not be able to reach
what the sandbox shows (an interpreter under ``/root``, a bot in a 0700
directory), so first, still root and in a mount namespace of its own, the
process that becomes bubblewrap binds each of those paths at a place
``nobody`` can reach (:data:`STAGE`; a tree that is not readable by all is
copied there instead), and bubblewrap takes them from there, read-only.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

STAGE = "/run/bohnarena-stage"
NOBODY = 65534
_CLONE_NEWNS = 0x00020000
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
#: Reachable by every user already: never staged.
_OPEN = ("/usr/", "/proc/", "/dev/", "/etc/")


def needed() -> bool:
    return os.geteuid() == 0


def staged(argv: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``argv`` with every bind source moved under :data:`STAGE`, and the
    (host path, staged path) pairs :func:`drop` must bind first."""
    out, pairs = list(argv), list[tuple[str, str]]()
    for i, arg in enumerate(out[:-2]):
        source = out[i + 1]
        if arg in ("--ro-bind", "--bind") and not (source + "/").startswith(_OPEN):
            staged_path = f"{STAGE}/{len(pairs)}"
            pairs.append((out[i + 1], staged_path))
            out[i + 1] = staged_path
    return out, pairs


def drop(pairs: Sequence[tuple[str, str]]) -> None:
    """In the child that is about to exec bubblewrap (still root): stage the
    paths in a private mount namespace, then become ``nobody``. Any failure
    raises, and the sandbox does not start."""
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")

    check(libc.unshare(_CLONE_NEWNS), "unshare")
    check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
    check(libc.mount(b"tmpfs", STAGE.encode(), b"tmpfs", 0, b"mode=0755"), "stage")
    for host, target in pairs:
        if not _readable_by_all(Path(host)):  # a bot in a private directory: a copy
            _copy(Path(host), Path(target))
            continue
        if Path(host).is_dir():
            os.mkdir(target, 0o755)
        else:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        check(
            libc.mount(host.encode(), target.encode(), None, _MS_BIND | _MS_REC, None),
            f"bind {host}",
        )
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _readable_by_all(path: Path) -> bool:
    mode = path.stat().st_mode
    return bool(mode & 0o004) and (not path.is_dir() or bool(mode & 0o001))


def _copy(host: Path, target: Path) -> None:
    """``host`` (a file or a tree) copied to ``target``, readable by all."""
    if host.is_dir():
        shutil.copytree(host, target, symlinks=True)
        for root, _dirs, files in os.walk(target):
            os.chmod(root, 0o755)
            for f in files:
                p = os.path.join(root, f)
                if not os.path.islink(p):
                    os.chmod(p, os.stat(p).st_mode | 0o444)
    else:
        shutil.copy2(host, target)
        os.chmod(target, os.stat(target).st_mode | 0o444)


def prepare() -> None:
    """Where the staging happens (once, as root, in the runner)."""
    os.makedirs(STAGE, mode=0o755, exist_ok=True)
