"""``ladder token`` and ``ladder serve``: a token printed once and never
again, one-line errors; the site served with its player in a process of
its own that stops with it, however it stops (a minimal application stands
in for the site's own: tests/site/ tests that one)."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bohnarena.cli import serve
from bohnarena.ladder.tokens import TokenBook

from .conftest import run


def test_a_token_is_printed_once_and_listed_by_holder_alone(ladder):
    r = run("ladder", "token", "add", ladder, "ann", "--entries", "ann-*")
    assert r.exit_code == 0, r.output
    token, note = r.output.splitlines()
    assert "will not be shown again" in note
    assert TokenBook(ladder).holder(token).entries == "ann-*"
    listed = run("ladder", "token", "list", ladder)
    assert listed.exit_code == 0 and token not in listed.output
    assert listed.output.split() == ["ann", "ann-*"]
    assert run("ladder", "token", "revoke", ladder, "ann").exit_code == 0
    assert TokenBook(ladder).holder(token) is None
    assert "no tokens" in run("ladder", "token", "list", ladder).output


def test_token_mistakes_are_one_line_exit_2(ladder, tmp_path):
    run("ladder", "token", "add", ladder, "bob")
    for args, said in [
        (["revoke", ladder, "nobody"], "'nobody' holds no token"),
        (["add", ladder, "bob"], "'bob' holds a token already"),
        (["add", ladder, "a.b"], "holder name 'a.b'"),
        (["add", ladder, "eve", "--entries", "../*"], "--entries '../*'"),
        (["list", tmp_path / "none"], "is not a ladder"),
        (["add", tmp_path / "none", "eve"], "is not a ladder"),
    ]:
        r = run("ladder", "token", *args)
        assert r.exit_code == 2 and said in r.output and r.output.count("\n") == 1, r.output


def test_a_port_in_use_is_one_line_exit_2_and_no_player_starts(ladder, monkeypatch):
    monkeypatch.setattr(serve, "_site", lambda ladder: ("app", lambda *a: pytest.fail("served")))
    monkeypatch.setattr(serve.Keeper, "start", lambda self: pytest.fail("a player started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run("ladder", "serve", ladder, "--port", port)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert f"cannot listen on 127.0.0.1:{port}: " in r.output
    r = run("ladder", "serve", ladder, "--host", "no-such-host.invalid")
    assert r.exit_code == 2 and "cannot listen on no-such-host.invalid:8000" in r.output


def test_serve_without_the_site_extra_is_one_line_exit_2(ladder, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # (an import of it fails)
    r = run("ladder", "serve", ladder)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "pip install 'bohnarena[site]'" in r.output


@pytest.mark.parametrize(
    "host, warned", [("127.0.0.1", False), ("localhost", False), ("::1", False), ("0.0.0.0", True)]
)
def test_serve_warns_off_loopback_and_stops_its_player(ladder, monkeypatch, host, warned):
    seen = []
    monkeypatch.setattr(serve, "_site", lambda ladder: ("app", lambda *a: seen.append(a)))
    monkeypatch.setattr(serve, "_listen", lambda host, port: (host, port))
    monkeypatch.setattr(serve.Keeper, "start", lambda self: seen.append(self.argv))
    monkeypatch.setattr(serve.Keeper, "stop", lambda self: seen.append("stopped"))
    r = run("ladder", "serve", ladder, "--host", host, "--port", "8123", "-j", "2")
    assert r.exit_code == 0, r.output
    assert ("put it behind a TLS reverse proxy" in r.output) == warned
    argv, served, stopped = seen
    assert argv[argv.index("play") + 1] == str(ladder) and argv[argv.index("--workers") + 1] == "2"
    assert argv[argv.index("--with-parent") + 1] == str(os.getpid())
    assert served == ("app", (host, 8123)) and stopped == "stopped"


APP = """
import sys, types
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

site, app = types.ModuleType("bohnarena.site"), types.ModuleType("bohnarena.site.app")
app.make_app = lambda ladder: Starlette(routes=[Route("/", lambda r: PlainTextResponse("ok"))])
sys.modules.update({"bohnarena.site": site, "bohnarena.site.app": app})
from bohnarena.__main__ import main
sys.argv = ["bohnarena", *sys.argv[1:]]
main()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid):
    """The processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_text().split("\0")
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found[int(entry)] = cmdline
    return found


def gone(pid, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state == "Z":  # (ended: its parent, gone too, reaps it no more)
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_the_site_serves_and_its_player_stops_with_it(ladder, stop):
    pytest.importorskip("uvicorn", reason="needs the site extra (uvicorn)")
    pytest.importorskip("starlette", reason="needs the site extra (starlette)")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", APP, "ladder", "serve", str(ladder), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, body = time.time() + 60, None
        while time.time() < deadline and body is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    body = answer.read()
            except OSError:
                time.sleep(0.2)
        assert body == b"ok"
        [(player, cmdline)] = [(p, c) for p, c in children(proc.pid).items() if "play" in c]
        assert cmdline[cmdline.index("play") + 1] == str(ladder)
        assert os.getpgid(player) == player != os.getpgid(proc.pid)  # its own group
        proc.send_signal(stop)
        proc.wait(60)
        assert gone(player), "the player outlived the site"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_player_that_ends_is_started_again_and_a_stubborn_one_is_killed(monkeypatch):
    monkeypatch.setattr(serve, "RESTART_SECONDS", 0.05)
    monkeypatch.setattr(serve, "STOP_SECONDS", 0.5)
    keeper = serve.Keeper([sys.executable, "-c", "pass"])
    keeper.start()
    first = keeper.process
    deadline = time.time() + 30
    while time.time() < deadline and keeper.process is first:
        time.sleep(0.05)
    assert keeper.process is not first  # ended, started again
    keeper.stop()
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    keeper = serve.Keeper([sys.executable, "-c", stubborn])
    keeper.start()
    time.sleep(0.5)  # (its handler set)
    begun = time.time()
    keeper.stop()
    assert keeper.process.returncode == -signal.SIGKILL and time.time() - begun < 10
    assert not keeper.watcher.is_alive()


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_play_hands_its_backend_to_each_run(ladder, monkeypatch, backend):
    from bohnarena.ladder import player
    from bohnarena.run import execution

    if backend == "dask":
        pytest.importorskip("distributed", reason="needs the dask extra")
    made = []
    monkeypatch.setattr(execution, "DaskBackend", lambda *a: made.append(a) or "a cluster")
    monkeypatch.setattr(player.Player, "forever", lambda self: made.append(self.backend()) or 0)
    r = run("ladder", "play", ladder, "--backend", backend, "-j", "3")
    assert r.exit_code == 0, r.output
    assert made == ([(None, 3, None), "a cluster"] if backend == "dask" else [None])
