"""Stopping a run from outside: Ctrl-C, SIGTERM (what schedulers send) and
SIGHUP (a closed terminal) all stop it the same way, keeping what is done;
and the process attributes that keep a worker apart from the bots it
starts (it dies with its parent, its memory is not for other processes)."""

from __future__ import annotations

import _thread
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


class Stopped(KeyboardInterrupt):
    """A run stopped by ``signum``; a KeyboardInterrupt, so every place that
    handles Ctrl-C handles it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code(stop: BaseException) -> int:
    """The shell's code for a process ended by the signal: 130, 143, 129."""
    return 128 + getattr(stop, "signum", signal.SIGINT)


def interrupted(command: str | None) -> str:
    """The one line a stopped command prints; a stopped run can be resumed."""
    if command == "run":
        return "Interrupted; run the same command again to resume."
    return "Interrupted."


def redeliver_lost_stops() -> None:
    """A stop that lands while Python runs a callback it cannot raise from
    (a weakref's, as an import's lock has, or a ``__del__``) is printed as
    "Exception ignored" and lost: the command would go on as if never
    stopped. Deliver such a stop again, so it stops the command at the next
    line of ordinary code."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # from another thread, once this one has left the hook: a stop
            # raised in here would be lost again
            signum = getattr(unraisable.exc_value, "signum", signal.SIGINT)
            _thread.start_new_thread(_thread.interrupt_main, (signum,))
        else:
            previous(unraisable)

    sys.unraisablehook = hook


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within: SIGTERM and SIGHUP raise :class:`Stopped` in the main thread."""

    def stop(signum: int, frame: Any) -> None:
        raise Stopped(signum)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Noted:
    """Whether a stop signal really arrived (see :func:`noting_stops`)."""

    arrived = False


@contextmanager
def noting_stops() -> Iterator[Noted]:
    """Within: a stop signal that really arrives is noted before its handler
    runs, so that a KeyboardInterrupt raised by code run within (a bot's
    import) is told from the user's Ctrl-C. Only Python handlers can be
    wrapped (in the main thread); a signal that is ignored, or would kill
    the process, never raises anything."""
    noted = Noted()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return

    def wrap(handler: Any) -> Any:
        def note(signum: int, frame: Any) -> Any:
            noted.arrived = True
            return handler(signum, frame)

        return note

    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    for s, handler in previous.items():
        if callable(handler):
            signal.signal(s, wrap(handler))
    try:
        yield noted
    finally:  # whatever the code run within did to them
        for s, handler in previous.items():
            if handler is not None:  # (None: set outside Python, cannot be put back)
                signal.signal(s, handler)


def die_with_parent(signum: int = signal.SIGKILL, parent: int | None = None) -> None:
    """In a worker: be killed (sent ``signum``) when the process that started
    it (``parent``, if known) dies, however it dies (SIGKILL included), so no
    worker outlives its run."""
    parent = os.getppid() if parent is None else parent
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the pool's own checks remain
        return
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)


def private_memory() -> None:
    """Make this process not dumpable: another process of the same user
    (a ``process`` bot) that is not root can then neither read its memory
    (``/proc/PID/mem``: the hands, the draw pile, the seeds) nor trace it;
    its ``/proc`` entries belong to root. Root still can. Not inherited
    across exec: each bohnarena process that holds a match calls it."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        pass
