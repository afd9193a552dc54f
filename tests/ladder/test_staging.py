"""What a submission makes is counted, and what a submission leaves cannot
stop the ladder (issue 43, hole 2): a 26 KB wheel of directories nested
2,000 deep was not counted by the file limit, its hashing and clean-up died
of RecursionError (Python 3.11's os.walk and shutil.rmtree recurse once a
level), and the tree left in incoming/ stopped every later submit and run;
a wheel of 100,000 empty directories was accepted."""

import errno
import os
import zipfile

import pytest

from bohnarena.core.trees import remove
from bohnarena.ladder import submission
from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.check import Verdict
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import INCOMING, QUARANTINE, submit
from bohnarena.ladder.unpack import SubmissionError, tree_hash

from .builders import BOT, file_bot


def passed(league, entry):
    return Verdict()


def directory_wheel(tmp_path, dirs):
    """A wheel with a working bot and the directory entries ``dirs``."""
    path = tmp_path / "deep-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deep/__init__.py", "")
        z.writestr("deep/bot.py", BOT.format(name="Deep"))
        z.writestr("deep-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: deep\n")
        z.writestr(
            "deep-1.0.dist-info/entry_points.txt", "[bohnarena.bots]\ndeep = deep.bot:Deep\n"
        )
        for name in dirs:
            z.writestr(zipfile.ZipInfo(name.rstrip("/") + "/"), "")
    return path


def submitting(ladder, source):
    settings, catalog = load_settings(ladder), Catalog(ladder)
    try:
        return submit(ladder, settings, catalog, "mine", str(source), None, None, passed)
    finally:
        catalog.close()


def nested(top, depth, name="d"):
    """``top`` with directories ``depth`` deep below it, made one level at a
    time through a descriptor (no path names the deepest: it may be longer
    than any path may be)."""
    os.makedirs(top)
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        below = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.close(fd)


def test_a_wheel_nested_2000_deep_is_refused_and_leaves_nothing(ladder, tmp_path):
    deep = directory_wheel(tmp_path, ["/".join(["d"] * n) for n in range(100, 2001, 100)])
    with pytest.raises(SubmissionError, match="nests deeper than 32 levels"):
        submitting(ladder, deep)
    assert not any((ladder / INCOMING).iterdir())
    submitting(ladder, file_bot(tmp_path))  # and the next is taken


def test_directories_are_counted_named_or_not(ladder, tmp_path):
    text = (ladder / "ladder.toml").read_text()
    (ladder / "ladder.toml").write_text(text.replace("max_dirs = 2000", "max_dirs = 50"))
    for dirs in ([f"empty{i}" for i in range(60)], [f"implied{i}/x" for i in range(60)]):
        many = directory_wheel(tmp_path, dirs)
        with pytest.raises(SubmissionError, match="more than 50 directories"):
            submitting(ladder, many)
    fifty = directory_wheel(tmp_path, [f"empty{i}" for i in range(48)])  # deep/ and dist-info
    assert submitting(ladder, fifty)[0].state == "active"


@pytest.mark.slow  # a tree 1,500 deep, or 100,000 entries, takes seconds
def test_the_default_limits_refuse_100000_empty_directories(ladder, tmp_path):
    many = directory_wheel(tmp_path, [f"e{i}" for i in range(100_000)])
    with pytest.raises(SubmissionError, match="more than 2,000 directories"):
        submitting(ladder, many)


@pytest.mark.slow  # a tree 1,500 deep, or 100,000 entries, takes seconds
def test_a_deep_tree_left_by_a_crashed_submit_does_not_block_the_next(ladder, tmp_path):
    # Their submitters gone (no lock held): 1,500 deep, and longer than any path may be.
    nested(ladder / INCOMING / "0123456789abcdef", 1500)
    nested(ladder / INCOMING / "00112233445566778", 30, "d" * 200)
    assert submitting(ladder, file_bot(tmp_path))[0].state == "active"
    assert list((ladder / INCOMING).iterdir()) == []


def test_a_tree_that_cannot_be_removed_is_moved_aside_with_its_reason(
    ladder, tmp_path, monkeypatch
):
    stuck = ladder / INCOMING / "fedcba9876543210"
    nested(stuck, 3)
    removing = submission.remove

    def remove(tree):  # what the organiser's root cannot remove either (EBUSY, EROFS)
        if tree == stuck:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(stuck / "d"))
        removing(tree)

    monkeypatch.setattr(submission, "remove", remove)
    assert submitting(ladder, file_bot(tmp_path))[0].state == "active"
    assert [p.name for p in (ladder / INCOMING).iterdir()] == [QUARANTINE]
    aside = sorted((ladder / INCOMING / QUARANTINE).iterdir())
    assert [p.name.startswith("fedcba9876543210-") for p in aside] == [True, True]
    assert (aside[0] / "d" / "d" / "d").is_dir()  # moved whole
    assert aside[1].suffix == ".reason"
    assert "could not be removed: Device or resource busy" in aside[1].read_text()
    assert submitting(ladder, file_bot(tmp_path, "Again"))[0].state == "active"


@pytest.mark.slow  # a tree 1,500 deep, or 100,000 entries, takes seconds
def test_hashing_walks_any_depth_and_keeps_the_hash_of_a_tree(tmp_path):
    nested(tmp_path / "deep", 1500)
    assert tree_hash(tmp_path / "deep", "x")  # no RecursionError
    remove(tmp_path / "deep")  # nor here (nor in pytest's clean-up, which would recurse)
    assert not (tmp_path / "deep").exists()
    for rel in ["b/z.py", "a/y/x.py", "a/w.py", "c.py", "a/y/b.txt"]:
        (tmp_path / "t" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "t" / rel).write_text(rel)
    # what os.walk's order (sorted, top-down) gave: the versions a ladder holds keep their hash
    assert tree_hash(tmp_path / "t", "x") == "ca868cb55c5f8f66eb2a901fe507a098"
