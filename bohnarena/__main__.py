"""The ``bohnarena`` command (and ``python -m bohnarena``): stops are made
safe before the command line is imported, so a Ctrl-C at any moment of a
start-up is one line and exit code 130, never a traceback."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from .core.stopping import exit_code, interrupted, redeliver_lost_stops


def main() -> None:
    redeliver_lost_stops()
    try:
        from .cli import main as command_line
    except KeyboardInterrupt as stop:
        words = [a for a in sys.argv[1:] if not a.startswith("-")]
        sys.stderr.write(interrupted(words[0] if words else None) + "\n")
        sys.exit(exit_code(stop))
    try:
        command_line()
    except SystemExit as done:
        leave(done.code)
    leave(0)


def leave(code: object) -> NoReturn:
    """End the process with ``code`` (as ``sys.exit`` takes it) once the
    command is done: Python's own teardown runs (threads joined, atexit
    handlers: logs flushed, pools' children reaped), the C runtime's does
    not. Arrow's native thread pools can abort that one ("terminate called
    without an active exception", apache/arrow issue 34314), after every
    file is written, turning a finished run's exit code into -6."""
    if code is None or isinstance(code, int):
        status = code or 0
    else:  # sys.exit("message"), or any other object: printed, exit code 1
        sys.stderr.write(f"{code}\n")
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`bohnarena rank | head`)
            pass
    os._exit(status)


if __name__ == "__main__":
    main()
