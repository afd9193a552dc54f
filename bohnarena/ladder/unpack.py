"""A submission's files brought into the ladder: a directory copied, a
wheel (zip) or an sdist (tar or zip) unpacked, each checked as it goes (no
path outside the tree, no link, no device, no more than the ladder's
size), and the tree hashed. Nothing of it is run or imported here."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from .settings import LadderError

MAX_FILES = 10_000
CHUNK = 1 << 16
#: Left out of a copied directory: what Python and git write beside code.
SKIPPED = {"__pycache__", ".git"}


class SubmissionError(LadderError):
    """A submission that the ladder refuses before it runs anything of it."""


class Budget:
    """What a submission may still bring in: bytes and files."""

    def __init__(self, max_bytes: int) -> None:
        self.bytes, self.max_bytes, self.files = 0, max_bytes, 0

    def take(self, size: int, name: str) -> None:
        self.bytes += size
        if self.bytes > self.max_bytes:
            raise SubmissionError(
                f"the submission is larger than the ladder takes "
                f"({self.max_bytes >> 20} MB, max_submission_mb): at {name}"
            )

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise SubmissionError(f"the submission holds more than {MAX_FILES:,} files: at {name}")


def member_path(dst: Path, name: str) -> Path:
    """Where an archive's member ``name`` goes under ``dst``: refused when
    it is absolute, climbs out (``..``) or is not a plain name."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\0" in name:
        raise SubmissionError(f"the archive holds a path outside itself: {name!r}")
    return dst.joinpath(*pure.parts)


def write_file(src: IO[bytes], target: Path, budget: Budget, name: str, executable: bool) -> None:
    budget.file(name)
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


def copy_tree(src: Path, dst: Path, budget: Budget) -> None:
    """A directory copied: regular files and directories only."""
    for dirpath, dirs, files in os.walk(src):
        here = Path(dirpath)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in [*dirs, *sorted(files)]:
            path = here / name
            rel = path.relative_to(src)
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"the submission holds a symbolic link: {rel}")
            if stat.S_ISDIR(mode):
                (dst / rel).mkdir(parents=True, exist_ok=True)
            elif stat.S_ISREG(mode):
                with open(path, "rb") as f:
                    write_file(f, dst / rel, budget, str(rel), bool(mode & 0o100))
            else:
                raise SubmissionError(f"the submission holds a special file: {rel}")


def unzip(archive: Path, dst: Path, budget: Budget) -> None:
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise SubmissionError(f"the archive holds a symbolic link: {info.filename!r}")
                target = member_path(dst, info.filename)
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
                if member.isdir():
                    make_dir(target, member.name)
                    continue
                if not member.isfile():
                    raise SubmissionError(
                        f"the archive holds a link or special file: {member.name!r}"
                    )
                src = t.extractfile(member)
                assert src is not None  # a regular file
                write_file(src, target, budget, member.name, bool(member.mode & 0o100))
    except (tarfile.TarError, EOFError, OSError) as e:
        if isinstance(e, SubmissionError):
            raise
        raise SubmissionError(f"{archive.name} is not a readable tar archive: {e}") from None


def files(tree: Path) -> Iterator[Path]:
    """Every file of ``tree``, in a stable order."""
    for dirpath, dirs, names in os.walk(tree):
        dirs.sort()
        for name in sorted(names):
            yield Path(dirpath) / name


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


def remove(tree: Path) -> None:
    shutil.rmtree(tree, ignore_errors=True)
