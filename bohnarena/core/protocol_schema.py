"""The JSON Schema of a game's JSON-lines bot protocol, built from the
tables of the game's wire module: the messages every game shares (start,
new_match, decide, end and the bot's two replies) around the parts each
game describes (its rules, view, state, events, decisions' arguments and
answers). ``bohnarena schema --game NAME`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .botapi import NOTE_CHARS
from .game import PROTOCOL_VERSION, STATE
from .wire import WireTables

INT: dict[str, Any] = {"type": "integer"}
INTS: dict[str, Any] = {"type": "array", "items": INT}

#: The type names of the games' wire tables (a game adds its own).
TYPES: dict[str, dict[str, Any]] = {
    "int": INT,
    "int?": {"type": ["integer", "null"]},
    "ints": INTS,
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "str?": {"type": ["string", "null"]},
    "number?": {"type": ["number", "null"], "minimum": 0},
    "ints_by_seat": {"type": "array", "items": INTS},
    "frames": {"type": "array", "items": {"$ref": "#/$defs/state_value"}},
    "value": {"$ref": "#/$defs/state_value"},
}


def closed(
    props: dict[str, Any], required: list[str] | None = None, strict: bool = True
) -> dict[str, Any]:
    """An object of ``props`` (all required unless ``required`` says);
    ``strict``: no other key."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
    }
    if strict:
        out["additionalProperties"] = False
    return out


def const(value: str) -> dict[str, Any]:
    return {"const": value}


@dataclass(frozen=True)
class GameProtocol:
    """What one game's protocol is made of."""

    game: str  # its name, as --game takes it
    made_from: str  # the modules the schema is generated from
    docs: str  # the page that explains it
    rules: dict[str, Any]  # the start message's rules object
    wire: WireTables  # the game's wire module
    layout: Mapping[str, Sequence[str]]  # record kind -> its values' names
    columns: Mapping[str, str]  # value name -> type name
    #: the state's objects tagged by class: tag -> the schema of what it holds
    tagged: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    types: Mapping[str, dict[str, Any]] = field(default_factory=dict)  # the game's own
    required: Mapping[str, Sequence[str]] = field(default_factory=dict)  # answer keys


def schema(p: GameProtocol) -> dict[str, Any]:
    """The protocol's JSON Schema (draft 2020-12): one schema for every
    message either way; ``$defs`` names each message and part."""
    wire = p.wire
    decisions = list(wire.ARGS)
    types = {
        **TYPES,
        "decisions_by_seat": {
            "type": "array",
            "items": {"type": "array", "items": {"enum": decisions}},
        },
        **p.types,
    }

    def typed(names: Mapping[str, str]) -> dict[str, Any]:
        return {k: types[t] for k, t in names.items()}

    def answer(kind: str) -> dict[str, Any]:
        shape, nullable = wire.ANSWERS[kind]
        if isinstance(shape, str):
            out = dict(types[shape])
        else:
            out = closed(typed(shape), list(p.required.get(kind, ())))
        return {"anyOf": [out, {"type": "null"}]} if nullable else out

    state_value = {
        "anyOf": [
            {"type": ["integer", "boolean", "string", "null"]},
            {"type": "array", "items": {"$ref": "#/$defs/state_value"}},
            closed({"step": {"type": "string", "pattern": "^_"}}),
            *(closed({tag: value}) for tag, value in p.tagged.items()),
        ]
    }
    defs: dict[str, Any] = {
        "rules": p.rules,
        "view": closed(
            {
                **typed(wire.VIEW),
                STATE: {
                    "description": "only to a seat that asked for it at start: the "
                    "searchable state's public part (for bohnarena's Python package)",
                    "anyOf": [{"$ref": "#/$defs/state"}, {"type": "null"}],
                },
            },
            list(wire.VIEW),
        ),
        "state": closed(typed(wire.STATE)),
        "state_value": state_value,
        "event": {"oneOf": [{"$ref": f"#/$defs/event_{k}"} for k in p.layout]},
        **{
            f"event_{kind}": closed(
                {"kind": const(kind), "seat": INT, **{n: types[p.columns[n]] for n in names}}
            )
            for kind, names in p.layout.items()
        },
        **{f"args_{k}": closed(typed(wire.ARGS[k])) for k in decisions},
        **{f"answer_{k}": answer(k) for k in decisions},
    }
    decide_by_kind = [
        {
            "if": {"properties": {"decision": const(k)}},
            "then": {
                "properties": {
                    "args": {"$ref": f"#/$defs/args_{k}"},
                    "default": {"$ref": f"#/$defs/answer_{k}"},
                }
            },
        }
        for k in decisions
    ]
    then = closed({"decision": {"enum": decisions}, "args": {"type": "object"}})
    defs["start"] = closed(
        {
            "type": const("start"),
            "protocol": {"const": PROTOCOL_VERSION},
            "seat": INT,
            "seed": INT,
            "match_id": {
                "type": ["integer", "null"],
                "description": "the league's id of the match (null outside a league run)",
            },
            "params": {
                "type": "object",
                "additionalProperties": {"type": ["number", "string", "boolean"]},
                "description": "the parameters the league sets for this bot, if any "
                "(docs/tuning.md); a Python bot has them as class attributes already",
            },
            "rules": {"$ref": "#/$defs/rules"},
        },
        # (params only where the league sets some)
        required=["type", "protocol", "seat", "seed", "match_id", "rules"],
    )
    defs["new_match"] = closed({"type": const("new_match")})
    defs["decide"] = {
        **closed(
            {
                "type": const("decide"),
                "decision": {"enum": decisions},
                "view": {"$ref": "#/$defs/view"},
                "args": {"type": "object"},
                "events": {"type": "array", "items": {"$ref": "#/$defs/event"}},
                "default": {"description": "the answer the engine would play"},
                "then": {
                    "description": "bohnarena's own host only: a second decision, "
                    "answered when the first (a harvest window) is null",
                    **then,
                },
            },
            ["type", "decision", "view", "args", "events"],
        ),
        "allOf": decide_by_kind,
    }
    defs["end"] = closed(
        {
            "type": const("end"),
            "coins": INTS,
            "ranks": INTS,
            "winners": INTS,
            "turns": {"type": "integer", "description": "turns played"},
            "faults": {**INTS, "description": "each seat's faults"},
        }
    )
    error = {"type": "string", "description": "a fault of the bot (the answer is void)"}
    defs["start_reply"] = closed(
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
    defs["decide_reply"] = closed(
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
    defs.update(http_requests(defs))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://bohnarena.invalid/{p.game}/protocol.schema.json",
        "title": f"bohnarena {p.game}: the JSON-lines bot protocol",
        "description": (
            f"Generated by `bohnarena schema --game {p.game}` from {p.made_from}; do not "
            "edit. Engine to bot: start, new_match, decide, end (`type`); bot to engine: "
            f"start_reply (to start) and decide_reply (to decide). See {p.docs}. "
            "A bot served over HTTP gets each message as a POST body with the "
            "envelope (session, match_id, seat) added: http_<message> "
            "(docs/http-bots.md)."
        ),
        "anyOf": [
            {"$ref": f"#/$defs/{m}"}
            for m in (*MESSAGES, "start_reply", "decide_reply", *(f"http_{m}" for m in MESSAGES))
        ],
        "$defs": defs,
    }


#: The engine's messages to a bot.
MESSAGES = ("start", "new_match", "decide", "end")
#: What every request to a bot served over HTTP carries besides its message.
ENVELOPE: dict[str, Any] = {
    "session": {
        "type": "string",
        "description": "HTTP only: a random key for this seat in this match (a fresh "
        "bot per session); the same in every request of the match",
    },
    "match_id": {
        "type": ["integer", "null"],
        "description": "the league's id of the match (null outside a league run)",
    },
    "seat": {**INT, "description": "the seat this bot plays in the match"},
}


def http_requests(defs: Mapping[str, Any]) -> dict[str, Any]:
    """``http_<message>``: each engine message as a POST body to a bot
    served over HTTP, the envelope's keys added (and required)."""
    out = {}
    for m in MESSAGES:
        message = defs[m]
        out[f"http_{m}"] = {
            **message,
            "properties": {**ENVELOPE, **message["properties"]},
            "required": list(dict.fromkeys([*ENVELOPE, *message["required"]])),
        }
    return out


def schema_text(p: GameProtocol) -> str:
    return json.dumps(schema(p), indent=2, sort_keys=False) + "\n"
