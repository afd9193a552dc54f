"""core/trees.py: a tree removed however deep, its links removed, never followed."""

import os
import sys

from bohnarena.core.trees import remove


def test_a_tree_deeper_than_the_recursion_limit_goes_and_its_links_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the tree's")
    (tmp_path / "tree").mkdir()
    fd = os.open(tmp_path / "tree", os.O_RDONLY)
    for _ in range(sys.getrecursionlimit() + 100):
        os.mkdir("d", dir_fd=fd)  # (by a relative name: the path would pass PATH_MAX)
        os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
        fd, up = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(up)
    os.symlink(outside, "link", dir_fd=fd)
    os.close(fd)
    remove(tmp_path / "tree")
    assert not (tmp_path / "tree").exists()
    assert (outside / "keep.txt").read_text() == "not the tree's"
    (tmp_path / "link").symlink_to(outside)
    remove(tmp_path / "link")  # a link given is removed, not what it points to
    assert outside.is_dir() and not (tmp_path / "link").is_symlink()
