"""`bohnarena play` seats a language model from the command line
(``chat:URL?model=NAME&...``, docs/text-seats.md): played against the
scripted chat-completions server on 127.0.0.1; a bad spec, a token in it,
a refused address or an endpoint that is down is one line, exit 2."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli

from .chat_server import chat_server

pytest.importorskip("httpcore", reason="the http extra: pip install 'bohnarena[http]'")

TOKEN = "sk-scripted-play-0123456789"


def _play(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["play", "-s", "3", *args], env=env)
    return r.exit_code, r.output


def test_play_seats_a_model_given_on_the_command_line() -> None:
    with chat_server() as server:
        spec = f"chat:{server.url}?model=scripted-7b&temperature=0.2&max_tokens=64&retries=1"
        code, out = _play(spec, "planner", "trader", env={"BOHNARENA_TOKEN": TOKEN})
    assert code == 0, out
    asked = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    assert len(asked) > 10
    body = asked[0]["body"]
    assert body["model"] == "scripted-7b" and body["temperature"] == 0.2
    assert body["max_tokens"] == 64
    assert asked[0]["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert "seat 0 (scripted-7b) plants" in out and "FAULT" not in out
    assert (
        f"seat 0 (scripted-7b): {len(asked)} decisions asked, {100 * len(asked)} tokens in" in out
    )
    assert TOKEN not in out


def test_a_model_may_be_asked_some_decisions_only_and_told_its_system_prompt(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompt.md").write_text("Trade a lot.")
    with chat_server() as server:
        spec = f"chat:{server.url}?model=m&decisions=propose,respond&system=prompt.md"
        code, out = _play("-q", "planner", spec, "random")
    assert code == 0, out
    asked = [r["body"] for r in server.requests if "body" in r]
    assert asked and all(
        b["response_format"]["json_schema"]["name"] in ("propose", "respond") for b in asked
    )
    assert asked[0]["messages"][0] == {"role": "system", "content": "Trade a lot."}
    assert "Authorization" not in server.requests[-1]["headers"]  # no token: none sent


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("", "name the model the endpoint serves"),
        ("?model=m&token=sk-secret", "a token is never given on the command line"),
        ("?model=m&api_key=sk-secret", "a token is never given on the command line"),
        ("?model=m&temperature=hot", "temperature must be a number"),
        ("?model=m&temperature=9", "temperature must be a number from 0 to 2"),
        ("?model=m&structured=maybe", "structured must be true or false"),
        ("?model=m&colour=red", "a chat bot takes no 'colour'"),
        ("?model=m&model=n", "model is given twice"),
        ("?model=m&token_env=HOME", "token_env 'HOME' is refused"),
        ("?model=m&system=/etc/passwd", "system '/etc/passwd' is refused"),
    ],
)
def test_a_bad_model_spec_is_one_line_and_no_token_is_ever_shown(query: str, said: str) -> None:
    code, out = _play(f"chat:http://127.0.0.1:9/v1{query}", "planner", "random")
    assert code == 2 and said in out and len(out.strip().splitlines()) == 1, out
    assert "sk-secret" not in out


def test_a_private_address_is_refused_when_the_spec_says_so() -> None:
    with chat_server() as server:
        code, out = _play(f"chat:{server.url}?model=m&allow_private=false", "planner", "random")
    assert code == 2 and len(out.strip().splitlines()) == 1, out
    assert "does not start" in out and "private" in out
    assert not [r for r in server.requests if r["path"].endswith("/chat/completions")]


def test_an_endpoint_that_is_down_is_a_one_line_load_error() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out = _play(f"chat:http://127.0.0.1:{port}/v1?model=m", "planner", "random")
    assert code == 2 and "does not start" in out and len(out.strip().splitlines()) == 1, out


def test_model_seconds_must_be_above_zero() -> None:
    code, out = _play("--model-seconds", "0", "planner", "random", "trader")
    assert code == 2 and "--model-seconds must be above 0" in out
