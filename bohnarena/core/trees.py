"""A directory tree removed without recursion: Python 3.11's
``shutil.rmtree`` recurses once a level, so a tree nested thousands deep
(a submission's, or one a bot leaves in its sandbox's /tmp) would raise
RecursionError in whatever process removes it."""

from __future__ import annotations

import os
from pathlib import Path


def remove(tree: str | os.PathLike[str]) -> None:
    """``tree`` removed, one directory open at a time and by names relative
    to it (however deep the tree, however long its paths; links are
    removed, never followed): raises OSError when something of it cannot
    be removed."""
    tree = Path(tree)
    if not tree.is_dir() or tree.is_symlink():
        tree.unlink(missing_ok=True)
        return
    fd = os.open(tree, _DIRECTORY)
    below: list[str] = []  # the names walked down from ``tree`` to ``fd``
    try:
        while True:
            sub = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        sub = entry.name
                    else:
                        os.unlink(entry.name, dir_fd=fd)
            if sub is not None:  # down into it
                fd = _swap(fd, os.open(sub, _DIRECTORY, dir_fd=fd))
                below.append(sub)
            elif below:  # empty: up again, and it goes
                fd = _swap(fd, os.open("..", _DIRECTORY, dir_fd=fd))
                os.rmdir(below.pop(), dir_fd=fd)
            else:
                break
    finally:
        os.close(fd)
    tree.rmdir()


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _swap(old: int, new: int) -> int:
    os.close(old)
    return new
