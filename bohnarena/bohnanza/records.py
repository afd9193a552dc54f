"""The record stream of a match: what happened (events) and what each seat
answered (decisions), in order. It is the match log: a seed plus this stream
rebuild every state, and it is what the transcript, the Parquet move log and
replay read.

A record is a plain tuple ``(kind, seat, *values)`` (tuples keep the engine
fast); ``LAYOUT`` names its values. Every name is one of ``COLUMNS``, so a
record maps onto one flat table row. Seat -1 means "the table".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.botapi import RecordNames, fault_type, seen_by

#: Value columns and their kind: "int", "ints" (list of int) or "str".
COLUMNS: dict[str, str] = {
    "card": "int",
    "field": "int",
    "n": "int",
    "to": "int",
    "coins": "int",
    "cards": "ints",
    "want": "ints",
    "values": "ints",
    "decision": "str",
    "text": "str",
    "how": "str",
    "note": "str",
}

#: Events: what happened.
EVENTS: dict[str, tuple[str, ...]] = {
    "seat": ("text",),  # decisions this seat's agent answers itself
    "dealt": ("cards",),  # cards dealt to the seat, front first
    "turn": ("n",),  # seat is the active player of turn n
    "phase": ("n",),  # seat (the active player) begins phase n (1-4)
    "planted": ("card", "field", "n"),  # n: 0 from hand, 1 from trade area
    "revealed": ("card",),
    "drew": ("card",),
    "exhausted": ("n",),  # the draw pile ran out for the n-th time
    "reshuffled": ("n",),  # discard pile shuffled into a draw pile of n cards
    "harvested": ("field", "card", "n", "coins"),  # n cards of variety `card` paid `coins`
    "bought_field": ("coins", "cards"),  # cards: the coin cards paid (varieties)
    "offered": ("to", "cards", "want"),  # to -1: every other player; cards/want: varieties
    "said": ("text",),  # table talk: the public message of the seat's offer, before it
    "declined": ("to",),  # seat declined the offer made by seat `to`
    "traded": ("to", "cards", "want"),  # seat (active) gives `cards`, seat `to` gives `want`
    "kept": ("cards",),  # revealed cards the active player keeps to plant
    "draft_card": ("card",),  # a card the harvester draws for a Jumping Bean draft
    "picked": ("card", "field"),  # draft card planted in field, or field -1: discarded
    "draft_coin": ("card",),  # the draft's last card onto the harvester's coin pile
    "fault": ("decision", "text"),  # the seat's answer was replaced by the default
    "forfeit": (),  # too many faults: default answers from now on, ranked last
    "final_harvest": (),  # the game is over: every field is harvested
    "ended": ("values",),  # final coins of every seat
}

#: Decisions: what a seat answered (named after the Bot method asked). The
#: last value, ``how``, says who answered: "bot", "default" or "forced"
#: (see :data:`bohnarena.core.botapi.BY_BOT`).
DECISIONS: dict[str, tuple[str, ...]] = {
    "plant": ("card", "field", "how"),
    "make_room": ("card", "field", "how"),
    "plant_second": ("n", "how"),  # 1: yes
    "plant_next": ("n", "how"),  # index into the seat's trade area
    "anytime": ("cards", "n", "how"),  # fields harvested in order; n 1: bought a field
    "propose": ("n", "to", "cards", "want", "how"),  # n 0: no offer; cards: card references
    "offer": ("n", "cards", "want", "how"),
    "respond": ("n", "cards", "how"),  # n 1: accepted, giving these card references
    "draft": ("n", "field", "how"),  # index of the pick; field -1: discarded
}

#: A bot's note on the answer recorded right before it (``Bot.note``): the
#: log's and the organiser's; no seat sees another's.
NOTES: dict[str, tuple[str, ...]] = {"note": ("note",)}

LAYOUT: dict[str, tuple[str, ...]] = {**EVENTS, **DECISIONS, **NOTES}

_OWN = frozenset({*DECISIONS, *NOTES})  # records only their own seat sees

#: A named tuple class per record kind (``Planted(kind, seat, card, field,
#: n)``): what :attr:`SeatView.history` holds.
named = RecordNames(LAYOUT)
RECORD_TYPES: dict[str, type[tuple[Any, ...]]] = named.types


_PRIVATE = {"dealt": 2, "drew": 2}  # kind -> index of the value only its seat sees


def public(rec: tuple[Any, ...], seat: int) -> tuple[Any, ...] | None:
    """``rec`` as ``seat`` saw it at the table, or None if it saw nothing of it.

    Other seats' decisions and notes are unseen (their visible effects are events);
    other seats' dealt and drawn cards are masked as -1; of another seat's
    fault only its type is told (the details are the organiser's, and would
    be a channel between colluding bots).
    """
    kind = rec[0]
    if kind == "seat" or (kind in _OWN and rec[1] != seat):
        return None
    if kind == "fault" and rec[1] != seat:
        return (kind, rec[1], rec[2], fault_type(rec[3]))
    if kind in _PRIVATE and rec[1] != seat:
        hidden = rec[2]
        return (kind, rec[1], tuple(-1 for _ in hidden) if isinstance(hidden, tuple) else -1)
    return rec


def public_history(records: Sequence[tuple[Any, ...]], seat: int) -> tuple[tuple[Any, ...], ...]:
    """The records ``seat`` could have seen, in order (see :func:`public`),
    each as its kind's named tuple (see :data:`RECORD_TYPES`)."""
    return tuple(map(named, seen_by(records, seat, public)))


def as_dict(rec: Sequence[Any]) -> dict[str, Any]:
    """A record as ``{"kind", "seat", <named values>}``."""
    return {"kind": rec[0], "seat": rec[1], **dict(zip(LAYOUT[rec[0]], rec[2:], strict=False))}
