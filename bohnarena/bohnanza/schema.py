"""The JSON Schema of the card game's JSON-lines protocol, built from the
code that speaks it: the view, argument and answer tables of :mod:`.wire`,
the record layout of :mod:`.records` and the fields of :class:`.RuleSet`.

``bohnarena schema`` prints it; docs/protocol.schema.json is its published
copy (``bohnarena schema --out docs/protocol.schema.json`` regenerates it,
and a test fails when the copy is stale).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..game import PROTOCOL_VERSION, STATE
from ..seats import NOTE_CHARS
from . import wire
from .records import COLUMNS, LAYOUT
from .rules import RuleSet

INT: dict[str, Any] = {"type": "integer"}
INTS: dict[str, Any] = {"type": "array", "items": INT}

#: The type names used by the tables of :mod:`.wire` and :mod:`.records`.
TYPES: dict[str, dict[str, Any]] = {
    "int": INT,
    "int?": {"type": ["integer", "null"]},
    "ints": INTS,
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "str?": {"type": ["string", "null"]},
    "number?": {"type": ["number", "null"], "minimum": 0},
    "ints_by_seat": {"type": "array", "items": INTS},
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
    "frames": {"type": "array", "items": {"$ref": "#/$defs/state_value"}},
    "value": {"$ref": "#/$defs/state_value"},
    "decisions_by_seat": {
        "type": "array",
        "items": {"type": "array", "items": {"enum": list(wire.DECISIONS)}},
    },
    "proposal": {
        "type": "object",
        "properties": {"by": INT, "to": {"type": ["integer", "null"]}, "cards": INTS, "want": INTS},
        "required": ["by", "to", "cards", "want"],
        "additionalProperties": False,
    },
}

#: Python annotations of RuleSet's fields, as JSON types.
_ANNOTATIONS: dict[str, str | dict[str, Any]] = {
    "str": "str",
    "int": "int",
    "tuple[int, ...]": "ints",
    "tuple[str, ...]": {"type": "array", "items": {"type": "string"}},
    "str | None": "str?",
}


def _type(name: str | dict[str, Any]) -> dict[str, Any]:
    return name if isinstance(name, dict) else TYPES[name]


def _object(
    props: dict[str, Any], required: list[str] | None = None, closed: bool = True
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
    }
    if closed:
        out["additionalProperties"] = False
    return out


def _const(value: str) -> dict[str, Any]:
    return {"const": value}


def rules_schema() -> dict[str, Any]:
    props = {f.name: _type(_ANNOTATIONS[str(f.type)]) for f in dataclasses.fields(RuleSet)}
    variety = _object(
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
    return _object(props)


def event_schemas() -> dict[str, Any]:
    return {
        kind: _object(
            {
                "kind": _const(kind),
                "seat": INT,
                **{name: _type(COLUMNS[name]) for name in names},
            }
        )
        for kind, names in LAYOUT.items()
    }


def answer_schema(kind: str) -> dict[str, Any]:
    shape, nullable = wire.ANSWERS[kind]
    if isinstance(shape, str):
        out = dict(_type(shape))
    else:
        required = ["index"] if kind == "draft" else []
        out = _object({k: _type(v) for k, v in shape.items()}, required)
    return {"anyOf": [out, {"type": "null"}]} if nullable else out


def state_value_schema() -> dict[str, Any]:
    """A value of the state's frames (see bohnarena/bohnanza/snapshot.py):
    plain data, a list (a tuple), a step by name, or an object tagged with
    its class."""
    tagged = {
        "Offer": "answer_offer",
        "Accept": "answer_respond",
        "Anytime": "answer_anytime",
        "DraftPick": "answer_draft",
    }
    return {
        "anyOf": [
            {"type": ["integer", "boolean", "string", "null"]},
            {"type": "array", "items": {"$ref": "#/$defs/state_value"}},
            _object({"step": {"type": "string", "pattern": "^_"}}),
            _object({"Proposal": TYPES["proposal"]}),
            *(_object({tag: {"$ref": f"#/$defs/{ref}"}}) for tag, ref in tagged.items()),
        ]
    }


def schema() -> dict[str, Any]:
    """The protocol's JSON Schema (draft 2020-12): one schema for every
    message either way; ``$defs`` names each message and part."""
    decisions = list(wire.DECISIONS)
    defs: dict[str, Any] = {
        "rules": rules_schema(),
        "view": _object(
            {
                **{k: _type(t) for k, t in wire.VIEW.items()},
                STATE: {
                    "description": "only to a seat that asked for it at start: the "
                    "searchable state's public part (for bohnarena's Python package)",
                    "anyOf": [{"$ref": "#/$defs/state"}, {"type": "null"}],
                },
            },
            list(wire.VIEW),
        ),
        "state": _object({k: _type(t) for k, t in wire.STATE.items()}),
        "state_value": state_value_schema(),
        "event": {"oneOf": [{"$ref": f"#/$defs/event_{k}"} for k in LAYOUT]},
        **{f"event_{k}": v for k, v in event_schemas().items()},
        **{f"args_{k}": _object({a: _type(t) for a, t in wire.ARGS[k].items()}) for k in decisions},
        **{f"answer_{k}": answer_schema(k) for k in decisions},
    }
    decide_by_kind = [
        {
            "if": {"properties": {"decision": _const(k)}},
            "then": {
                "properties": {
                    "args": {"$ref": f"#/$defs/args_{k}"},
                    "default": {"$ref": f"#/$defs/answer_{k}"},
                }
            },
        }
        for k in decisions
    ]
    then = _object({"decision": {"enum": decisions}, "args": {"type": "object"}})
    defs["start"] = _object(
        {
            "type": _const("start"),
            "protocol": {"const": PROTOCOL_VERSION},
            "seat": INT,
            "seed": INT,
            "match_id": {
                "type": ["integer", "null"],
                "description": "the league's id of the match (null outside a league run)",
            },
            "rules": {"$ref": "#/$defs/rules"},
        }
    )
    defs["new_match"] = _object({"type": _const("new_match")})
    defs["decide"] = {
        **_object(
            {
                "type": _const("decide"),
                "decision": {"enum": decisions},
                "view": {"$ref": "#/$defs/view"},
                "args": {"type": "object"},
                "events": {"type": "array", "items": {"$ref": "#/$defs/event"}},
                "default": {"description": "the answer the engine would play"},
                "then": {
                    "description": "bohnarena's own host only: a second decision, "
                    "answered when the first (anytime) is null",
                    **then,
                },
            },
            ["type", "decision", "view", "args", "events"],
        ),
        "allOf": decide_by_kind,
    }
    defs["end"] = _object({"type": _const("end"), "coins": INTS, "ranks": INTS, "winners": INTS})
    error = {"type": "string", "description": "a fault of the bot (the answer is void)"}
    defs["start_reply"] = _object(
        {
            "decisions": {
                "anyOf": [{"type": "array", "items": {"enum": decisions}}, {"type": "null"}]
            },
            "reuse": {"type": "boolean"},
            "state": {
                "type": "boolean",
                "description": "true: send the searchable state with each view "
                "(view.state), for a bot that searches ahead",
            },
            "error": error,
        },
        [],
    )
    defs["decide_reply"] = _object(
        {
            "answer": {"description": "the decision's answer: see answer_<decision>"},
            "note": {
                "type": ["string", "null"],
                "description": f"a note for the log and replay (at most {NOTE_CHARS} "
                "characters are kept; never shown to other seats)",
            },
            "error": error,
            "then": {"description": "the answer to `then`"},
            "then_error": error,
            "then_note": {
                "type": ["string", "null"],
                "description": "bohnarena's own host only: the note of `then`'s answer",
            },
        },
        [],
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://bohnarena.invalid/protocol.schema.json",
        "title": "bohnarena card game: the JSON-lines bot protocol",
        "description": (
            "Generated by `bohnarena schema` from bohnarena/bohnanza/wire.py, records.py "
            "and rules.py; do not edit. Engine to bot: start, new_match, decide, end "
            "(`type`); bot to engine: start_reply (to start) and decide_reply (to decide). "
            "See docs/writing-a-bot.md."
        ),
        "anyOf": [
            {"$ref": f"#/$defs/{m}"}
            for m in ("start", "new_match", "decide", "end", "start_reply", "decide_reply")
        ],
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=2, sort_keys=False) + "\n"
