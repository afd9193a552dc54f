import pytest
from click.testing import CliRunner

from bohnarena.cli import cli


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def ladder(tmp_path):
    """A fresh ladder of small leagues (two deals a table)."""
    path = tmp_path / "spring"
    assert run("ladder", "init", path).exit_code == 0
    text = (path / "ladder.toml").read_text()
    (path / "ladder.toml").write_text(text.replace("deals = 10 ", "deals = 2 "))
    return path
