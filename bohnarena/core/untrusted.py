"""Text a bot wrote (notes, the messages of what it raised, its stderr),
made safe to store in the log, to write to a file the organiser reads and
to print: nothing of it can drive the organiser's terminal. (On a page:
:mod:`.pages`.)"""

from __future__ import annotations

import logging


def _escaped(text: str) -> str:
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def one_line(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with every character that is
    not printable (line breaks, terminal escapes, bidirectional controls,
    lone surrogates) written as its escape: a bot's text can neither forge
    lines of a transcript nor drive the organiser's terminal, and it is
    always valid UTF-8."""
    text = text[:limit]
    return text if text.isprintable() else _escaped(text)


def lines(text: str) -> str:
    """``text`` (a traceback, a table, a transcript) with its line breaks
    kept (``\\n``, and ``\\r\\n`` as CSV writes them) and every other
    character that is not printable escaped as :func:`one_line` does."""
    if text.isprintable():
        return text
    parts = text.split("\n")
    out = []
    for i, line in enumerate(parts):
        end = "\r" if line.endswith("\r") and i < len(parts) - 1 else ""
        out.append(_escaped(line[: len(line) - len(end)]) + end)
    return "\n".join(out)


def talk(text: str, limit: int) -> str:
    """A seat's public message (table talk) as every seat is shown it: each
    white space a plain space, every other character that is not printable
    (control characters, terminal escapes, bidirectional controls, lone
    surrogates) removed, cut to ``limit`` characters, trimmed. Applying it
    twice changes nothing (a logged message replays as it was said)."""
    text = text[: 8 * limit]  # (a bot's megabytes are not read: what is kept is near the start)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else " " if c.isspace() else "" for c in text)
    return text.strip()[:limit].rstrip()


class LogFormatter(logging.Formatter):
    """The run log's format, safe whatever a record holds (a bot's
    traceback, its exception's text, a library's message): every character
    that is not printable is escaped, and every line of a record after its
    first is indented, so that no text inside a record reads as a record
    of its own (each begins with its time, in the first column)."""

    def format(self, record: logging.LogRecord) -> str:
        return lines(super().format(record)).replace("\n", "\n  ")
