"""Bots served over HTTP on 127.0.0.1, each in a process of its own that the
test starts and that stops by itself (tests/external/http/service.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent
#: The engine's side of HTTP bots needs the http extra (the test extra has it).
NO_HTTPCORE = importlib.util.find_spec("httpcore") is None


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="needs httpcore: pip install 'bohnarena[http]'")
    for item in items:
        if NO_HTTPCORE and HERE in Path(item.fspath).parents and "netguard" not in item.nodeid:
            item.add_marker(skip)


#: No service outlives its test by more than this (they stop by themselves).
LIFETIME = 240


@pytest.fixture
def serve(tmp_path):
    """Start services; each call returns the URL of a new one on 127.0.0.1
    (``serve.stop(url)`` stops one)."""
    started: dict[str, subprocess.Popen] = {}

    def start(spec: str = "planner", *args: str, env: dict | None = None) -> str:
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "service.py"), spec, "--lifetime", str(LIFETIME), *args],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        port = proc.stdout.readline().strip()
        assert port.isdigit(), f"the service did not start: {port!r}"
        url = f"http://127.0.0.1:{port}/"
        started[url] = proc
        return url

    def stop(url: str) -> None:
        started[url].kill()
        started[url].wait()

    start.stop = stop  # type: ignore[attr-defined]
    yield start
    for proc in started.values():
        proc.kill()
        proc.wait()


def league_text(
    bots: dict[str, str], players: int = 3, deals: int = 1, extra: str = "", edition="classic"
) -> str:
    """A league file's text: ``bots`` maps a name to its TOML value."""
    lines = "".join(f"{k} = {v}\n" for k, v in bots.items())
    return (
        textwrap.dedent(f"""\
        name = "h"
        edition = "{edition}"
        players = {players}
        deals = {deals}
        seed = 11
        """)
        + extra
        + f"\n[bots]\n{lines}"
    )


def served(url: str, **more: str) -> str:
    """The TOML table of a bot served at ``url`` on loopback."""
    keys = "".join(f", {k} = {v}" for k, v in more.items())
    return f'{{ spec = "{url}", allow_private = true{keys} }}'
