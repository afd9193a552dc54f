"""The ``bohnarena`` command line: the group and its options in
:mod:`.group`, one module per command or group of commands. Importing this
package registers every command."""

from __future__ import annotations

from . import (
    bench,
    bots,
    compare,
    ladder,
    matches,
    play,
    rank,
    replay,
    run,
    schema,
    serve,
    tune,
    verify,
)
from .group import cli, main

__all__ = [
    "bench",
    "bots",
    "cli",
    "compare",
    "ladder",
    "main",
    "matches",
    "play",
    "rank",
    "replay",
    "run",
    "schema",
    "serve",
    "tune",
    "verify",
]
