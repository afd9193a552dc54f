"""Inside the sandbox: one process per bot per worker that imports the bot
once and forks a fresh child for each match (fresh module state, so a
match never depends on which matches the worker played before).

    python -m bohnarena.zygote CONTROL_FD LIMITS_JSON (--spec GAME SPEC | --command ARG...)

The engine speaks to it over a SOCK_SEQPACKET socket (fd CONTROL_FD), one
JSON object a packet:

* ``{"op": "fork"}`` with one file descriptor attached: a child serves one
  match on that socket; the reply is ``{"pid": N}``.
* ``{"op": "reap", "pid": N}``: every other process in the sandbox is
  killed and the private temporary directory emptied; the reply says how
  child N ended, if it ended before (``{"ended": "exited with code 7"}``).

It runs as the sandbox's second process (bubblewrap's init is the first), so
``kill(-1)`` reaches everything a bot started, however it detached.
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


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[0]))
    limits = json.loads(argv[1])
    processes = limits.pop("processes")
    # Not dumpable: a bot's process (same user) cannot ptrace its zygote.
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        serve_match = _target(argv[2:])
    except BaseException as e:  # the bot does not load: the engine reports why, its log shows where
        traceback.print_exc()
        _send(control, {"error": f"{type(e).__name__}: {e}"[:500]})
        return
    _send(control, {"error": None})
    if processes:
        threading.Thread(target=_count_processes, args=(processes,), daemon=True).start()
    gc.freeze()  # a child's collections then leave the zygote's pages shared
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 4096, 1)
        except OSError:
            return
        if not data:
            return  # the engine is gone
        msg = json.loads(data)
        if msg["op"] == "fork" and fds:
            _send(control, {"pid": _fork(fds[0], control, limits, serve_match)})
        elif msg["op"] == "reap":
            for fd in fds:
                os.close(fd)
            _send(control, {"ended": _reap(msg.get("pid"), msg.get("settle", 0.0))})


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


def _fork(sock: int, control: socket.socket, limits: dict[str, int], run: Any) -> int:
    pid = os.fork()
    if pid:
        os.close(sock)
        return pid
    code = 0
    try:
        control.close()
        for name, value in limits.items():
            limit = getattr(resource, name)
            resource.setrlimit(limit, (value, value))
        os.write(2, b"--- a new match\n")
        run(sock)
    except BaseException:  # the bot's own failure; its traceback goes to its log
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


_over: list[str] = []  # why the counter killed the match's processes


def _count_processes(limit: int) -> None:
    """Where no cgroup caps the sandbox: kill the match's processes when they
    are more than ``limit`` (checked every 10 ms, so a burst can pass it briefly)."""
    while True:
        time.sleep(0.01)
        count = sum(1 for p in os.listdir("/proc") if p.isdigit()) - 2  # init and this one
        if count > limit:
            _over.append(f"was killed: more than {limit} processes")
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _reap(pid: int | None, settle: float = 0.0) -> str | None:
    ended = _over.pop() if _over else None
    _over.clear()
    if pid:
        until = time.monotonic() + settle
        while True:  # a child that is ending: its status, before the kill hides it
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = 0, 0
                break
            if done or time.monotonic() >= until:
                break
            time.sleep(0.005)
        if done and ended is None:
            ended = _describe(status)
    try:
        os.kill(-1, signal.SIGKILL)  # every process here but this one and init
    except ProcessLookupError:
        pass  # nothing left to kill
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
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


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"died of signal {signal_name(os.WTERMSIG(status))}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _send(control: socket.socket, msg: dict[str, Any]) -> None:
    control.send(json.dumps(msg).encode())


if __name__ == "__main__":
    main(sys.argv[1:])
