"""Text a bot wrote (notes, the messages of what it raised), made safe to
store in the log and to print in a transcript."""

from __future__ import annotations


def one_line(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with every character that is
    not printable (line breaks, terminal escapes, bidirectional controls,
    lone surrogates) written as its escape: a bot's text can neither forge
    lines of a transcript nor drive the organiser's terminal, and it is
    always valid UTF-8."""
    text = text[:limit]
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
