"""Fault types: the closed set of words a fault's reason begins with.

A fault's reason (``"timeout: no answer within 2 s"``) is the organiser's:
the move log's fault record keeps it whole. The other seats at the table
learn only its type, one of :data:`TYPES`, never text a bot chose, which
two colluding bots could use as a channel (a hand spelt out in an error
message). Every reason the engine builds begins with one of them; a bot's
own text (its error message, its exception's) only ever comes after.
"""

from __future__ import annotations

#: The bot's code raised (in process), or the bot reported an error (out of process).
RAISED = "raised"
#: The rules do not allow the answer.
ILLEGAL = "illegal"
#: ``decisions()`` did not return a set of the game's decisions.
MALFORMED = "malformed"
#: No answer in time, or its input not read in time.
TIMEOUT = "timeout"
#: Its process ended.
CRASH = "crash"
#: Not JSON, not an object, not the protocol, an answer of the wrong shape.
PROTOCOL = "protocol"
#: A message over ``output_kb``.
OUTPUT = "output"
#: It ran out of its memory.
MEMORY = "memory"
#: It did not start.
START = "start"

TYPES = frozenset({RAISED, ILLEGAL, MALFORMED, TIMEOUT, CRASH, PROTOCOL, OUTPUT, MEMORY, START})
#: What a reason that does not begin with one of :data:`TYPES` reads as
#: (a log written elsewhere; the engine builds none).
OTHER = "other"


def fault_type(reason: str) -> str:
    """The type of a fault: the first word of its reason if that is one of
    :data:`TYPES`, else :data:`OTHER`. All that other seats learn of it."""
    word = reason.split(":", 1)[0].split(" ", 1)[0]
    return word if word in TYPES else OTHER


def reported(text: str) -> str:
    """The reason for an error a bot out of process reports (``{"error":
    text}``): bohnarena's own host reports what the bot raised as
    ``raised Class: message``, which is kept; any other text follows the
    type ``raised``. Either way the type is ours, the rest the bot's."""
    return text if text.startswith(RAISED + " ") else f"{RAISED}: {text}"
