"""Bots given as command lines (``cmd:COMMAND`` in ``play``, ``--command``
in ``check-bot``): league-style entries, their paths resolved against
the working directory and checked as a league's; bots given as URLs
(``http://``, ``https://``): served over HTTP; and language models
(``chat:URL?model=NAME...`` in ``play``: docs/text-seats.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..core.chat import CHAT_PREFIX, cli_chat
from ..core.entry import BotEntry
from ..core.errors import UsageError
from ..core.services import HTTP, cli_service, is_url

COMMAND_PREFIX = "cmd:"
SANDBOXED = "sandbox"


def command_entry(line: str, isolation: str, where: str, own: str | None = None) -> BotEntry:
    """A bot given as a command line (it cannot run in process: the sandbox
    then), its paths resolved against the working directory as a league's
    against its file's, and checked as a league's (:func:`.botfiles.check_layout`)."""
    import shlex

    from ..core.entry import command_paths
    from .botfiles import check_layout

    try:
        command = shlex.split(line)
    except ValueError as e:
        raise UsageError(f"{where}cannot split {line!r}: {e}") from None
    if not command:
        raise UsageError(f"{where}needs a command line")
    command, own = command_paths(command, own, Path.cwd())
    entry = BotEntry(
        line,
        command=tuple(command),
        isolation=SANDBOXED if isolation == "inprocess" else isolation,
        dir=own,
    )
    check_layout(entry, None, None)
    return entry


def play_entries(bots: Sequence[str], isolation: str) -> list[BotEntry]:
    """League-style entries for `play`'s BOTS: ``cmd:COMMAND LINE`` is a
    program speaking JSON lines, ``chat:URL?model=NAME`` a language model,
    a URL a bot served over HTTP, anything else a spec run with ``isolation``."""
    entries = []
    for i, bot in enumerate(bots):
        if bot.startswith(COMMAND_PREFIX):
            entry = command_entry(
                bot[len(COMMAND_PREFIX) :], isolation, f"seat {i}: {COMMAND_PREFIX}"
            )
            entries.append(replace(entry, name=Path(entry.command[-1]).name))  # type: ignore[index]
        elif bot.startswith(CHAT_PREFIX):
            svc, chat = cli_chat(bot, f"seat {i}")
            entries.append(BotEntry(chat.model, isolation=HTTP, service=svc, chat=chat))
        elif is_url(bot):
            entries.append(url_entry(bot))
        else:
            entries.append(BotEntry(bot, spec=bot, isolation=isolation))
    return entries


def url_entry(url: str) -> BotEntry:
    """A bot served at ``url``, given on the command line (see
    :func:`~bohnarena.core.services.cli_service`)."""
    return BotEntry(url, isolation=HTTP, service=cli_service(url))
