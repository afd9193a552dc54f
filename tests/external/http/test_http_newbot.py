"""``bohnarena new-bot NAME --http``: a service that runs on one command and
passes check-bot."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.external.http.conftest import LIFETIME


@pytest.mark.slow
def test_a_new_http_bot_serves_on_one_command_and_passes_check_bot(tmp_path):
    r = CliRunner().invoke(cli, ["new-bot", "webby", "--http", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    root = tmp_path / "webby"
    assert "allow_private = true" in (root / "league.toml").read_text()
    proc = subprocess.Popen(
        [sys.executable, str(root / "service.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving "), line
        url = line.rsplit(" at ", 1)[1].strip()
        checked = CliRunner().invoke(cli, ["check-bot", url, "--seed", "1"])
        assert checked.exit_code == 0, checked.output
        assert "PASS" in checked.output and "faults: none" in checked.output
    finally:
        proc.terminate()
        proc.wait(timeout=LIFETIME)
