"""``bohnarena ladder serve``, ``play`` and ``token``: a ladder's site
(docs/ladder.md, "The site"), the player that checks and plays beside it,
and its participants' tokens."""

from __future__ import annotations

import importlib
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import UsageError
from ..core.stopping import die_with_parent
from .group import backend_option, echo, one, secrets_option, workers_option
from .ladder import ladder, ladder_arg

if TYPE_CHECKING:
    from ..ladder.tokens import TokenBook

#: How long a stopped player may take to stop its run before it is killed.
STOP_SECONDS = 30.0
#: A player that ended by itself is started again after this long.
RESTART_SECONDS = 5.0
#: ... twice as long each time it ended within a minute of its start, up to this.
RESTART_MOST = 300.0
SITE_EXTRA = "the site needs the site extra: pip install 'bohnarena[site]'"


@ladder.group("token")
def token() -> None:
    """Participants' tokens for the ladder's site: each submits and
    follows the entries its pattern names (docs/ladder.md, "The site")."""


@token.command("add")
@ladder_arg
@click.argument("name")
@click.option(
    "--entries",
    default=None,
    metavar="PATTERN",
    help="The entries the token may submit to and retire, as a shell-style pattern "
    "(team-*). Default: the entry named NAME.",
)
def token_add(ladder: Path, name: str, entries: str | None) -> None:
    """A new token for participant NAME, printed once: only its hash is kept."""
    secret = _book(ladder).add(name, entries)
    echo(secret)
    holder = entries or name
    echo(f"the token of {name} (entries {holder}): it will not be shown again", err=True)


@token.command("list")
@ladder_arg
def token_list(ladder: Path) -> None:
    """Who holds a token, and the entries each may touch (never a token)."""
    holders = _book(ladder).holders()
    if not holders:
        echo("no tokens: bohnarena ladder token add LADDER NAME")
    for h in holders:
        echo(f"{h.name:<24} {h.entries}")


@token.command("revoke")
@ladder_arg
@click.argument("name")
def token_revoke(ladder: Path, name: str) -> None:
    """Revoke NAME's token: refused from the next request on."""
    _book(ladder).revoke(name)
    echo(f"{name}'s token is revoked")


def _book(ladder: Path) -> TokenBook:
    from ..ladder.settings import load_settings
    from ..ladder.tokens import TokenBook

    load_settings(ladder)  # (a ladder, or one line saying it is not)
    return TokenBook(ladder)


@ladder.command("play")
@ladder_arg
@workers_option
@backend_option
@secrets_option
@click.option("--with-parent", type=int, default=None, hidden=True)  # (ladder serve's)
def play(
    ladder: Path, workers: int | None, backend: str, secrets: Path | None, with_parent: int | None
) -> None:
    """Check the versions the site staged and run the ladder whenever a
    version becomes active (and every run_every_minutes of ladder.toml),
    until stopped (Ctrl-C, SIGTERM): what ladder serve runs beside its
    site, in a process of its own. Killed, it loses nothing: run again,
    it checks anew the version it was checking and resumes the run."""
    from ..ladder.player import Player
    from ..ladder.settings import load_settings

    if with_parent is not None:  # stopped (SIGTERM) when ladder serve dies, however it dies
        die_with_parent(signal.SIGTERM, with_parent)
    load_settings(ladder).with_secrets(secrets)  # (a ladder, or one line saying it is not)
    player = Player(ladder, lambda: load_settings(ladder).with_secrets(secrets), _say)
    player.workers, player.backend = workers, _backend(backend, workers)
    _say(f"the player of {ladder} starts (pid {os.getpid()})")
    code = player.forever()
    _say("the player stops")
    if code:
        sys.exit(code)


def _say(text: str) -> None:
    echo(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {one(text)}", err=True)


def _backend(name: str, workers: int | None) -> Callable[[], Any]:
    if name != "dask":
        return lambda: None
    from ..run.execution import DaskBackend

    try:
        import distributed  # noqa: F401 (here: the player says so before its first run)
    except ImportError:
        raise UsageError(
            "--backend dask needs the dask extra: pip install 'bohnarena[dask]'"
        ) from None
    return lambda: DaskBackend(None, workers or 0, None)


@ladder.command("serve")
@ladder_arg
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on; anything but loopback belongs behind a TLS reverse proxy.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The port to listen on.",
)
@workers_option
@backend_option
@secrets_option
def serve(
    ladder: Path,
    host: str,
    port: int,
    workers: int | None,
    backend: str,
    secrets: Path | None,
) -> None:
    """Serve LADDER's site (standings, entries, matches, submissions with a
    token) and run its player (ladder play) in a process of its own, which
    stops with it. The site never runs a submission: the player checks and
    plays it. Needs the site extra."""
    from ..ladder.settings import load_settings

    load_settings(ladder).with_secrets(secrets)  # (a ladder, or one line saying it is not)
    if backend == "dask":
        _backend(backend, workers)
    app, run = _site(ladder)
    listening = _listen(host, port)  # (taken before the player starts: a port in use stops here)
    if not _loopback(host):
        echo(
            f"Warning: serving on {host}, not loopback: put it behind a TLS reverse proxy "
            '(docs/ladder.md, "The site")',
            err=True,
        )
    argv = [sys.executable, "-m", "bohnarena", "ladder", "play", str(ladder), "--backend", backend]
    argv += ["--with-parent", str(os.getpid())]
    argv += [*(["--workers", str(workers)] if workers else [])]
    argv += [*(["--secrets", str(secrets)] if secrets else [])]
    keeper = Keeper(argv)
    keeper.start()
    try:
        run(app, listening)
    finally:
        keeper.stop()


def _site(ladder: Path) -> tuple[Any, Callable[[Any, socket.socket], None]]:
    """The site's application and how to serve it, or one line naming the extra."""
    try:
        import uvicorn

        make_app = importlib.import_module("bohnarena.site.app").make_app
    except ImportError as e:
        if (e.name or "").startswith("bohnarena"):  # (an install without the site's code)
            raise UsageError(f"this bohnarena has no site ({e.name} is missing)") from None
        raise UsageError(f"{SITE_EXTRA} ({e.name or e} is missing)") from None

    def run(app: Any, listening: socket.socket) -> None:
        host, port = listening.getsockname()[:2]
        config = uvicorn.Config(app, host=host, port=port, log_level="info")
        _say(f"the site at http://{f'[{host}]' if ':' in host else host}:{port}/")
        uvicorn.Server(config).run(sockets=[listening])

    return make_app(ladder), run


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (uvicorn listens on it), or one line saying why not."""
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        listening = socket.socket(family, kind, proto)
    except OSError as e:
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(where)
    except OSError as e:
        listening.close()
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return listening


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: whatever it resolves to, it is not ours to vouch for
        return False


class Keeper:
    """The player's process: its own process group (a stop reaches its
    workers and bots), stopped with the site; one that ends by itself is
    started again."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.process: subprocess.Popen[bytes] | None = None
        self.stopping = threading.Event()
        self.lock = threading.Lock()  # (no player started as it stops)
        self.watcher = threading.Thread(target=self._watch, name="player", daemon=True)

    def start(self) -> None:
        self.process = subprocess.Popen(self.argv, start_new_session=True)
        self.watcher.start()

    def _watch(self) -> None:
        delay, started = RESTART_SECONDS, time.monotonic()
        while True:
            assert self.process is not None
            code = self.process.wait()
            if self.stopping.is_set():
                return
            if time.monotonic() - started >= 60:  # it ran a while: not a crash loop
                delay = RESTART_SECONDS
            _say(f"the player ended (exit code {code}): started again in {delay:g} s")
            if self.stopping.wait(delay):
                return
            with self.lock:
                if self.stopping.is_set():
                    return
                self.process = subprocess.Popen(self.argv, start_new_session=True)
            delay, started = min(RESTART_MOST, delay * 2), time.monotonic()

    def stop(self) -> None:
        with self.lock:
            self.stopping.set()
            process = self.process
        if process is None or process.poll() is not None:
            return
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait()
        self.watcher.join(1)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass
