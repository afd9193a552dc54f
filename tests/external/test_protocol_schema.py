"""The published JSON Schemas of the protocol (docs/protocol.schema.json,
and docs/wuerfel.schema.json for the dice game): generated from the code,
up to date, and true of real traffic."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from bohnarena.bohnanza import play_match, ruleset
from bohnarena.bohnanza import schema as card_schema
from bohnarena.cli import cli
from bohnarena.core.entry import BotEntry
from bohnarena.core.protocol_schema import schema, schema_text
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits
from bohnarena.wuerfel import schema as dice_schema
from bohnarena.wuerfel.match import Match as DiceMatch
from bohnarena.wuerfel.rules import ruleset as dice_ruleset
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot

ROOT = Path(__file__).parents[2]
PUBLISHED = ROOT / "docs" / "protocol.schema.json"
DICE_PUBLISHED = ROOT / "docs" / "wuerfel.schema.json"
RECORDER = Path(__file__).parent / "recorder.py"
NOTING = f"{ROOT / 'tests' / 'bohnanza' / 'noting_bots.py'}:NotingBot"
SEARCHING = f"{ROOT / 'tests' / 'bohnanza' / 'searching_bots.py'}:QuickCounter"
DICE_NOTING = f"{ROOT / 'tests' / 'wuerfel' / 'noting_dice_bots.py'}:NotingDiceBot"
DICE_SEARCHING = f"{ROOT / 'tests' / 'wuerfel' / 'searching_dice_bots.py'}:SamplingDiceBot"


def test_published_schemas_are_up_to_date() -> None:
    for path, module, game in (
        (PUBLISHED, card_schema, "bohnanza"),
        (DICE_PUBLISHED, dice_schema, "wuerfel"),
    ):
        assert path.read_text("utf-8") == schema_text(module.protocol()), (
            f"{path.name} is stale: run bohnarena schema --game {game} --out docs/{path.name}"
        )
        jsonschema.Draft202012Validator.check_schema(schema(module.protocol()))


def test_schema_command_prints_checks_and_writes(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["schema"])
    assert r.exit_code == 0 and json.loads(r.output) == schema(card_schema.protocol())
    dice = CliRunner().invoke(cli, ["schema", "--game", "wuerfel"])
    assert dice.exit_code == 0 and json.loads(dice.output) == schema(dice_schema.protocol())
    out = tmp_path / "s.json"
    stale = CliRunner().invoke(cli, ["schema", "--out", str(out), "--check"])
    assert stale.exit_code == 1 and "stale" in stale.output
    assert CliRunner().invoke(cli, ["schema", "--out", str(out)]).exit_code == 0
    assert CliRunner().invoke(cli, ["schema", "--out", str(out), "--check"]).exit_code == 0
    for args in (["--out", str(tmp_path / "no" / "dir.json")], ["--out", str(tmp_path / "b.json")]):
        if "b.json" in args[1]:
            (tmp_path / "b.json").write_bytes(b"\xff\xfe")  # not UTF-8
            args.append("--check")
        bad = CliRunner().invoke(cli, ["schema", *args])
        assert bad.exit_code == 2 and "cannot" in bad.output and bad.exception is not None
        assert len(bad.output.strip().splitlines()) == 1


def test_a_game_without_a_wire_has_no_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    import bohnarena.cli.schema as cli_module

    monkeypatch.setattr(cli_module, "get_game", lambda name: SimpleNamespace(wire=None))
    r = CliRunner().invoke(cli, ["schema", "--game", "inprocess-only"])
    assert r.exit_code == 2 and "publishes no JSON-lines protocol schema" in r.output


def _traffic(
    tmp_path: Path, edition: str, players: int, spec: str, seed: int, **options: Any
) -> list[Any]:
    log = tmp_path / f"{edition}.jsonl"
    entry = BotEntry("rec", command=(sys.executable, str(RECORDER), str(log), spec))
    seat = remote_seat("bohnanza", BotEntry(entry.name, None, entry.command, "process"), Limits())
    try:
        others = [RandomBot() if i % 2 else PlannerBot() for i in range(players - 1)]
        result, _ = play_match(ruleset(edition, players, **options), seed, [seat, *others])
    finally:
        seat.close()
    assert result.faults[0] == 0
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def test_check_without_a_file_is_a_usage_error() -> None:
    r = CliRunner().invoke(cli, ["schema", "--check"])
    assert r.exit_code == 2 and "--check needs --out" in r.output
    assert len(r.output.strip().splitlines()) == 1


@pytest.mark.slow
def test_real_traffic_validates(tmp_path: Path) -> None:
    """Every message of real matches, both ways, against the published schema;
    each answer also against its decision's answer schema."""
    published = json.loads(PUBLISHED.read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(published)
    answers = {
        k[len("answer_") :]: jsonschema.Draft202012Validator(
            {**published, "anyOf": [{"$ref": f"#/$defs/{k}"}]}
        )
        for k in published["$defs"]
        if k.startswith("answer_")
    }
    kinds: set[str] = set()
    notes = 0
    events: set[str] = set()
    states: dict[str, int] = {}  # decide messages with a state, by bot
    for edition, players, spec, options in (
        ("classic", 4, NOTING, {}),  # the trader, with notes in its answers
        ("anniversary", 3, "bohnarena_bots.random_bot:RandomBot", {"extra_bean": "jumping"}),
        ("riogrande", 5, "bohnarena_bots.random_bot:RandomBot", {}),
        ("riogrande", 4, SEARCHING, {}),  # a searcher: it asks for the state
    ):
        for entry in _traffic(tmp_path, edition, players, spec, 5, **options):
            message = entry.get("in", entry.get("out"))
            validator.validate(message)
            if "in" in entry and message.get("type") == "decide":
                kinds.add(message["decision"])
                events.update(e["kind"] for e in message["events"])
                states[spec] = states.get(spec, 0) + ("state" in message["view"])
                last_state = message
            notes += "note" in entry.get("out", {})
            if "out" in entry and entry["to"].get("type") == "decide":
                answers[entry["to"]["decision"]].validate(message["answer"])
    assert kinds == set(answers)  # every decision was asked and answered
    # ... and the schema is strict: a view without a key, or an answer of
    # the wrong shape, is caught.
    decide = next(
        e["in"]
        for e in _traffic(tmp_path, "classic", 4, "random", 1)
        if "in" in e and e["in"]["type"] == "decide"
    )
    del decide["view"]["unseen"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(decide)
    with pytest.raises(jsonschema.ValidationError):
        answers["draft"].validate({"field": 1})
    assert {"traded", "harvested", "drew", "bought_field", "picked"} <= events
    assert notes  # replies with a note were validated
    assert states.pop(SEARCHING) > 50 and not any(states.values())  # only to who asks
    last_state["view"]["state"]["stack"].append([{"step": 1}])
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(last_state)


def _dice_traffic(tmp_path: Path, spec: str, seed: int, players: int = 3) -> list[Any]:
    log = tmp_path / f"dice-{seed}.jsonl"
    command = (sys.executable, str(RECORDER), str(log), spec, "bohnarena.wuerfel.wire")
    seat = remote_seat("wuerfel", BotEntry("rec", None, command, "process"), Limits())
    try:
        others = [RandomDiceBot() if i % 2 else GreedyDiceBot() for i in range(players - 1)]
        result = DiceMatch(dice_ruleset("standard", players), seed, [seat, *others]).play()
    finally:
        seat.close()
    assert result.faults[0] == 0
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.mark.slow
def test_real_dice_traffic_validates(tmp_path: Path) -> None:
    """The dice game's messages, both ways, against its published schema:
    a noting bot, and a searching bot that asks for the state."""
    published = json.loads(DICE_PUBLISHED.read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(published)
    kinds: set[str] = set()
    events: set[str] = set()
    notes = states = 0
    for spec, seed in ((DICE_NOTING, 3), (DICE_SEARCHING, 4)):
        for entry in _dice_traffic(tmp_path, spec, seed):
            message = entry.get("in", entry.get("out"))
            validator.validate(message)
            if "in" in entry and message.get("type") == "decide":
                kinds.add(message["decision"])
                events.update(e["kind"] for e in message["events"])
                states += "state" in message["view"]
                last = message
            notes += "note" in entry.get("out", {})
    assert kinds == {"keep", "harvest"} and notes and states > 10
    assert {"rolled", "set_aside", "fulfilled", "drew"} <= events
    broken = json.loads(json.dumps(last))
    del broken["view"]["time_left"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)
    keep = {**published, "anyOf": [{"$ref": "#/$defs/answer_keep"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"stop": True}, keep)  # no dice
