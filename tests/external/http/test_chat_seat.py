"""A language model at the table (docs/text-seats.md), against a real
chat-completions server on 127.0.0.1 with scripted replies
(tests/external/http/chat_server.py): good answers, JSON in prose, illegal answers,
garbage, a reply after the deadline, 429 with Retry-After, 500s, a dropped
connection, a server that is down; each ends as the docs say, charged to
that seat only."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from bohnarena.bohnanza.game import GAME
from bohnarena.bohnanza.rules import ruleset
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.textlayer import TEXT_VERSION
from bohnarena.core.errors import BotLoadError, UsageError
from bohnarena.external.http.chat import ChatSeat
from bohnarena.league.file import load_league
from bohnarena.referee.limits import Limits
from bohnarena.run.provenance import preflight
from bohnarena.run.seating import make_seat

from .chat_server import ChatServer, chat_server

TOKEN = "sk-scripted-0123456789"
LIMITS = Limits(decision_seconds=1.0, match_seconds=600.0)


def _league(tmp_path: Path, url: str, **more: Any) -> Path:
    (tmp_path / "prompt.md").write_text("You are a careful bean farmer.")
    keys = {
        "chat": url,
        "model": "scripted-7b",
        "allow_private": True,
        "token_env": "BOHNARENA_TOKEN_LLM",
        "temperature": 0.2,
        "max_tokens": 64,
        "system": "prompt.md",
        **more,
    }
    table = ", ".join(f"{k} = {json.dumps(v)}" for k, v in keys.items())
    path = tmp_path / "league.toml"
    path.write_text(
        f'name = "llm"\nplayers = 3\ndeals = 1\nseed = 5\n[limits]\ndecision_seconds = 1.0\n'
        f'[bots]\nllm = {{ {table} }}\nplanner = "planner"\nrandom = "random"\n'
    )
    return path


def _seat(tmp_path: Path, server: ChatServer, **more: Any) -> ChatSeat:
    entry = load_league(_league(tmp_path, server.url, **more)).bots["llm"]
    seat = make_seat(GAME, entry, LIMITS)
    assert isinstance(seat, ChatSeat)
    return seat


def _at(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A view and arguments at a decision ``kind`` of a seeded match."""
    state = State(ruleset("classic", 3), 4)
    state.start()
    while state.pending is not None and state.pending[1] != kind:
        state.apply(state.legal_answers()[0])
    assert state.pending is not None
    seat, _, args = state.pending
    return state.view(seat), args


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOHNARENA_TOKEN_LLM", TOKEN)
    monkeypatch.setattr("bohnarena.external.http.chat.BACKOFF_SECONDS", 0.01)  # (a quick test)


def _decide(tmp_path: Path, script: list[Any], kind: str = "plant", **more: Any) -> Any:
    view, args = _at(kind)
    with chat_server(script) as server:
        seat = _seat(tmp_path, server, **more)
        assert seat.start(view.seat, view.rules, 0) is None
        began = time.perf_counter()
        answer, fault = seat.decide(kind, view, args)
        took = time.perf_counter() - began
        seat.close()
    return answer, fault, seat, server, took


def test_a_good_answer_is_played_and_the_request_is_a_chat_completion(tmp_path: Path) -> None:
    answer, fault, seat, server, _ = _decide(tmp_path, [("first",)])
    assert fault is None and answer == 0
    request = server.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {TOKEN}"
    body = request["body"]
    assert body["model"] == "scripted-7b" and body["temperature"] == 0.2
    assert body["max_tokens"] == 64
    assert body["messages"][0] == {"role": "system", "content": "You are a careful bean farmer."}
    assert "You play Bohnanza" in body["messages"][1]["content"]
    assert body["response_format"]["json_schema"]["schema"]["properties"]["field"]
    [exchange] = seat.exchanges
    assert exchange.replies == ['{"field": 0}'] and exchange.tokens_in == 100
    assert (seat.tokens_in, seat.tokens_out) == (100, 7)


def test_json_in_prose_is_read(tmp_path: Path) -> None:
    answer, fault, *_ = _decide(tmp_path, [("prose",)])
    assert (answer, fault) == (0, None)


def test_an_illegal_answer_is_sent_back_with_the_reason_then_the_next_played(
    tmp_path: Path,
) -> None:
    answer, fault, seat, server, _ = _decide(tmp_path, [("say", '{"field": 9}'), ("first",)])
    assert (answer, fault) == (0, None)
    retry = server.requests[-1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": '{"field": 9}'}
    assert "not allowed: field 9 is not one of" in retry[-1]["content"]
    assert len(seat.exchanges[0].replies) == 2


@pytest.mark.parametrize(
    ("reply", "fault"),
    [('{"field": 9}', "illegal: not allowed: field 9"), ("I like beans", "protocol: no answer")],
)
def test_retries_spent_the_default_is_played_with_a_typed_fault(
    tmp_path: Path, reply: str, fault: str
) -> None:
    answer, said, _, server, _ = _decide(tmp_path, [("say", reply)] * 3, retries=2)
    assert answer is None and said.startswith(fault) and said.endswith("(after 3 replies)")
    assert len(server.requests) == 1 + 3  # the models check, then three replies


@pytest.mark.slow
def test_a_reply_after_the_deadline_is_a_timeout(tmp_path: Path) -> None:
    answer, fault, _, _, took = _decide(tmp_path, [("late", 3.0)])
    assert answer is None and fault.startswith("timeout: no answer within 1 s")
    assert took < 2.0  # cut at the deadline, not when the reply came


def test_429_waits_out_a_retry_after_within_the_deadline(tmp_path: Path) -> None:
    answer, fault, _, server, took = _decide(tmp_path, [("status", 429, 0.1), ("first",)])
    assert (answer, fault) == (0, None) and took >= 0.1 and len(server.requests) == 3


def test_429_whose_retry_after_runs_past_the_deadline_is_a_timeout_at_once(
    tmp_path: Path,
) -> None:
    answer, fault, _, _, took = _decide(tmp_path, [("status", 429, 30)])
    assert answer is None and fault.startswith("timeout: rate limited (HTTP 429)")
    assert took < 0.9


def test_server_errors_are_retried_then_a_protocol_fault(tmp_path: Path) -> None:
    answer, fault, *_ = _decide(tmp_path, [("status", 500, None), ("status", 503, None)])
    assert (answer, fault) == (0, None)
    answer, fault, *_ = _decide(tmp_path, [("status", 500, None)] * 3)
    assert answer is None and fault.startswith("protocol: HTTP status 500")


def test_a_dropped_connection_is_retried_then_a_crash_fault(tmp_path: Path) -> None:
    answer, fault, *_ = _decide(tmp_path, [("drop",), ("first",)])
    assert (answer, fault) == (0, None)
    answer, fault, seat, *_ = _decide(tmp_path, [("drop",)] * 3)
    assert answer is None and fault.startswith("crash:") and seat.connection_faults == 1


def test_an_answer_that_is_no_chat_completion_is_a_protocol_fault(tmp_path: Path) -> None:
    answer, fault, *_ = _decide(tmp_path, [("junk",)])
    assert answer is None and fault == "protocol: the answer is not a chat completion"


def test_a_server_without_structured_output_is_asked_in_prose(tmp_path: Path) -> None:
    answer, fault, _, server, _ = _decide(tmp_path, [("no_schema",), ("no_schema",)])
    assert (answer, fault) == (0, None)
    assert "response_format" not in server.requests[-1]["body"]


def test_the_token_is_never_kept_even_where_the_server_echoes_it(tmp_path: Path) -> None:
    _, fault, seat, *_ = _decide(tmp_path, [("echo",)])
    assert fault is None
    assert TOKEN not in json.dumps([vars(e) for e in seat.exchanges])
    assert "[token]" in seat.exchanges[0].replies[0]


def test_a_server_that_is_down_is_a_one_line_load_error(tmp_path: Path) -> None:
    with chat_server() as server:
        url = server.url
    entry = load_league(_league(tmp_path, url)).bots["llm"]
    with pytest.raises(BotLoadError, match=r"^bot 'llm' does not start: start: the endpoint"):
        preflight(GAME, entry, ruleset("classic", 3), LIMITS)


def test_a_private_address_is_refused_unless_allowed(tmp_path: Path) -> None:
    view, _ = _at("plant")
    with chat_server() as server:
        seat = _seat(tmp_path, server, allow_private=False)
        fault = seat.start(view.seat, view.rules, 0)
    assert fault is not None and fault.startswith("start:") and "127.0.0.1" in fault
    assert server.requests == []


def test_bad_chat_tables_are_one_line_errors(tmp_path: Path) -> None:
    for more, said in (
        ({"model": ""}, "model must name the model"),
        ({"temperature": 3}, "temperature must be a number from 0 to 2"),
        ({"retries": -1}, "retries must be a whole number"),
        ({"system": "../secret.txt"}, "it names a file beside the league file"),
        ({"system": "/etc/passwd"}, "it names a file beside the league file"),
        ({"system": "missing.md"}, "'missing.md': no such file beside the league file"),
        ({"token_env": "HOME"}, None),  # refused where it is played (services.py)
        ({"isolation": "sandbox"}, "a chat bot takes no 'isolation'"),
        ({"decisions": "plant"}, "decisions must be a list"),
    ):
        path = _league(tmp_path, "http://127.0.0.1:9/v1", **more)
        if said is None:
            continue
        with pytest.raises(UsageError, match=said):
            load_league(path)


def test_a_model_asked_some_decisions_only_is_asked_those(tmp_path: Path) -> None:
    view, _ = _at("plant")
    with chat_server() as server:
        seat = _seat(tmp_path, server, decisions=["plant", "propose"])
        assert seat.start(view.seat, view.rules, 0) is None
        assert seat.asks == {"plant", "propose"}
        entry = load_league(_league(tmp_path, server.url, decisions=["harvest"])).bots["llm"]
        with pytest.raises(BotLoadError, match="'harvest' is not a decision of this game"):
            make_seat(GAME, entry, LIMITS)


def test_a_match_with_a_model_that_talks_nonsense_charges_only_its_seat(tmp_path: Path) -> None:
    rules = ruleset("classic", 3)
    with chat_server([("say", "beans!")] * 10_000) as server:
        league = load_league(_league(tmp_path, server.url, retries=0))
        model = make_seat(GAME, league.bots["llm"], LIMITS)
        others = [make_seat(GAME, league.bots[b]) for b in ("planner", "random")]
        result, records = GAME.play(rules, 3, [model, *others])
    assert result.faults[0] > 0 and result.faults[1:] == (0, 0)
    assert all(r[1] == 0 for r in records if r[0] == "fault")
    assert any(r[0] == "forfeit" for r in records) is (result.faults[0] >= LIMITS.max_faults)
    # each exchange kept names the record its decision's fault is
    assert isinstance(model, ChatSeat) and len(model.exchanges) == result.faults[0]
    for exchange in model.exchanges:
        assert records[exchange.before][:3] == ("fault", 0, exchange.kind)
        assert exchange.replies == ["beans!"] and exchange.fault == records[exchange.before][3]


@pytest.mark.slow
def test_a_league_with_a_model_seat_runs_and_records_its_text_version(tmp_path: Path) -> None:
    from bohnarena.run.dispatch import run_league

    with chat_server() as server:
        path = _league(tmp_path, server.url)
        out = tmp_path / "out"
        summary = run_league(path, out, workers=1, progress=False)
    assert summary.complete
    meta = json.loads((out / "run.json").read_text())
    assert meta["text_version"] == TEXT_VERSION and "llm" in meta["bots"]
    assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) > 10


def test_a_spent_time_bank_forfeits_the_match(tmp_path: Path) -> None:
    with chat_server() as server:
        seat = _seat(tmp_path, server)
    assert not seat.forfeits(1)
    seat.spent = LIMITS.match_seconds  # (the exchanges' seconds add up here)
    assert seat.forfeits(1)


def test_each_prompt_tells_the_model_what_happened_since_what_was_said_included(
    tmp_path: Path,
) -> None:
    from bohnarena_bots.trader import TraderBot
    from tests.bohnanza.talking_bots import Talker

    with chat_server() as server:
        model = _seat(tmp_path, server)
        GAME.play(ruleset("classic", 3), 5, [model, Talker(), TraderBot()])
    asked = [r["body"]["messages"][1]["content"] for r in server.requests if "body" in r]
    assert len(asked) > 20 and "Since the match began:" in asked[0]
    assert sum("Since your last decision:" in a for a in asked) > 10
    assert any('  seat 1 says: "turn ' in a for a in asked)
    assert isinstance(model, ChatSeat) and any("says:" in e.prompt for e in model.exchanges)
