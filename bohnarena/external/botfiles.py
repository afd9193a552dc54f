"""A command bot's own files: what its sandbox shows of the host (the files
its command names, each alone, or the directory it declares as its own,
see :func:`.jail.command_files`), checked before a league starts to hold
nothing of the organiser's: no league file (its master seed), no results
directory (a secret seed in ``run.json``, every hand in the moves, other
bots' logs). The source hash of a resumed run covers the same files."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from ..core.entry import BotEntry
from ..core.errors import UsageError
from ..store import layout
from .sandbox.jail import command_files

#: A league file has a [bots] table (every league has one); its key may be
#: quoted (["bots"]). For a .toml file that does not parse as a whole.
_LEAGUE = re.compile(
    rb"""^[ \t]*(\[[ \t]*(bots|"bots"|'bots')[ \t]*[.\]]|(bots|"bots"|'bots')[ \t]*[.=])""",
    re.MULTILINE,
)
_LEAGUE_BYTES = 1 << 20
#: What a results directory holds (store.py): its facts (with its league
#: file, or its parts), its parts.
RESULTS_FILE = layout.RUN_JSON
PARTS = (layout.MATCHES, layout.MOVES)
HOW = (
    "give a command bot a directory of its own that holds only its files "
    '(dir = "bots/NAME" beside the league file, results elsewhere), '
    "or name each of its files in its command"
)


class ExposedError(UsageError):
    """A command bot's sandbox would show the organiser's files."""


def shown(entry: BotEntry) -> list[Path]:
    """The host paths (files, directories) the sandbox of ``entry`` shows."""
    assert entry.command is not None
    return list(command_files(entry.command, entry.dir)[1])


def tree(path: Path) -> Iterator[Path]:
    """``path`` if it is a file, else every file and symbolic link below it,
    in a fixed order, links not followed (inside the sandbox a link that
    leaves the tree leads nowhere)."""
    if not path.is_dir():
        yield path
        return
    for top, dirs, files in os.walk(path):
        dirs.sort()
        names = sorted(files) + sorted(d for d in dirs if os.path.islink(os.path.join(top, d)))
        for name in names:
            yield Path(top) / name


def check_layout(entry: BotEntry, league_file: Path | None, out: Path | None) -> None:
    """Refuse, with one line that says how to lay it out, a sandboxed
    command bot whose sandbox would show a league file, ``out`` (the run's
    results directory, even before it exists) or any results directory.
    A bot run as a ``process`` sees everything anyway: nothing to check."""
    if entry.command is None or entry.isolation != "sandbox":
        return
    if entry.dir is not None and not Path(entry.dir).is_dir():
        raise ExposedError(f"bot {entry.name!r}: dir {entry.dir} is not a directory")
    pairs = ((league_file, "league file"), (out, "results directory"))
    kept = [(p.resolve(), what) for p, what in pairs if p is not None]
    for path in shown(entry):
        exposed = _exposed(path, kept)
        if exposed is not None:
            kind = "directory" if path.is_dir() else "file"
            raise ExposedError(
                f"bot {entry.name!r}: its sandbox would show {exposed} through its {kind} "
                f"{path}; {HOW}"
            )


def _exposed(path: Path, kept: list[tuple[Path, str]]) -> str | None:
    """What of the organiser's the shown ``path`` holds or lies in, if anything."""
    for secret, what in kept:
        if secret == path or secret.is_relative_to(path) or path.is_relative_to(secret):
            return f"the run's {what} {secret}"
    for above in path.parents:
        if _is_results(above):
            return f"the results directory {above}"
    for found in tree(path):
        if found.is_symlink():
            continue  # (a link shows what it leads to only if that is shown too)
        if found.name == RESULTS_FILE and _is_results(found.parent):
            return f"the results directory {found.parent}"
        if found.parent.name in PARTS and found.suffix == ".parquet":
            return f"the results directory {found.parent.parent}"
        if _is_league(found):  # (whatever its name: `run` takes any)
            return f"the league file {found}"
    return None


def _is_results(path: Path) -> bool:
    """A results directory, or one begun (a run writes these first); a bot's
    own ``run.json`` alone is not one."""
    return (path / RESULTS_FILE).is_file() and any(
        (path / name).exists() for name in (layout.LEAGUE, *PARTS)
    )


def _is_league(path: Path) -> bool:
    """A file that reads as a league (a TOML document with a ``bots``
    table), or a .toml file that looks like one."""
    try:
        with open(path, "rb") as f:
            data = f.read(_LEAGUE_BYTES)
    except OSError:
        return False
    try:
        return isinstance(tomllib.loads(data.decode()).get("bots"), dict)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return path.suffix == ".toml" and _LEAGUE.search(data) is not None
