"""Trust: a bot's bearer token goes to its service alone and is written
nowhere; a league cannot make bohnarena reach a loopback or private
address without saying so, checked on the address connected to."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from bohnarena.run.dispatch import run_league
from tests.external.http.conftest import league_text, served

pytestmark = pytest.mark.slow  # leagues against services in processes of their own


def bohnarena(*args, env=None):
    """The command line in a process of its own: all that it prints, both streams."""
    return subprocess.run(
        [sys.executable, "-m", "bohnarena", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_token_goes_to_its_service_alone_and_is_written_nowhere(tmp_path, serve):
    tokens = {name: secrets.token_urlsafe(24) for name in ("echo", "note", "away")}
    env = {f"BOHNARENA_TOKEN_{name.upper()}": tokens[name] for name in tokens}
    home = tmp_path / "secrets"  # the organiser's
    home.mkdir()
    (home / "note.token").write_text(tokens["note"] + "\n")
    trap = serve("planner", "--record", str(tmp_path / "trap.jsonl"))
    urls, recs = {}, {}
    tricks = (("echo", "echo", "3"), ("note", "note-token", "4"), ("away", "redirect", "2"))
    for name, trick, on in tricks:
        recs[name] = tmp_path / f"{name}.jsonl"
        urls[name] = serve(
            "planner",
            *("--token-env", f"BOHNARENA_TOKEN_{name.upper()}", "--record", str(recs[name])),
            *("--trick", trick, "--on", on, "--location", trap),
            env={**os.environ, **env},
        )
    path = tmp_path / "l.toml"
    path.write_text(
        league_text(
            {
                "echo": served(urls["echo"], token_env='"BOHNARENA_TOKEN_ECHO"'),
                "note": served(urls["note"], token_file='"note.token"'),  # in the secrets
                "away": served(urls["away"], token_env='"BOHNARENA_TOKEN_AWAY"'),
            },
        )
    )
    out = tmp_path / "out"
    r = bohnarena("run", path, "--out", out, "-j", "1", "--secrets", home, env=env)
    assert r.returncode == 0, r.stderr
    # Sent: every request to each service carried its own token, and only its own.
    for name in tokens:
        seen = records(recs[name])
        assert seen and all(s["authorization"] == f"Bearer {tokens[name]}" for s in seen)
    assert records(tmp_path / "trap.jsonl") == []  # the redirect was not followed
    # Written nowhere: not in any file of the run, not in what it printed.
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {"run.json", "run.log", "league.toml", "report.html"} <= {p.name for p in files}
    for token in tokens.values():
        assert token not in r.stdout + r.stderr
        for p in files:
            assert token.encode() not in p.read_bytes(), p
    # The services did echo it: where they did, it reads [token].
    moves = pq.read_table(out / "moves").to_pylist()
    assert any("[token]" in (m["text"] or "") for m in moves if m["kind"] == "fault")
    assert any("[token]" in (m["note"] or "") for m in moves if m["kind"] == "note")


def test_a_token_that_is_missing_or_refused_is_a_load_error_that_shows_no_token(tmp_path, serve):
    token = secrets.token_urlsafe(24)
    url = serve("planner", "--token-env", "GOOD", env={**os.environ, "GOOD": token})
    path = tmp_path / "l.toml"
    mine = "BOHNARENA_TOKEN_MINE"
    path.write_text(league_text({"k": served(url, token_env=f'"{mine}"'), "p": '"planner"'}))
    missing = bohnarena("run", path, "--out", tmp_path / "out")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert f"the environment variable {mine} (its token_env) is not set" in missing.stderr
    wrong = secrets.token_urlsafe(24)
    refused = bohnarena("run", path, "--out", tmp_path / "out", env={mine: wrong})
    assert refused.returncode == 2, refused.stderr
    assert "bot 'k' does not start: protocol: HTTP status 401" in refused.stderr
    assert wrong not in refused.stderr + refused.stdout and token not in refused.stderr
    (tmp_path / "bad.token").write_text("two words\n")
    path.write_text(league_text({"k": served(url, token_file='"bad.token"'), "p": '"planner"'}))
    bad = bohnarena("run", path, "--out", tmp_path / "out", "--secrets", tmp_path)
    assert bad.returncode == 2 and "does not hold a bearer token" in bad.stderr
    assert "two words" not in bad.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "host, says",
    [
        ("127.0.0.1", "127.0.0.1 is a loopback address"),
        ("localhost", "localhost resolves to 127.0.0.1, a loopback address"),
    ],
)
def test_a_loopback_service_is_refused_without_allow_private(tmp_path, serve, host, says):
    rec = tmp_path / "rec.jsonl"
    url = serve("planner", "--record", str(rec)).replace("127.0.0.1", host)
    path = tmp_path / "l.toml"
    path.write_text(league_text({"near": f'"{url}"', "p": '"planner"'}))
    r = bohnarena("run", path, "--out", tmp_path / "out")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert says in r.stderr and "not reached without allow_private = true" in r.stderr
    assert records(rec) == []  # nothing reached it
    path.write_text(league_text({"near": served(url), "p": '"planner"'}))
    assert bohnarena("run", path, "--out", tmp_path / "out", "-j", "1").returncode == 0


def test_credentials_in_a_url_are_refused_and_not_shown(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text(league_text({"x": '"http://me:hunter2@127.0.0.1:1/"', "p": '"planner"'}))
    r = bohnarena("run", path, "--out", tmp_path / "out")
    assert r.returncode == 2 and "must not hold credentials" in r.stderr
    assert "hunter2" not in r.stderr + r.stdout


def test_the_name_is_resolved_at_each_connection_and_the_address_checked(
    tmp_path, serve, monkeypatch
):
    """The connection goes to the address the name resolved to, checked;
    the name stays the Host header. (The resolver is a stand-in here: it
    says bot.test is 127.0.0.1.)"""
    rec = tmp_path / "rec.jsonl"
    port = serve("planner", "--record", str(rec)).rsplit(":", 1)[1].strip("/")
    asked = tmp_path / "asked"
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        if host == "bot.test":
            with open(asked, "a") as f:  # (the worker is a forked process)
                f.write("x")
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    url = f"http://bot.test:{port}/play"
    path = tmp_path / "l.toml"
    path.write_text(league_text({"named": f'"{url}"', "p": '"planner"', "r": '"random"'}))
    with pytest.raises(Exception, match=r"bot\.test resolves to 127\.0\.0\.1, a loopback address"):
        run_league(path, tmp_path / "out", workers=1, progress=False)
    assert records(rec) == []
    path.write_text(league_text({"named": served(url), "p": '"planner"', "r": '"random"'}))
    s = run_league(path, tmp_path / "out", workers=1, progress=False)
    assert s.complete
    seen = records(rec)
    assert {x["host"] for x in seen} == {f"bot.test:{port}"}
    assert {x["path"] for x in seen} == {"/play"}
    # Resolved afresh for every connection: the refused run's check, this
    # run's check, and one for each of its three matches.
    assert len(asked.read_text()) >= 1 + 1 + 3
