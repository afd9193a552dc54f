"""What a bot is: an entry of a league (a Python bot by its spec, a command
speaking the JSON-lines protocol, a bot served over HTTP, a language model),
how it is isolated, and its table in a league file read and checked."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .chat import KEYS as CHAT_KEYS
from .chat import Chat, chat_entry
from .errors import UsageError
from .params import Value, with_table
from .services import HTTP, Service, is_service, misplaced, service
from .services import KEYS as SERVICE_KEYS

ISOLATIONS = ("inprocess", "process", "sandbox")
#: Older names: "subprocess" was the sandbox's name before it had namespaces.
ISOLATION_ALIASES = {"subprocess": "sandbox"}
BOT_KEYS = {"spec", "command", "isolation", "dir", "params", *SERVICE_KEYS, *CHAT_KEYS}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: What a bot run as a process or in a sandbox may import besides the
#: standard library and its own code, unless the league says otherwise:
#: bohnarena (always) and its shipped bots, the starting points the docs offer.
DEFAULT_PACKAGES = ("bohnarena_bots",)


class LeagueError(UsageError):
    """A league file that cannot be run as written."""


@dataclass(frozen=True)
class BotEntry:
    """One bot of a league: a Python bot (``spec``) or any program speaking
    the JSON-lines protocol (``command``), run ``inprocess`` (Python bots
    only), as a ``process`` under limits, or in a ``sandbox`` (the default
    for command bots). ``dir``: a command bot's own directory, which its
    sandbox shows whole (without it, only the files its command names).
    ``packages``: the installed packages a Python bot run as a process or in
    a sandbox may import (the league's ``packages``). A bot served over
    HTTP has a ``service`` (its URL) instead, and the isolation ``"http"``:
    it runs where it is served (services.py)."""

    name: str
    spec: str | None = None
    command: tuple[str, ...] | None = None
    isolation: str = "inprocess"
    dir: str | None = None
    packages: tuple[str, ...] = DEFAULT_PACKAGES
    service: Service | None = None
    #: A language model at the table (chat.py): its endpoint is ``service``.
    chat: Chat | None = None
    #: The spec as the league file wrote it, where :func:`spec_path` made it
    #: absolute (what its source hash names: the same wherever the league is).
    written: str | None = field(default=None, compare=False)
    #: The parameters it sets (its spec's and its ``params`` table's, also
    #: in its spec; docs/tuning.md): a command bot gets them at start.
    params: tuple[tuple[str, Value], ...] = ()


def bot_entry(
    name: str, value: Any, isolation: str, where: str, base: Path | None = None
) -> BotEntry:
    """Bot ``name`` of a league (``value``: its spec string or table; ``isolation``:
    the league's default), checked; paths made absolute against ``base``."""
    if not NAME.match(name):
        raise LeagueError(f"{where}: bot name {name!r} must be letters, digits, '.', '_' or '-'")
    if isinstance(value, str):
        value = {"spec": value}
    if not isinstance(value, dict):
        raise LeagueError(f"{where}: bot {name!r} must be a spec string or a table")
    unknown = sorted(set(value) - BOT_KEYS)
    if unknown:
        raise LeagueError(
            f"{where}: bot {name!r}: unknown key {unknown[0]!r} "
            f"(known: {', '.join(sorted(BOT_KEYS))})"
        )
    table = value.get("params", {})
    if table and ("chat" in value or is_service(value)):
        raise LeagueError(f"{where}: bot {name!r}: params go with spec or command")
    if "chat" in value:
        svc, chat = chat_entry(name, value, where, base)
        return BotEntry(name, isolation=HTTP, service=svc, chat=chat)
    stray = sorted(set(value) & (CHAT_KEYS - SERVICE_KEYS))
    if stray:
        raise LeagueError(f"{where}: bot {name!r}: {stray[0]} goes with chat (a model's endpoint)")
    if is_service(value):
        return BotEntry(name, isolation=HTTP, service=service(name, value, where))
    if not isinstance(table, dict):
        raise LeagueError(f"{where}: bot {name!r}: params must be a table")
    misplaced(name, value, where)
    spec, command = value.get("spec"), value.get("command")
    if (spec is None) == (command is None):
        raise LeagueError(f"{where}: bot {name!r} needs exactly one of spec or command")
    if spec is not None and not isinstance(spec, str):
        raise LeagueError(f"{where}: bot {name!r}: spec must be a string")
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command)
    ):
        raise LeagueError(f"{where}: bot {name!r}: command must be a list of strings")
    # A command bot cannot run in process: the league's default applies to it
    # unless that is "inprocess".
    default = "sandbox" if command is not None and isolation == "inprocess" else isolation
    mode = value.get("isolation", default)
    mode = ISOLATION_ALIASES.get(mode, mode) if isinstance(mode, str) else mode
    if mode not in ISOLATIONS:
        raise LeagueError(
            f"{where}: bot {name!r}: isolation must be one of {', '.join(ISOLATIONS)}"
        )
    if command is not None and mode == "inprocess":
        raise LeagueError(f'{where}: bot {name!r}: a command bot runs as "process" or "sandbox"')
    own = value.get("dir")
    if own is not None and (command is None or not isinstance(own, str) or not own):
        raise LeagueError(f"{where}: bot {name!r}: dir is a directory name and goes with command")
    if command is not None and base is not None:
        command, own = command_paths(command, own, base)
    set_: dict[str, Value] = {}
    if spec is not None:
        spec, set_ = with_table(spec, table, f"{where}: bot {name!r}")
    elif table:
        _, set_ = with_table("", table, f"{where}: bot {name!r}")
    found = spec if spec is None or base is None else spec_path(spec, base)
    written = spec if found != spec else None
    return BotEntry(
        name,
        found,
        tuple(command) if command else None,
        mode,
        own,
        written=written,
        params=tuple(sorted(set_.items())),
    )


def spec_path(spec: str, base: Path) -> str:
    """A bot spec whose file (``bots/x.py:Bot``) or root
    (``bots/src/module:Bot``) is a relative path that exists in ``base``
    (the league file's directory), made absolute as a command's paths are:
    a league that keeps its bots beside it (a ladder) runs from any working
    directory and can be moved. Any other spec is kept as written."""
    where, sep, attr = spec.rpartition(":")
    path = Path(where)
    if not sep or path.is_absolute() or where.startswith("~"):
        return spec
    if where.endswith(".py"):
        found = base / path
        return f"{found.resolve()}:{attr}" if found.is_file() else spec
    if "/" not in where:  # a module on the path
        return spec
    root = base / path.parent
    return f"{root.resolve() / path.name}:{attr}" if root.is_dir() else spec


def command_paths(command: list[str], own: str | None, base: Path) -> tuple[list[str], str | None]:
    """A command bot's paths resolved against ``base`` (the league file's
    directory): its own directory (which must exist only when the bot
    starts) and its arguments (:func:`resolve_arg`)."""
    home = None if own is None else (base / own).resolve()
    return [resolve_arg(arg, base, home) for arg in command], None if home is None else str(home)


def resolve_arg(arg: str, base: Path, own: Path | None = None) -> str:
    """A command argument that is a relative path to an existing file in
    ``base`` (the league file's directory), or to anything inside ``own``
    (the bot's own directory: ``-cp bots/mine/classes``), becomes absolute,
    so that a league runs the same from any working directory; anything
    else is kept as is."""
    if not arg or arg.startswith("-") or Path(arg).is_absolute():
        return arg
    path = base / arg
    inside = own is not None and path.exists() and path.resolve().is_relative_to(own)
    return str(path.resolve()) if path.is_file() or inside else arg
