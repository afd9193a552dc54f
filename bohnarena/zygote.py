"""Inside the sandbox: a bot imported once, a fresh child forked from it for
each match (fresh module state, so a match never depends on which matches
the worker played before), and a supervisor the bot's code never runs in.

    python -m bohnarena.zygote CONTROL_FD LIMITS_JSON (--spec GAME SPEC | --command ARG...)

Processes: bubblewrap's init (pid 1); the **supervisor** (pid 2, this
module's ``main``), which alone holds the engine's control socket and ends
every match; the **template** (pid 3), which the supervisor forks, confines
(rlimits) and lets import the bot; and one **match child** at a time, forked
by the template. The bot's import-time code runs in the template, so the
template is the bot's: it never sees the control socket, and whatever it or
its children do, the supervisor still kills every process but the template
when a match ends.

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
import shutil
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Any

TMP = "/tmp"
_PR_SET_DUMPABLE = 4
#: The template's own limits; a match child also gets the CPU limit.
_TEMPLATE_LIMITS = ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE")
_FILES = 256  # open files of the bot's processes (each memfd counts)
TEMPLATE_SECONDS = 30.0


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[0]))
    limits = json.loads(argv[1])
    processes = limits.pop("processes")
    # Not dumpable: a bot's process (same user) cannot ptrace the supervisor.
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    template = os.fork()
    if template == 0:
        control.close()
        ours.close()
        _template(theirs, limits, argv[2:])
    theirs.close()
    ours.settimeout(TEMPLATE_SECONDS)
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


# -- the template: the bot's own process --------------------------------------
def _template(sock: socket.socket, limits: dict[str, int], target: list[str]) -> None:
    cpus = os.sched_getaffinity(0)  # the worker's core: every match child runs there
    for name in _TEMPLATE_LIMITS:
        value = limits[name]
        resource.setrlimit(getattr(resource, name), (value, value))
    resource.setrlimit(resource.RLIMIT_NOFILE, (_FILES, _FILES))
    try:
        serve_match = _target(target)
    except BaseException as e:  # the bot does not load: the engine reports why, its log shows where
        traceback.print_exc()
        _send(sock, {"error": f"{type(e).__name__}: {e}"[:500]})
        os._exit(1)
    _send(sock, {"error": None})
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 4096, 1)
        except OSError:
            os._exit(0)
        if not data or not fds:
            os._exit(0)
        _collect()
        _send(sock, {"pid": _fork(fds[0], sock, limits, serve_match, cpus)})


def _collect() -> None:
    """Reap the children the supervisor killed (their status was read before)."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _target(args: list[str]) -> Any:
    """What a child runs with its socket: the host serving a Python bot
    (imported now, once), or an exec of a command bot."""
    if args[0] == "--command":
        command = args[1:]
        return lambda sock: _exec(sock, command)
    from .host import private_stdio, serve, wire_of
    from .nochild import forbid_new_processes, prepare
    from .plugins import load_bot

    wire = wire_of(args[1])
    cls = load_bot(args[2], wire.BASE)
    # What every match would otherwise do again in its child: read the
    # game's data, build the filter.
    getattr(wire, "warm", lambda: None)()
    prepare()

    def serve_python(sock: int) -> None:
        forbid_new_processes()
        serve(cls, wire, *private_stdio(sock, sock))

    gc.freeze()  # a child's collections then leave the template's pages shared
    return serve_python


def _exec(sock: int, command: list[str]) -> None:
    # A program in any language speaks the protocol on its stdin and stdout.
    os.dup2(sock, 0)
    os.dup2(sock, 1)
    os.close(sock)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        os.write(2, f"cannot start {command[0]}: {e.strerror}\n".encode())
        os._exit(127)


def _fork(
    sock: int, template: socket.socket, limits: dict[str, int], run: Any, cpus: set[int]
) -> int:
    pid = os.fork()
    if pid:
        os.close(sock)
        return pid
    code = 0
    try:
        template.close()
        os.sched_setaffinity(0, cpus)
        for name, value in limits.items():
            resource.setrlimit(getattr(resource, name), (value, value))
        run(sock)
    except BaseException:  # the bot's own failure; its traceback goes to its log
        traceback.print_exc()
        code = 1
    finally:
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
            return
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)


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
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
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
