"""A submission's files brought into the ladder: a directory copied, a
wheel (zip) or an sdist (tar or zip) unpacked, each checked as it goes (no
path outside the tree, no link, no device, no more than the ladder's
bytes, files, directories and depth), and the tree hashed. Nothing of it is
run or imported here, and nothing here recurses once a level (Python
3.11's ``os.walk`` and ``shutil.rmtree`` do): a tree nested thousands deep
is refused, and one left from before is walked, and removed by
:func:`~bohnarena.core.trees.remove`, all the same."""

from __future__ import annotations

import hashlib
import os
import stat
import tarfile
import unicodedata
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from .settings import LadderError

MAX_FILES = 10_000
MAX_DIRS = 2_000
MAX_DEPTH = 32
CHUNK = 1 << 16
#: Left out of a copied directory: what Python and git write beside code.
SKIPPED = {"__pycache__", ".git"}


class SubmissionError(LadderError):
    """A submission that the ladder refuses before it runs anything of it."""


#: Character categories no name a submission brings may hold: controls,
#: lone surrogates (bytes that are not UTF-8), invisible formatting (bidi
#: overrides), private and unassigned code points, line and paragraph
#: separators; letters, marks, digits, symbols (emoji) and punctuation are fine.
REFUSED = {"Cc": "a control character", "Cs": "bytes that are not UTF-8"}
REFUSED |= dict.fromkeys(("Cf", "Co", "Cn"), "an invisible or unassigned character")
REFUSED |= {"Zl": "a line separator", "Zp": "a paragraph separator"}


def check_name(name: str, what: str, path: bool = False) -> None:
    """Refuse ``name`` in one line unless every name the ladder writes of it
    (its league file, catalog, logs) reads back as itself: no character of
    :data:`REFUSED`, no space but U+0020, and no path separator unless it
    is a ``path`` (a command's argument)."""
    for char in name:
        category = unicodedata.category(char)
        why = REFUSED.get(category)
        if why is None and category == "Zs" and char != " ":
            why = "a space other than U+0020"
        if why is None and char in "/\\" and not path:
            why = "a path separator"
        if why is not None:
            raise SubmissionError(f"{what} {name!a} holds {why} (U+{ord(char):04X})")


class Budget:
    """What a submission may still bring in: bytes, files, directories (each
    one made, named in the archive or not) and levels of nesting."""

    def __init__(
        self,
        max_bytes: int,
        max_files: int = MAX_FILES,
        max_dirs: int = MAX_DIRS,
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self.bytes, self.max_bytes, self.files = 0, max_bytes, 0
        self.max_files, self.max_dirs, self.max_depth = max_files, max_dirs, max_depth
        self.dirs: set[tuple[str, ...]] = set()

    def take(self, size: int, name: str) -> None:
        self.bytes += size
        if self.bytes > self.max_bytes:
            raise SubmissionError(
                f"the submission is larger than the ladder takes "
                f"({self.max_bytes >> 20} MB, max_submission_mb): at {name}"
            )

    def place(self, parts: tuple[str, ...], name: str, is_dir: bool) -> None:
        """Count a member at ``parts`` (its path in the tree) before it is made."""
        for part in parts:
            check_name(part, "the submission's file", path=False)
        if len(parts) > self.max_depth:
            raise SubmissionError(
                f"the submission nests deeper than {self.max_depth} levels (max_depth): at {name!r}"
            )
        made = parts if is_dir else parts[:-1]
        for depth in range(len(made), 0, -1):  # its directories not counted yet, deepest first
            if made[:depth] in self.dirs:
                break
            self.dirs.add(made[:depth])
        if len(self.dirs) > self.max_dirs:
            raise SubmissionError(
                f"the submission holds more than {self.max_dirs:,} directories (max_dirs): "
                f"at {name!r}"
            )
        if not is_dir:
            self.files += 1
            if self.files > self.max_files:
                raise SubmissionError(
                    f"the submission holds more than {self.max_files:,} files (max_files): "
                    f"at {name!r}"
                )


def member_path(dst: Path, name: str) -> Path:
    """Where an archive's member ``name`` goes under ``dst``: refused when
    it is absolute, climbs out (``..``) or is not a plain name."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\0" in name:
        raise SubmissionError(f"the archive holds a path outside itself: {name!r}")
    return dst.joinpath(*pure.parts)


def write_file(src: IO[bytes], target: Path, budget: Budget, name: str, executable: bool) -> None:
    """A file written, its bytes counted (its place was counted before)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            raise SubmissionError(f"the archive holds {name!r} twice")
        with open(target, "xb") as out:
            while chunk := src.read(CHUNK):  # sizes an archive declares may lie: counted here
                budget.take(len(chunk), name)
                out.write(chunk)
        os.chmod(target, 0o755 if executable else 0o644)
    except OSError as e:  # e.g. a file and a directory of one name ("a" and "a/b.py")
        raise SubmissionError(
            f"the submission's {name!r} cannot be unpacked: {e.strerror or e}"
        ) from None


def make_dir(target: Path, name: str) -> None:
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file of that name came first
        raise SubmissionError(
            f"the submission's {name!r} cannot be unpacked: {e.strerror or e}"
        ) from None


def walk(top: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk(top)`` top-down, sorted, links not followed, without
    recursion: a caller that edits the directories' list prunes the walk."""
    todo = [top]
    while todo:
        here = todo.pop()
        dirs: list[str] = []
        names: list[str] = []
        with os.scandir(here) as entries:
            for entry in entries:
                (dirs if entry.is_dir(follow_symlinks=False) else names).append(entry.name)
        dirs.sort()
        names.sort()
        yield here, dirs, names
        todo += [here / d for d in reversed(dirs)]


def copy_tree(src: Path, dst: Path, budget: Budget) -> None:
    """A directory copied: regular files and directories only."""
    for here, dirs, names in walk(src):
        dirs[:] = [d for d in dirs if d not in SKIPPED]
        for name in [*dirs, *names]:
            path = here / name
            rel = path.relative_to(src)
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"the submission holds a symbolic link: {rel}")
            if not stat.S_ISDIR(mode) and not stat.S_ISREG(mode):
                raise SubmissionError(f"the submission holds a special file: {rel}")
            budget.place(rel.parts, str(rel), stat.S_ISDIR(mode))
            if stat.S_ISDIR(mode):
                (dst / rel).mkdir(parents=True, exist_ok=True)
            else:
                with open(path, "rb") as f:
                    write_file(f, dst / rel, budget, str(rel), bool(mode & 0o100))


def unzip(archive: Path, dst: Path, budget: Budget) -> None:
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise SubmissionError(f"the archive holds a symbolic link: {info.filename!r}")
                target = member_path(dst, info.filename)
                budget.place(target.relative_to(dst).parts, info.filename, info.is_dir())
                if info.is_dir():
                    make_dir(target, info.filename)
                    continue
                with z.open(info) as src:
                    write_file(src, target, budget, info.filename, bool(mode & 0o100))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as e:
        raise SubmissionError(f"{archive.name} is not a readable zip archive: {e}") from None


def untar(archive: Path, dst: Path, budget: Budget) -> None:
    try:
        with tarfile.open(archive, "r:*") as t:
            for member in t:
                target = member_path(dst, member.name)
                if not member.isdir() and not member.isfile():
                    raise SubmissionError(
                        f"the archive holds a link or special file: {member.name!r}"
                    )
                budget.place(target.relative_to(dst).parts, member.name, member.isdir())
                if member.isdir():
                    make_dir(target, member.name)
                    continue
                src = t.extractfile(member)
                assert src is not None  # a regular file
                write_file(src, target, budget, member.name, bool(member.mode & 0o100))
    except (tarfile.TarError, EOFError, OSError) as e:
        if isinstance(e, SubmissionError):
            raise
        raise SubmissionError(f"{archive.name} is not a readable tar archive: {e}") from None


def files(tree: Path) -> Iterator[Path]:
    """Every file of ``tree``, in a stable order."""
    for here, _, names in walk(tree):
        for name in names:
            yield here / name


def tree_hash(tree: Path, how: str) -> str:
    """The version: a hash of every file (its path, whether it executes,
    its bytes) and of ``how`` the bot runs (kind, class or command)."""
    h = hashlib.blake2b(how.encode(), digest_size=16)
    for path in files(tree):
        rel = path.relative_to(tree).as_posix()
        executable = b"x" if path.stat().st_mode & 0o100 else b"-"
        size = str(path.stat().st_size).encode()
        h.update(b"\0" + rel.encode("utf-8", "surrogateescape") + b"\0" + executable + size + b"\0")
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    return h.hexdigest()


def single_top(tree: Path) -> Path:
    """An sdist's one top directory (``name-1.0/``)."""
    found = list(tree.iterdir())
    if len(found) != 1 or not found[0].is_dir():
        raise SubmissionError("an sdist holds one top directory (name-version/), this one does not")
    return found[0]
