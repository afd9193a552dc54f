"""Every request a league sends a bot served over HTTP is one of the
published schema's http_<message> bodies: the message, with its session,
match and seat."""

from __future__ import annotations

import json

import pytest

from bohnarena.cli.schema import protocol_text
from bohnarena.run.dispatch import run_league
from tests.external.http.conftest import league_text, served

jsonschema = pytest.importorskip("jsonschema")


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, bots, players, extra, edition",
    [
        ("bohnanza", ("planner", "random", "trader"), 3, "", "classic"),
        ("wuerfel", ("wuerfel-greedy", "wuerfel-random"), 2, 'game = "wuerfel"\n', "standard"),
    ],
)
def test_every_request_is_an_http_message_of_the_schema(
    tmp_path, serve, game, bots, players, extra, edition
):
    rec = tmp_path / "rec.jsonl"
    url = serve(bots[0], "--game", game, "--record", str(rec))
    table = {bots[0]: served(url), **{b: f'"{b}"' for b in bots[1:]}}
    path = tmp_path / "l.toml"
    path.write_text(league_text(table, players=players, extra=extra, edition=edition))
    assert run_league(path, tmp_path / "out", workers=1, progress=False).complete
    schema = json.loads(protocol_text(game))
    seen = [json.loads(line) for line in rec.read_text().splitlines()]
    kinds = {s["type"] for s in seen}
    assert {"start", "decide", "end"} <= kinds
    checks = {  # built once: a validator compiles its schema
        kind: jsonschema.Draft202012Validator(
            {**schema, "anyOf": [{"$ref": f"#/$defs/http_{kind}"}]}
        )
        for kind in kinds
    }
    for s in seen:
        checks[s["type"]].validate(s["body"])
    for kind in kinds:  # a body without its envelope is no HTTP message
        body = next(s["body"] for s in seen if s["type"] == kind)
        assert not checks[kind].is_valid({k: v for k, v in body.items() if k != "session"})
    # One session per seat per match; the match id and seat in every request of it.
    by_session: dict[str, set] = {}
    for s in seen:
        by_session.setdefault(s["session"], set()).add((s["match_id"], s["seat"]))
    assert all(len(v) == 1 for v in by_session.values())
