"""The ``bohnarena`` command (and ``python -m bohnarena``): stops are made
safe before the command line is imported, so a Ctrl-C at any moment of a
start-up is one line and exit code 130, never a traceback."""

from __future__ import annotations

import sys

from .core.stopping import exit_code, interrupted, redeliver_lost_stops


def main() -> None:
    redeliver_lost_stops()
    try:
        from .cli import main as command_line
    except KeyboardInterrupt as stop:
        words = [a for a in sys.argv[1:] if not a.startswith("-")]
        sys.stderr.write(interrupted(words[0] if words else None) + "\n")
        sys.exit(exit_code(stop))
    command_line()


if __name__ == "__main__":
    main()
