"""Bot processes, one per match (any game).

Two isolations run a bot outside the engine's process:

* ``process``: a fresh OS process per match under resource limits only
  (address space, CPU time, file size). For trusted bots that may crash.
* ``sandbox``: a bubblewrap sandbox per bot per worker (:mod:`.jail`), in
  which a zygote (:mod:`.zygote`) forks a fresh child for each match that
  imports the bot under the filter and limits; when the match ends every
  process of the bot is killed and its temporary directory emptied.

Either way the engine holds an :class:`Endpoint`: ``open()`` gives the
match's :class:`~.channel.Channel`, ``close()`` ends the match's processes.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Protocol

from ..core.entry import DEFAULT_PACKAGES
from ..core.errors import BohnarenaError, BotLoadError
from ..core.plugins import locate
from ..core.stopping import private_memory
from ..referee.limits import Limits
from .channel import CRASH, START, BotFault, Channel, Conversation
from .linkdirs import importable
from .packages import allowed_code, shadowing
from .sandbox import jail, unroot
from .sandbox.cgroups import Groups
from .sandbox.zygote import JUNK, ask, describe_exit

#: Starting an interpreter and bohnarena in it (the bot's import has its own
#: limit, Limits.start_seconds) is not thinking time.
STARTUP_SECONDS = 30.0
CONTROL_SECONDS = 2.0  # a zygote answers in milliseconds


class Endpoint(Protocol):
    """Where a seat's bot process comes from, and what that place supports."""

    @property
    def keeps(self) -> bool:
        """Can a command bot's process serve the next match (``"reuse": true``)?"""
        ...

    @property
    def trouble(self) -> str | None:
        """What went wrong ending the last match, the bot's doing (None: nothing)."""
        ...

    def open(self) -> Conversation:
        """A fresh bot process (or connection) for one match; raises BotFault."""
        ...

    def keep(self, channel: Conversation) -> None:
        """The match is over: ``channel``'s process lives on for the next
        (only where :attr:`keeps`)."""
        ...

    def close(self, settle: float = 0.0) -> str | None:
        """End the match's processes; says how the bot's process ended if it
        ended by itself (``"exited with code 7"``), else None. ``settle``:
        seconds to let a process that is ending finish first."""
        ...


def rlimits(limits: Limits) -> dict[str, int]:
    """The per-process limits of a bot process, by ``resource`` name."""
    return {
        "RLIMIT_AS": limits.memory_mb << 20,
        "RLIMIT_FSIZE": limits.log_bytes,
        # A backstop: the engine's deadlines come first.
        "RLIMIT_CPU": int(limits.match_seconds + limits.decision_seconds) + 5,
        "RLIMIT_CORE": 0,
    }


def _log_file(log: Path | None) -> IO[bytes] | int:
    if log is None:
        return subprocess.DEVNULL
    log.parent.mkdir(parents=True, exist_ok=True)
    return open(log, "ab")


class ProcessEndpoint:
    """Isolation ``process``: ``command`` started afresh for each match."""

    keeps = False  # a process ends with its match
    trouble: str | None = None  # its ending is the bot's exit, nothing more

    def keep(self, channel: Conversation) -> None:
        raise NotImplementedError("a process endpoint keeps no bot (keeps is False)")

    def __init__(
        self,
        command: Sequence[str],
        limits: Limits,
        log: Path | None = None,
        framed: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.command, self.limits, self.log, self.framed = list(command), limits, log, framed
        self.env = env
        self.popen: subprocess.Popen[bytes] | None = None

    def open(self) -> Channel:
        limits = rlimits(self.limits)
        private_memory()  # the bot runs as this user: the match here is not its to read

        def confine() -> None:  # in the child, before exec
            for name, value in limits.items():
                resource.setrlimit(getattr(resource, name), (value, value))

        to_bot, from_engine = os.pipe()[::-1]  # (write end, read end)
        from_bot, to_engine = os.pipe()
        stderr = _log_file(self.log)
        try:
            self.popen = subprocess.Popen(
                self.command,
                stdin=from_engine,
                stdout=to_engine,
                stderr=stderr,
                preexec_fn=confine,
                start_new_session=True,
                env=self.env,
            )
        except OSError as e:
            for fd in (to_bot, from_bot):
                os.close(fd)
            raise BotFault(START, f"cannot start {self.command[0]}: {e.strerror or e}") from None
        finally:
            os.close(from_engine)
            os.close(to_engine)
            if not isinstance(stderr, int):
                stderr.close()
        return Channel(from_bot, to_bot, self.limits.output_kb * 1024, framed=self.framed)

    def close(self, settle: float = 0.0) -> str | None:
        p, self.popen = self.popen, None
        if p is None:
            return None
        try:
            code = p.wait(settle) if settle else p.poll()
        except subprocess.TimeoutExpired:
            code = None
        try:
            os.killpg(p.pid, signal.SIGKILL)  # and whatever it started in its session
        except ProcessLookupError:
            pass
        p.wait()
        return None if code is None else describe_exit(code)


class Zygote:
    """The engine's handle on one sandbox: a bubblewrap process whose zygote
    forks a child per match (see :mod:`.zygote` for the messages)."""

    def __init__(
        self,
        target: Sequence[str],
        code: dict[str, Path],
        dirs: dict[Path, str],
        bot_file: Path | None,
        limits: Limits,
        log: Path | None,
    ) -> None:
        self.target, self.code, self.dirs, self.bot_file = list(target), code, dirs, bot_file
        self.limits, self.log = limits, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.groups: Groups | None = None

    def start(self) -> None:
        control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # the supervisor and the template count too; memory: the zygote and a match
        self.groups = groups = Groups(
            self.limits.max_processes + 2, 2 * self.limits.memory_mb << 20
        )
        caps = {
            **rlimits(self.limits),
            "processes": 0 if groups.caps_processes else self.limits.max_processes,
            "load_seconds": self.limits.start_seconds,  # its import, tried once at once
        }
        inner = [
            jail.python(),
            "-S",
            "-s",
            "-B",
            "-P",
            "-m",
            "bohnarena.external.sandbox.zygote",
            str(theirs.fileno()),
            json.dumps(caps),
            *self.target,
        ]

        argv = jail.command(inner, self.code, self.dirs, self.bot_file, self.limits.disk_mb)
        pairs: list[tuple[str, str]] = []
        if unroot.needed():  # staged paths for bubblewrap run as nobody
            unroot.prepare()
            argv, pairs = unroot.staged(argv)

        drop = unroot.needed()

        def confine() -> None:  # in the child, before exec: all it starts stays inside
            groups.enter()
            if drop:
                unroot.drop(pairs)

        stderr = _log_file(self.log)
        try:
            # An empty environment for bubblewrap too: nothing of the
            # organiser's reaches the sandbox, whatever shows it inside.
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                env={},
                preexec_fn=confine,
            )
        finally:
            theirs.close()
            if not isinstance(stderr, int):
                stderr.close()
        self.control = control
        error = self._reply(STARTUP_SECONDS + self.limits.start_seconds, "error", (str, type(None)))
        if error is not None:
            self.kill()
            raise BotFault(START, f"the bot does not load in the sandbox: {error[:400]}")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def fork(self) -> tuple[int, int]:
        """A child for one match: (its end of the protocol socket, its pid)."""
        assert self.control is not None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b'{"op":"fork"}'], [theirs.fileno()])
        except OSError:
            ours.close()
            raise BotFault(CRASH, "the sandbox is gone") from None
        finally:
            theirs.close()
        try:
            pid = self._reply(CONTROL_SECONDS, "pid", int)
        except BotFault:
            ours.close()
            raise
        return ours.detach(), pid

    def reap(self, pid: int, settle: float = 0.0) -> str | None:
        """Kill every process of the match; how child ``pid`` ended if it did."""
        assert self.control is not None
        try:
            self.control.send(json.dumps({"op": "reap", "pid": pid, "settle": settle}).encode())
        except OSError:
            self.kill()
            raise BotFault(CRASH, "its sandbox is gone") from None
        ended: str | None = self._reply(CONTROL_SECONDS + settle, "ended", (str, type(None)))
        return ended

    def _reply(self, seconds: float, key: str, kind: Any) -> Any:
        """The supervisor's answer ``key``. A bot's processes can stop or kill
        their supervisor, so anything odd here (silence, junk, an end) is the
        bot's doing: the sandbox is killed and the bot charged. The
        sandbox's turn while it is awaited (the request went a moment before)."""
        assert self.control is not None and self.groups is not None
        self.control.settimeout(seconds)
        with self.groups.turn():
            value = ask(self.control, key)
        if value is JUNK or not isinstance(value, kind) or isinstance(value, bool):
            self.kill()
            raise BotFault(CRASH, "its sandbox did not answer, or not as it should")
        return value

    def kill(self) -> None:
        """Ends the sandbox: its first process's death takes every other with it."""
        if self.groups is not None:
            self.groups.ending()
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.groups is not None:
            self.groups.remove()
            self.groups = None


_Key = tuple[Any, ...]  # what makes two sandboxes interchangeable
_ZYGOTES: dict[_Key, Zygote] = {}
# Bots that did not load: not tried again in this process.
_BROKEN: dict[_Key, BotFault] = {}
_RESTARTS: dict[_Key, int] = {}
MAX_RESTARTS = 3
# Command bots kept for the next match, and their pids.
_KEPT: dict[_Key, tuple[Channel, int]] = {}
# The endpoint whose match a sandbox serves now. A bot seated twice at one
# table (two bots at four seats: A B A B) plays each seat in a sandbox of its
# own: in one, the two would share /tmp and see each other's hands.
_HOLDERS: weakref.WeakValueDictionary[_Key, SandboxEndpoint] = weakref.WeakValueDictionary()


@atexit.register
def close_sandboxes() -> None:
    """Ends this process's sandboxes (a worker's, at its end)."""
    pid = os.getpid()
    for key in [k for k in _KEPT if k[0] == pid]:
        _KEPT.pop(key)[0].close()
    for key in [k for k in _ZYGOTES if k[0] == pid]:
        _ZYGOTES.pop(key).kill()


class SandboxEndpoint:
    """Isolation ``sandbox``: a child of the bot's zygote for each match.
    The zygote is started on first use and kept for the worker's life."""

    keeps = True  # a command bot's child lives on in its sandbox

    def __init__(self, key: _Key, make: Any, limits: Limits, framed: bool) -> None:
        self.bot, self.make, self.limits, self.framed = (os.getpid(), *key), make, limits, framed
        self.key = (*self.bot, 0)  # the bot's sandbox this seat plays in (see _HOLDERS)
        self.pid: int | None = None
        self.trouble: str | None = None  # what went wrong ending the last match, the bot's doing

    def zygote(self) -> Zygote:
        z = _ZYGOTES.get(self.key)
        if z is None or not z.alive:
            if self.bot in _BROKEN:
                raise _BROKEN[self.bot]
            if z is not None:  # its sandbox was killed: something the bot did
                z.kill()
                _RESTARTS[self.key] = restarts = _RESTARTS.get(self.key, 0) + 1
                if restarts > MAX_RESTARTS:  # each restart imports it again: not for ever
                    _BROKEN[self.bot] = BotFault(
                        START,
                        f"its sandbox broke {restarts} times in this worker; it plays no more here",
                    )
                    raise _BROKEN[self.bot]
            try:
                z = self.make()
            except BohnarenaError as e:  # its files went away since the league started
                raise BotFault(START, str(e)) from None
            _ZYGOTES[self.key] = z
            try:
                z.start()
            except BotFault as f:
                del _ZYGOTES[self.key]
                if f.kind == START:
                    _BROKEN[self.bot] = f
                raise
            except BaseException:
                del _ZYGOTES[self.key]
                z.kill()
                raise
        return z

    def open(self) -> Channel:
        self._hold()
        kept = _KEPT.pop(self.key, None)
        if kept is not None:
            if self.zygote().alive:
                channel, self.pid = kept
                channel.reused = True
                return channel
            kept[0].close()
        z = self.zygote()
        fd, self.pid = z.fork()
        assert z.groups is not None
        return Channel(fd, fd, self.limits.output_kb * 1024, framed=self.framed, turn=z.groups.turn)

    def _hold(self) -> None:
        """Take the first of the bot's sandboxes that serves no other seat now."""
        slot = 0
        while _HOLDERS.get(key := (*self.bot, slot), self) is not self:
            slot += 1
        self.key = key
        _HOLDERS[key] = self

    def _release(self) -> None:
        if _HOLDERS.get(self.key) is self:
            del _HOLDERS[self.key]

    def keep(self, channel: Conversation) -> None:
        """The match is over, and the command bot asked to serve the next one
        too (``"reuse": true``): its process lives on in its sandbox."""
        assert self.pid is not None and isinstance(channel, Channel)
        _KEPT[self.key] = (channel, self.pid)
        self.pid = None
        self._release()

    def close(self, settle: float = 0.0) -> str | None:
        pid, self.pid = self.pid, None
        self._release()
        z = _ZYGOTES.get(self.key)
        if pid is None or z is None or not z.alive:
            return None
        try:
            return z.reap(pid, settle)
        except BotFault as f:  # the sandbox was killed whole: nothing of the bot is left
            self.trouble = str(f)
            return None


def endpoint(
    wire: str,
    spec: str | None,
    command: Sequence[str] | None,
    isolation: str,
    limits: Limits,
    log: Path | None,
    own: str | None = None,
    packages: tuple[str, ...] = DEFAULT_PACKAGES,
) -> Endpoint:
    """The endpoint of a league bot run outside the engine's process
    (``wire``: its game's wire module, see :attr:`bohnarena.core.game.Game.wire`;
    ``own``: a command bot's own directory, see :func:`.jail.command_files`;
    ``packages``: what a Python bot may import, see :mod:`.packages`)."""
    # Python bots run under bohnarena's own host, which reads marshal frames.
    if isolation == "process":
        if command:
            return ProcessEndpoint(list(command), limits, log)
        started, env = process_python(wire, spec or "", packages)
        return ProcessEndpoint(list(started), limits, log, framed=True, env=dict(env))
    jail.bwrap()
    if command:
        argv, dirs = jail.command_files(command, own)
        # What it runs and what it is shown (two bots' argv inside may be the same)
        key: tuple[Any, ...] = ("command", tuple(command), own, limits, log)
        return SandboxEndpoint(
            key, lambda: Zygote(["--command", *argv], {}, dirs, None, limits, log), limits, False
        )

    allowed_code(packages)  # a package that is not installed: one line, before any match

    def make() -> Zygote:  # located only when a sandbox starts, not for every match
        target, code, bot_file = python_target(spec or "", packages)
        return Zygote(["--spec", wire, target], code, {}, bot_file, limits, log)

    return SandboxEndpoint(("python", wire, spec, packages, limits, log), make, limits, True)


def python_target(
    spec: str, packages: tuple[str, ...] = DEFAULT_PACKAGES
) -> tuple[str, dict[str, Path], Path | None]:
    """How a Python bot is loaded out of process, found without importing it
    here: (its spec inside a sandbox, what it may import by top-level name:
    its own code and the league's ``packages``, its file)."""
    found = locate(spec)
    allowed = allowed_code(packages)
    query = "".join(spec.partition("?")[1:]).strip()  # its parameters, set by load_bot there
    if found.file is not None:
        return f"{jail.BOT_DIR}/{found.file.name}:{found.attr}{query}", dict(allowed), found.file
    if found.dist is None:  # a directory of code (a submission's): nothing installed vouches
        why = shadowing(found.paths, packages)
        if why is not None:
            raise BotLoadError(f"{spec}: {why}")
    return f"{found.module}:{found.attr}{query}", {**allowed, **found.paths}, None


@functools.cache
def process_python(
    wire: str, spec: str, packages: tuple[str, ...]
) -> tuple[tuple[str, ...], Mapping[str, str]]:
    """How a Python bot with ``process`` isolation is started: its command
    line and environment, found once per process (not for every match)."""
    target, code, bot_file = python_target(spec, packages)
    if bot_file is not None:  # its own path here, not the sandbox's
        target = f"{bot_file}:{target.rpartition(':')[2]}"
    # -P: not the working directory, -S -s: no site-packages (nor its entry
    # points: the bot goes by module:Class); bohnarena comes through
    # PYTHONPATH, what the bot may import is appended after the standard library.
    lib = str(importable(code))
    argv = (sys.executable, "-P", "-S", "-s", "-m", "bohnarena.external.host", wire, target, lib)
    env = {**os.environ, "PYTHONPATH": str(importable({}, jail.PACKAGE)), "PYTHONNOUSERSITE": "1"}
    return argv, MappingProxyType(env)
