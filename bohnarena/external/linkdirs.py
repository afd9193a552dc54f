"""The directories a process bot imports from: links, by top-level name, to
bohnarena (its PYTHONPATH) and to the bot's code (appended to its import
path after the standard library, :mod:`.host`).

One per set of code per process, removed when that process exits (a pool
worker too, which ends without running ``atexit``: multiprocessing runs its
finalizers). A process that is killed cannot remove its own, so each holds
a lock on a file inside it for as long as it lives, and the next process to
make one removes those whose lock nobody holds (locks die with their
holders, even under SIGKILL, and in any PID namespace).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from multiprocessing.util import Finalize
from pathlib import Path

PREFIX = "bohnarena-lib-"
#: Inside each directory; its holder keeps it locked.
ALIVE = ".alive"
#: Younger than this, a directory is left alone: its maker may be between
#: creating the lock file and taking the lock.
GRACE = 60.0

_IMPORTABLE: dict[tuple[tuple[str, Path], ...], Path] = {}
_HELD: list[int] = []  # the lock files' descriptors: open until this process ends


def importable(code: dict[str, Path], package: Path | None = None) -> Path:
    """A directory that shows ``code`` and bohnarena (at ``package``, if
    given) by top-level name, as links; made once per set per process."""
    key = tuple(sorted({**code, **({} if package is None else {"bohnarena": package})}.items()))
    found = _IMPORTABLE.get(key)
    if found is None:
        sweep()
        found = Path(tempfile.mkdtemp(prefix=PREFIX))
        hold = os.open(found / ALIVE, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(hold, fcntl.LOCK_SH)
        _HELD.append(hold)
        Finalize(None, shutil.rmtree, (found, True), exitpriority=0)
        for name, path in key:
            (found / (path.name if path.is_file() else name)).symlink_to(path)
        _IMPORTABLE[key] = found
    return found


def sweep(where: Path | None = None) -> None:
    """Remove this user's import directories whose makers are gone."""
    where = Path(tempfile.gettempdir()) if where is None else where
    with contextlib.suppress(OSError):
        for entry in os.scandir(where):
            if entry.name.startswith(PREFIX) and _orphaned(Path(entry.path)):
                shutil.rmtree(entry.path, ignore_errors=True)


def _orphaned(path: Path) -> bool:
    """Whether ``path`` is ours, old enough, and its lock free (taken here
    then, so no one starts holding it while it is removed)."""
    try:
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return False
        lock = os.open(path / ALIVE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # gone, or made before these locks: not ours to judge
        return False
    try:
        if time.time() - os.fstat(lock).st_mtime < GRACE:
            return False
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:  # held: its maker lives
        return False
    finally:
        os.close(lock)
