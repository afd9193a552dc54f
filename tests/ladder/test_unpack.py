"""Archives unpacked with every member checked: no path outside the tree,
no link, no more than the ladder's size; a tree's hash is its content."""

import io
import os
import tarfile
import zipfile

import pytest

from bohnarena.ladder.metadata import check_requirements, chosen_bot, project, wheel
from bohnarena.ladder.unpack import Budget, SubmissionError, copy_tree, tree_hash, untar, unzip

from .builders import sdist
from .builders import wheel as build_wheel


def zipped(tmp_path, members):
    path = tmp_path / "x.whl"
    with zipfile.ZipFile(path, "w") as z:
        for info, data in members:
            z.writestr(info, data)
    return path


@pytest.mark.parametrize("name", ["../escape.py", "/abs.py", "a/../../escape.py"])
def test_a_zip_member_outside_the_tree_is_refused(tmp_path, name):
    with pytest.raises(SubmissionError, match="outside"):
        unzip(zipped(tmp_path, [(name, "x")]), tmp_path / "out", Budget(1 << 20))
    assert not (tmp_path / "escape.py").exists() and not (tmp_path.parent / "escape.py").exists()


def test_a_zip_symlink_is_refused(tmp_path):
    info = zipfile.ZipInfo("link")
    info.external_attr = (0o120777) << 16
    with pytest.raises(SubmissionError, match="symbolic link"):
        unzip(zipped(tmp_path, [(info, "/etc/passwd")]), tmp_path / "out", Budget(1 << 20))


def test_a_tar_link_is_refused(tmp_path):
    path = tmp_path / "x.tar.gz"
    with tarfile.open(path, "w:gz") as t:
        info = tarfile.TarInfo("x-1.0/link")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        t.addfile(info)
    with pytest.raises(SubmissionError, match="link"):
        untar(path, tmp_path / "out", Budget(1 << 20))


def test_an_archive_larger_than_the_ladder_takes_is_refused(tmp_path):
    # A zip bomb declares little and inflates: what is written is counted.
    path = zipped(tmp_path, [("big.py", "#" * 3_000_000)])
    with pytest.raises(SubmissionError, match="larger than the ladder takes"):
        unzip(path, tmp_path / "out", Budget(1 << 20))
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as t:
        info = tarfile.TarInfo("x-1.0/big.py")
        info.size = 3_000_000
        t.addfile(info, io.BytesIO(b"#" * info.size))
    (tmp_path / "x.tar.gz").write_bytes(data.getvalue())
    with pytest.raises(SubmissionError, match="larger"):
        untar(tmp_path / "x.tar.gz", tmp_path / "out2", Budget(1 << 20))


def test_a_directory_with_a_symlink_is_refused(tmp_path):
    (tmp_path / "src").mkdir()
    os.symlink("/etc/passwd", tmp_path / "src" / "link")
    with pytest.raises(SubmissionError, match="symbolic link: link"):
        copy_tree(tmp_path / "src", tmp_path / "out", Budget(1 << 20))


def test_the_hash_is_the_content_and_how_it_runs(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "bot.py").write_text("x = 1\n")
    first = tree_hash(tmp_path / "a", "file bot.py:A")
    assert tree_hash(tmp_path / "a", "file bot.py:A") == first
    assert tree_hash(tmp_path / "a", "file bot.py:B") != first
    os.chmod(tmp_path / "a" / "bot.py", 0o755)
    assert tree_hash(tmp_path / "a", "file bot.py:A") != first
    (tmp_path / "a" / "bot.py").write_text("x = 2\n")
    assert tree_hash(tmp_path / "a", "file bot.py:A") != first


def test_declarations_are_read_without_running_anything(tmp_path):
    marker = tmp_path / "marker"
    unzip(build_wheel(tmp_path, marker), tmp_path / "w", Budget(1 << 20))
    found = wheel(tmp_path / "w")
    assert found.requirements == ["bohnarena-bots"]
    assert found.bots == {"planner": "wheelbot.bot:Wheeled"}
    untar(sdist(tmp_path, marker), tmp_path / "s", Budget(1 << 20))
    found = project(tmp_path / "s" / "sbot-1.0")
    assert found.requirements == ["bohnarena_bots"]
    assert chosen_bot(found, None) == "sbot.bot:Sourced"
    assert not marker.exists()


def test_a_requirement_off_the_allowed_list_is_refused(tmp_path):
    check_requirements(["bohnarena-bots", "bohnarena"], ("bohnarena_bots",))
    with pytest.raises(SubmissionError, match="requires requests, which the ladder does not"):
        check_requirements(["bohnarena_bots", "requests"], ("bohnarena_bots",))


def test_dynamic_requirements_are_refused(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndynamic = ["dependencies"]\n')
    with pytest.raises(SubmissionError, match="computed by its build code"):
        project(tmp_path)


@pytest.mark.parametrize(
    "members", [[("a", "x"), ("a/b.py", "y")], [("a/b.py", "y"), ("a", "x")]], ids=["file", "dir"]
)
def test_a_file_and_a_directory_of_one_name_are_refused_in_one_line(tmp_path, members):
    with pytest.raises(SubmissionError, match=r"cannot be unpacked|twice"):
        unzip(zipped(tmp_path, members), tmp_path / "out", Budget(1 << 20))


def test_a_wheel_without_metadata_is_one_line(tmp_path):
    unzip(zipped(tmp_path, [("x-1.0.dist-info/RECORD", "")]), tmp_path / "w", Budget(1 << 20))
    with pytest.raises(SubmissionError, match=r"x-1\.0\.dist-info/METADATA, this one does not"):
        wheel(tmp_path / "w")
