"""The JSON Schema of the dice game's JSON-lines protocol, built from the
tables of :mod:`.wire`, the record layout of :mod:`.game` and the fields of
:class:`.RuleSet` (the messages around them: :mod:`bohnarena.core.protocol_schema`).

``bohnarena schema --game wuerfel`` prints it; docs/wuerfel.schema.json is
its published copy (a test fails when the copy is stale).
"""

from __future__ import annotations

from typing import Any

from ..core import protocol_schema as ps
from ..core.protocol_schema import INT, INTS, closed
from . import wire
from .bot import FULFIL, REDEEM
from .game import COLUMNS, LAYOUT

TYPES: dict[str, dict[str, Any]] = {
    "bools": {"type": "array", "items": {"type": "boolean"}},
    "harvest_step": {"enum": [FULFIL, REDEEM]},
}


def rules_schema() -> dict[str, Any]:
    """The rules as sent (wire.rules_json): the options, and the dice and
    the deck as data (a dice or deck file never travels)."""
    return closed(
        {
            "edition": {"type": "string"},
            "players": INT,
            "early_stop": {"type": "boolean"},
            "target": INT,
            "version": INT,
            "varieties": {
                "description": "the varieties' names; a variety is its index",
                "type": "array",
                "items": {"type": "string"},
            },
            "faces": {
                "description": "each die's faces, as varieties",
                "type": "array",
                "items": INTS,
            },
            "deck": {
                "description": "each harvest card's six orders, bottom first, as text",
                "type": "array",
                "items": {"type": "array", "items": {"type": "string"}},
            },
        }
    )


def protocol() -> ps.GameProtocol:
    return ps.GameProtocol(
        game="wuerfel",
        made_from="bohnarena/wuerfel/wire.py, game.py and rules.py",
        docs="docs/wuerfel.md",
        rules=rules_schema(),
        wire=wire,
        layout=LAYOUT,
        columns=COLUMNS,
        required={"keep": ("dice",)},
        tagged={"Keep": {"$ref": "#/$defs/answer_keep"}},
        types=TYPES,
    )
