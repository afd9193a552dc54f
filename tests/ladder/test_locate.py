"""A bot under a directory no import path holds (a ladder's unpacked
submission) is located from its files alone: nothing of it is imported."""

import sys

import pytest

from bohnarena.core.errors import BotLoadError
from bohnarena.core.plugins import locate


def test_a_rooted_spec_is_located_without_importing_it(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("raise SystemExit('imported')\n")
    (tmp_path / "pkg" / "bot.py").write_text("class Bot: ...\n")
    (tmp_path / "helper.py").write_text("")
    (tmp_path / "not-a-module").mkdir()
    found = locate(f"{tmp_path}/pkg.bot:Bot")
    assert (found.module, found.attr) == ("pkg.bot", "Bot")
    assert found.paths == {"helper": tmp_path / "helper.py", "pkg": tmp_path / "pkg"}
    assert "pkg" not in sys.modules
    assert found.source_hash() != locate(f"{tmp_path}/pkg:Bot").source_hash()


def test_a_rooted_spec_that_names_nothing_is_one_line(tmp_path):
    with pytest.raises(BotLoadError, match=r"cannot find module pkg\.bot"):
        locate(f"{tmp_path}/pkg.bot:Bot")
    with pytest.raises(BotLoadError, match="does not exist"):
        locate(f"{tmp_path}/nowhere/pkg.bot:Bot")
