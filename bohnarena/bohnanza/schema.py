"""The JSON Schema of the card game's JSON-lines protocol, built from the
code that speaks it: the view, argument and answer tables of :mod:`.wire`,
the record layout of :mod:`.records` and the fields of :class:`.RuleSet`
(the messages around them: :mod:`bohnarena.core.protocol_schema`).

``bohnarena schema`` prints it; docs/protocol.schema.json is its published
copy (``bohnarena schema --out docs/protocol.schema.json`` regenerates it,
and a test fails when the copy is stale).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core import protocol_schema as ps
from ..core.protocol_schema import INT, INTS, closed
from . import wire
from .records import COLUMNS, LAYOUT
from .rules import RuleSet

#: Table talk's type: an answer's ``say``, a proposal's.
SAY: dict[str, Any] = {
    "description": "table talk: a public message every seat is shown (untrusted text; "
    "control characters removed, cut to 200 characters); absent or empty: nothing said",
    "type": "string",
}

#: The card game's own types in the tables of :mod:`.wire` and :mod:`.records`.
TYPES: dict[str, dict[str, Any]] = {
    "fields_by_seat": {
        "type": "array",
        "items": {
            "type": "array",
            "items": {
                "description": "[variety or -1 (empty), number of cards]",
                "type": "array",
                "prefixItems": [INT, INT],
                "minItems": 2,
                "maxItems": 2,
            },
        },
    },
    "say": SAY,
    "proposal": {
        "type": "object",
        "properties": {
            "by": INT,
            "to": {"type": ["integer", "null"]},
            "cards": INTS,
            "want": INTS,
            "say": SAY,
        },
        "required": ["by", "to", "cards", "want"],
        "additionalProperties": False,
    },
}

#: Python annotations of RuleSet's fields, as JSON types.
_ANNOTATIONS: dict[str, dict[str, Any]] = {
    "str": ps.TYPES["str"],
    "int": INT,
    "tuple[int, ...]": INTS,
    "tuple[str, ...]": {"type": "array", "items": {"type": "string"}},
    "str | None": ps.TYPES["str?"],
}


def rules_schema() -> dict[str, Any]:
    props = {f.name: _ANNOTATIONS[str(f.type)] for f in dataclasses.fields(RuleSet)}
    variety = closed(
        {
            "id": INT,
            "key": {"type": "string"},
            "name": {"type": "string"},
            "cards": INT,
            "beanometer": {
                "description": "least cards for 1, 2, 3, 4 coins (0: never)",
                **INTS,
                "minItems": 4,
                "maxItems": 4,
            },
            "draft_at": INT,
        }
    )
    props["varieties"] = {"type": "array", "items": variety}
    return closed(props)


def protocol() -> ps.GameProtocol:
    return ps.GameProtocol(
        game="bohnanza",
        made_from="bohnarena/bohnanza/wire.py, records.py and rules.py",
        docs="docs/writing-a-bot.md",
        rules=rules_schema(),
        wire=wire,
        layout=LAYOUT,
        columns=COLUMNS,
        required={"draft": ("index",)},
        tagged={
            "Proposal": TYPES["proposal"],
            **{
                tag: {"$ref": f"#/$defs/answer_{decision}"}
                for tag, decision in (
                    ("Offer", "offer"),
                    ("Accept", "respond"),
                    ("Anytime", "anytime"),
                    ("DraftPick", "draft"),
                )
            },
        },
        types=TYPES,
    )
