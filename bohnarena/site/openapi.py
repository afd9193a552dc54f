"""The API's description (OpenAPI 3.1, served at ``/api/openapi.json``),
written by hand from one table of its calls, so a bot's CI can submit and
poll without reading the site's code."""

from __future__ import annotations

from typing import Any

from .. import __version__

_ERROR = {"$ref": "#/components/schemas/Error"}
_VERSION = {"$ref": "#/components/schemas/Version"}
_TOKEN: list[dict[str, list[str]]] = [{"bearer": []}]

#: (path, method, summary, operation): every call of the API.
CALLS: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "/api/entries/{name}/versions",
        "post",
        "Submit a new version of an entry: a wheel, an sdist or a .py file as the multipart "
        "field 'source' (and 'bot': a .py file's class or a wheel's entry point). It is "
        "staged and left pending; poll it until it is active or rejected.",
        {
            "security": _TOKEN,
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "required": ["source"],
                            "properties": {
                                "source": {"type": "string", "format": "binary"},
                                "bot": {"type": "string"},
                            },
                        }
                    }
                },
            },
            "responses": {
                "202": ("the version, pending", _VERSION),
                "400": ("not a submission (the reason says why)", _ERROR),
                "401": ("no valid token", _ERROR),
                "403": ("the token may not touch this entry", _ERROR),
                "409": ("this version is active already", _ERROR),
                "413": ("over the ladder's max_submission_mb (read no further)", _ERROR),
                "429": ("too many submissions (Retry-After says when to send it)", _ERROR),
            },
        },
    ),
    (
        "/api/versions/{id}",
        "get",
        "A version's state: pending, validating, active, rejected (with the reason), "
        "retired or suspended.",
        {
            "security": _TOKEN,
            "responses": {
                "200": ("the version", _VERSION),
                "401": ("no valid token", _ERROR),
                "403": ("not one of the token's entries", _ERROR),
                "404": ("no such version", _ERROR),
            },
        },
    ),
    (
        "/api/entries/{name}/retire",
        "post",
        "Retire the entry's active (or suspended) version: it leaves the standings.",
        {
            "security": _TOKEN,
            "responses": {
                "200": ("the version retired", _VERSION),
                "401": ("no valid token", _ERROR),
                "403": ("the token may not touch this entry", _ERROR),
                "409": ("the entry has no active version", _ERROR),
            },
        },
    ),
    (
        "/api/versions/{id}/stderr",
        "get",
        "The end (64 KiB) of the version's newest stderr log, escaped; shown while no "
        "match is hidden.",
        {
            "security": _TOKEN,
            "responses": {
                "200": ("the lines", {"type": "object"}),
                "401": ("no valid token", _ERROR),
                "403": ("not one of the token's entries, or not shown yet", _ERROR),
            },
        },
    ),
    (
        "/api/matches/{match_id}/notes",
        "get",
        "The notes the token's own bots wrote in a match (never another bot's); shown once "
        "the season's seed is revealed.",
        {
            "security": _TOKEN,
            "responses": {
                "200": ("the notes, by seat and record", {"type": "object"}),
                "401": ("no valid token", _ERROR),
                "403": ("none of the token's entries played it, or not shown yet", _ERROR),
                "404": ("no such finished match", _ERROR),
            },
        },
    ),
    (
        "/api/matches/{match_id}/stderr",
        "get",
        "What the token's own bots wrote to stderr in a match (never another bot's): "
        "each one's end (64 KiB), escaped; shown when its notes are.",
        {
            "security": _TOKEN,
            "responses": {
                "200": ("each of the token's bots at the table: its lines", {"type": "object"}),
                "401": ("no valid token", _ERROR),
                "403": ("none of the token's entries played it, or not shown yet", _ERROR),
                "404": ("no such finished match", _ERROR),
            },
        },
    ),
    (
        "/api/standings",
        "get",
        "The standings: active versions by score; retired and suspended ones apart.",
        {"responses": {"200": ("the standings", {"type": "object"})}},
    ),
    (
        "/api/entries/{name}/matches",
        "get",
        "An entry's matches, as `bohnarena matches` finds them: query version (NAME.hash8; "
        "the newest that played), against, seat, deal, faults=1, sort (id, upset, longest, "
        "faults, margin), limit (50; at most 500).",
        {
            "responses": {
                "200": ("the matches, the version and how many in all", {"type": "object"}),
                "400": ("a query it cannot answer", _ERROR),
                "404": ("no such entry", _ERROR),
            }
        },
    ),
    (
        "/api/live",
        "get",
        "The run in progress: matches played of planned, its standings as it plays.",
        {"responses": {"200": ("the run, or running: false", {"type": "object"})}},
    ),
]

_SCHEMAS = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "string"}},
    },
    "Version": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "entry": {"type": "string"},
            "version": {"type": "string", "description": "NAME.hash8, its bot in the league"},
            "kind": {"type": "string"},
            "source": {"type": "string"},
            "state": {
                "enum": ["pending", "validating", "rejected", "active", "retired", "suspended"]
            },
            "reason": {"type": "string"},
            "submitted": {"type": "number"},
            "changed": {"type": "number"},
            "poll": {"type": "string"},
        },
    },
}


def _operation(summary: str, op: dict[str, Any], path: str) -> dict[str, Any]:
    params = [
        {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
        for p in ("name", "id", "match_id")
        if "{" + p + "}" in path
    ]
    responses = {
        code: {"description": text, "content": {"application/json": {"schema": schema}}}
        for code, (text, schema) in op["responses"].items()
    }
    return {**op, "summary": summary, "parameters": params, "responses": responses}


def openapi(server: str) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for path, method, summary, op in CALLS:
        paths.setdefault(path, {})[method] = _operation(summary, op, path)
    return {
        "openapi": "3.1.0",
        "info": {"title": "bohnarena ladder", "version": __version__},
        "servers": [{"url": server}],
        "paths": paths,
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
