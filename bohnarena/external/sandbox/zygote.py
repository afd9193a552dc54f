"""Inside the sandbox: a fresh child for each match, which imports the bot
afresh (so a match never depends on which matches the worker played
before), and a supervisor the bot's code never runs in.

    python -m bohnarena.external.sandbox.zygote CONTROL_FD LIMITS_JSON
        (--spec GAME SPEC | --command ARG...)

Processes: the **supervisor** (pid 1, this module's ``main``: bubblewrap
runs no init of its own, which a bot's process could trace), which alone
holds the engine's control socket, ends every match and reaps the
processes orphaned in the sandbox; the **template** (pid 2), which the
supervisor forks and which
holds bohnarena's own code only (the host, the game's wire and its data,
the prepared seccomp filter), never the bot's; and one **child** at a time,
forked by the template. A child takes the limits (CPU time included), the
worker's core and, for a Python bot, the filter before it imports the bot:
no code of the bot's ever runs unconfined, and none can rewrite the
template, whose functions make every child. When the sandbox starts, the
template forks a first child (as confined) that imports the bot and ends:
whether the bot loads, said at once. A command bot's child execs it (no
filter: it may start up to ``max_processes`` processes). Whatever a child
does, the supervisor kills every process but the template when a match ends.

The interpreter starts with bohnarena and the standard library alone on its
import path: the bot's code and the league's packages (:data:`.jail.LIB`)
are appended there by a child, once confined, so no module a submission
ships (``json.py``, ``encodings/``) is ever imported by the supervisor or
the template, and in a child the standard library's modules come first.

The engine speaks to the supervisor over a SOCK_SEQPACKET socket, one JSON
object a packet:

* first the supervisor says ``{"error": null}`` (the bot loaded) or
  ``{"error": "..."}``;
* ``{"op": "fork"}`` with one file descriptor attached: a child serves one
  match on that socket; the reply is ``{"pid": N}``;
* ``{"op": "reap", "pid": N, "settle": S}``: every process but the template
  is killed and /tmp emptied; the reply says how child N ended if it ended
  by itself (``{"ended": "exited with code 7"}``), waiting up to S seconds.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import resource
import select
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Any, NoReturn

from ...core.trees import remove
from .jail import LIB

TMP = "/tmp"
#: The bot's compiled bytecode, kept from one match to the next in its own
#: sandbox (a child compiles what it imports once, not every match). Only
#: confined children read or write it; the template never imports from it.
PYCACHE = os.path.join(TMP, ".pycache")
_PR_SET_DUMPABLE = 4
#: The template's own limits; a match child also gets the CPU limit.
_TEMPLATE_LIMITS = ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE")
_FILES = 256  # open files of the bot's processes (each memfd counts)
TEMPLATE_SECONDS = 30.0


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[0]))
    limits = json.loads(argv[1])
    processes = limits.pop("processes")
    # Not dumpable: a bot's process (same user) cannot ptrace the supervisor,
    # nor write its memory (/proc/1/mem, process_vm_writev).
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    template = os.fork()
    if template == 0:
        control.close()
        ours.close()
        _template(theirs, limits, argv[2:])
    theirs.close()
    ours.settimeout(TEMPLATE_SECONDS + limits["load_seconds"])
    hello = ask(ours, "error")
    _send(control, {"error": hello if hello is not JUNK else "the bot's process did not start"})
    if hello is not None:
        return
    ours.settimeout(1.0)  # a fork takes milliseconds; the engine waits 2 s for the answer
    keep = {os.getpid(), template}
    if processes:
        threading.Thread(target=_count_processes, args=(processes, keep), daemon=True).start()
    gc.freeze()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 4096, 1)
        except OSError:
            return
        if not data:
            return  # the engine is gone
        msg = json.loads(data)
        if msg["op"] == "fork" and fds:
            try:
                socket.send_fds(ours, [b"fork"], fds)
                pid = ask(ours, "pid")
            except OSError:
                pid = JUNK
            for fd in fds:
                os.close(fd)
            # A template that does not answer is the bot's doing: the engine charges it.
            _send(control, {"pid": pid if isinstance(pid, int) else None})
        elif msg["op"] == "reap":
            for fd in fds:
                os.close(fd)
            _send(control, {"ended": _reap(msg.get("pid"), msg.get("settle", 0.0), keep)})


# -- the template: bohnarena's own code, never the bot's -----------------------
def _template(sock: socket.socket, limits: dict[str, int], target: list[str]) -> None:
    cpus = os.sched_getaffinity(0)  # the worker's core: every child runs there
    load_seconds = limits.pop("load_seconds")
    for name in _TEMPLATE_LIMITS:
        value = limits[name]
        resource.setrlimit(getattr(resource, name), (value, value))
    resource.setrlimit(resource.RLIMIT_NOFILE, (_FILES, _FILES))
    try:
        bot = _target(target)
        # The bot's import-time code runs nowhere but in a confined child:
        # here, a probe that says at once whether the bot loads.
        error = bot.probe(lambda: _confine(sock, limits, cpus), load_seconds)
    except BaseException as e:  # bohnarena's own modules did not load (an install's fault)
        traceback.print_exc()
        error = f"{type(e).__name__}: {e}"[:500]
    _send(sock, {"error": error})
    if error is not None:
        os._exit(1)
    gc.freeze()  # a child's collections then leave the template's pages shared
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 4096, 1)
        except OSError:
            os._exit(0)
        if not data or not fds:
            os._exit(0)
        _collect()
        _send(sock, {"pid": _fork(fds[0], sock, limits, bot.serve, cpus)})


def _collect() -> None:
    """Reap the children the supervisor killed (their status was read before)."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


class _Command:
    """A command bot: each child execs it (a program in any language speaks
    the protocol on its stdin and stdout); nothing to load beforehand."""

    def __init__(self, command: list[str]) -> None:
        self.command = command

    def probe(self, confine: Any, seconds: float) -> str | None:
        return None  # a program that does not start fails its first match's start

    def serve(self, sock: int) -> None:
        os.dup2(sock, 0)
        os.dup2(sock, 1)
        os.close(sock)
        try:
            os.execvp(self.command[0], self.command)
        except OSError as e:
            os.write(2, f"cannot start {self.command[0]}: {e.strerror}\n".encode())
            _exit(127)  # the shell's "command not found"


class _Python:
    """A Python bot, served by bohnarena's host. The template imports only
    bohnarena's own code (the host, the game's wire and its data, the
    filter); each child, once filtered and limited, imports the bot afresh."""

    def __init__(self, wire: str, spec: str) -> None:
        from ...core.plugins import registered
        from ...core.wire import wire_of
        from .nochild import prepare

        self.wire, self.spec = wire_of(wire), spec
        # What every child would otherwise do again: read the game's data
        # and the entry points' metadata (no code runs), build the filter.
        getattr(self.wire, "warm", lambda: None)()
        registered()
        prepare()

    def load(self) -> type:
        """In a child: no new process from here on (the bot's threads
        included), then the bot's code."""
        from ...core.plugins import load_bot
        from .nochild import forbid_new_processes, prepare

        if not forbid_new_processes() and prepare() is not None:
            raise OSError("the sandbox cannot install its seccomp filter here")
        sys.pycache_prefix, sys.dont_write_bytecode = PYCACHE, False
        sys.path.append(LIB)  # after the standard library and bohnarena, and only here
        return load_bot(self.spec, self.wire.BASE)

    def probe(self, confine: Any, seconds: float) -> str | None:
        """Load the bot once in a confined child that then ends: None if it
        loads, else why not (its traceback goes to the bot's log)."""
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(reader)
                why = None
                try:
                    confine()
                    os.dup2(2, 1)  # its prints go to its log
                    self.load()
                except BaseException as e:
                    why = _why(e)
                    _log_failure(e)
                os.write(writer, json.dumps({"error": why}).encode())
            finally:
                os._exit(0)  # its import-time threads end here
        os.close(writer)
        ready, _, _ = select.select([reader], [], [], seconds)
        said = os.read(reader, 4096) if ready else b""
        os.close(reader)
        try:
            os.kill(pid, signal.SIGKILL)  # it is done, or stuck in the bot's code
        except ProcessLookupError:
            pass
        ended = describe_exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        if not ready:
            return f"it takes more than {seconds:g} s to import (every match imports it afresh)"
        try:
            error = json.loads(said)["error"]
        except (ValueError, KeyError, TypeError, RecursionError):
            return f"its process {ended} while it was imported"
        if error is None:
            return None
        return error[:500] if isinstance(error, str) else repr(error)[:500]

    def serve(self, sock: int) -> None:
        from ..host import private_stdio, serve

        stdin, stdout = private_stdio(sock, sock)
        try:
            cls = self.load()
        except BaseException as e:  # it loaded in the probe: a bot that loads by chance
            _log_failure(e)
            _refuse(stdin, stdout, _why(e))
            return
        serve(cls, self.wire, stdin, stdout)


def _why(e: BaseException) -> str:
    from ...core.errors import BotLoadError
    from ...core.plugins import raised

    return (str(e) if isinstance(e, BotLoadError) else raised(e))[:500]


def _log_failure(e: BaseException) -> None:
    """Why the bot did not load, in its log: the traceback of what its own
    code raised (not of bohnarena's BotLoadError around it)."""
    from ...core.errors import BotLoadError

    try:
        if not isinstance(e, BotLoadError):
            traceback.print_exception(e)
        elif e.__context__ is not None:
            traceback.print_exception(e.__context__)
        else:  # no code of the bot's ran (a missing class): the message says it all
            sys.stderr.write("".join(traceback.format_exception_only(e)))
        sys.stderr.flush()
    except BaseException:  # an exception whose text raises in turn: the engine says why
        pass


def _refuse(stdin: Any, stdout: Any, why: str) -> None:
    """Answer the match's start with why the bot does not load (a ``start`` fault)."""
    from ..channel import read_frame

    if read_frame(stdin) is not None:
        stdout.write(json.dumps({"error": f"the bot does not load: {why}"}).encode() + b"\n")
        stdout.flush()


def _target(args: list[str]) -> _Command | _Python:
    """What a child runs with its socket: the host serving a Python bot, or
    an exec of a command bot."""
    if args[0] == "--command":
        return _Command(args[1:])
    return _Python(args[1], args[2])


def _confine(template: socket.socket, limits: dict[str, int], cpus: set[int]) -> None:
    """In a new child, before anything of the bot runs: off the template's
    socket, on the worker's core, under every limit (CPU time included)."""
    template.close()
    os.sched_setaffinity(0, cpus)
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def _fork(
    sock: int, template: socket.socket, limits: dict[str, int], run: Any, cpus: set[int]
) -> int:
    pid = os.fork()
    if pid:
        os.close(sock)
        return pid
    code = 0
    try:
        _confine(template, limits, cpus)
        run(sock)
    except BaseException:  # the bot's own failure; its traceback goes to its log
        traceback.print_exc()
        code = 1
    finally:
        _exit(code)


def _exit(code: int) -> NoReturn:
    """A child's end, its exit status readable: the supervisor reads it from
    /proc, which shows a process that is not dumpable (as every child is
    until it execs) as having exited with 0."""
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    os._exit(code)


# -- the supervisor's work ------------------------------------------------------
_over: list[str] = []  # why the counter killed the match's processes


def _others(keep: set[int]) -> list[int]:
    """Live processes of the sandbox but init and ``keep`` (zombies are dead)."""
    out = []
    for name in os.listdir("/proc"):
        if (
            name.isdigit()
            and int(name) != 1
            and int(name) not in keep
            and _state(int(name)) not in ("Z", "")
        ):
            out.append(int(name))
    return out


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _exit_status(pid: int) -> int | None:
    """A dead child's wait status, from /proc (it is the template's child)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[-1]) if fields and fields[0] == "Z" else None


def _kill_all_but(keep: set[int]) -> None:
    for _ in range(100):  # a process forking as we kill: round again
        others = _others(keep)
        if not others:
            break
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)
    _collect()  # as pid 1, the supervisor is the parent of every orphan


def _count_processes(limit: int, keep: set[int]) -> None:
    """Where no cgroup caps the sandbox: kill the match's processes when they
    are more than ``limit`` (checked every 10 ms, so a burst can pass it briefly)."""
    while True:
        time.sleep(0.01)
        if len(_others(keep)) > limit:
            _over.append(f"was killed: more than {limit} processes")
            _kill_all_but(keep)


def _reap(pid: int | None, settle: float, keep: set[int]) -> str | None:
    ended = _over.pop() if _over else None
    _over.clear()
    if pid:
        until = time.monotonic() + settle
        status = _exit_status(pid)
        while status is None and _state(pid) and time.monotonic() < until:
            time.sleep(0.005)  # a child that is ending: its status, before the kill hides it
            status = _exit_status(pid)
        if status is not None and ended is None:
            ended = describe_exit(os.waitstatus_to_exitcode(status))
    _kill_all_but(keep)
    for entry in os.listdir(TMP):
        path = os.path.join(TMP, entry)
        if path == PYCACHE:
            continue
        try:  # (without recursion: the bot's tree may be nested thousands deep)
            remove(path)
        except OSError:  # what the bot made unremovable stays, and counts against its disk
            pass
    return ended


def describe_exit(code: int) -> str:
    """How a process ended, from its return code (negative: the signal)."""
    if code < 0:
        try:
            return f"died of signal {signal.Signals(-code).name}"
        except ValueError:
            return f"died of signal {-code}"
    return f"exited with code {code}"


JUNK = object()


def ask(sock: socket.socket, key: str) -> Any:
    """The value of ``key`` in the next packet, or JUNK (silence past the
    socket's timeout, junk, a closed socket)."""
    try:
        data = sock.recv(65536)
        return json.loads(data)[key] if data else JUNK
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return JUNK


def _send(sock: socket.socket, msg: dict[str, Any]) -> None:
    sock.send(json.dumps(msg).encode())


if __name__ == "__main__":
    main(sys.argv[1:])
