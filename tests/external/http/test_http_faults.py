"""A service that misbehaves faults itself only, typed as any bot's fault:
slow (timeout), a non-2xx status or a body that is not the protocol
(protocol), an oversized body (output), a connection dropped mid-answer or
refused (crash); a redirect is not followed; a service down when the run
starts is a load error, one down during the run costs its own matches,
quickly. The league plays on and exits as for any bot fault."""

from __future__ import annotations

import json
import socket
import time

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.external.http.conftest import league_text, served

#: A decision limit the tricks' slow answers (3 s) overrun, and a message cap
#: their huge answers (2 MB, or endless) overrun.
LIMITS = "[limits]\ndecision_seconds = 0.5\noutput_kb = 64\n"


def faults_of(out, bot):
    """(decision, text) of every fault of ``bot``, and the fault count of every other bot."""
    seats = {r["match_id"]: r["seats"] for r in pq.read_table(out / "matches").to_pylist()}
    mine, others = [], {}
    for r in pq.read_table(out / "moves").to_pylist():
        if r["kind"] != "fault":
            continue
        name = seats[r["match_id"]][r["seat"]]
        if name == bot:
            mine.append((r["decision"], r["text"]))
        else:
            others[name] = others.get(name, 0) + 1
    return mine, others


def forfeits_of(out, bot):
    seats = {r["match_id"]: r["seats"] for r in pq.read_table(out / "matches").to_pylist()}
    return [
        r["match_id"]
        for r in pq.read_table(out / "moves").to_pylist()
        if r["kind"] == "forfeit" and seats[r["match_id"]][r["seat"]] == bot
    ]


def run_cli(*args):
    return CliRunner().invoke(cli, ["run", *map(str, args), "-j", "1", "--no-report"])


@pytest.mark.parametrize(
    "trick, kind, says",
    [
        pytest.param("slow", "timeout", "no answer within 0.5 s", marks=pytest.mark.slow),
        ("status500", "protocol", "HTTP status 500"),
        pytest.param("junk", "protocol", "not JSON", marks=pytest.mark.slow),
        pytest.param("nothttp", "protocol", "not HTTP/1.1 or 1.0", marks=pytest.mark.slow),
        ("http2", "protocol", "not HTTP/1.1 or 1.0: an answer in HTTP/2.0"),
        pytest.param("huge", "output", "an answer over 64 KB", marks=pytest.mark.slow),
        pytest.param("flood", "output", "an answer over 64 KB", marks=pytest.mark.slow),
        ("drop", "crash", "closed the connection before its whole answer"),
        pytest.param("redirect", "protocol", "redirects are not followed", marks=pytest.mark.slow),
    ],
)
def test_a_misbehaving_service_faults_itself_only(tmp_path, serve, trick, kind, says):
    record = tmp_path / "trap.jsonl"
    trap = serve("planner", "--record", str(record))  # where a redirect points
    url = serve("planner", "--trick", trick, "--on", "2,5", "--location", trap)
    path = tmp_path / "l.toml"
    path.write_text(
        league_text(
            {"tricky": served(url), "planner": '"planner"', "random": '"random"'}, extra=LIMITS
        )
    )
    r = run_cli(path, "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    out = tmp_path / "out"
    mine, others = faults_of(out, "tricky")
    assert others == {}  # nobody else is charged
    assert len(mine) == 6, mine  # decides 2 and 5 of each of its 3 matches, and no more
    assert all(text.startswith(f"{kind}: ") and says in text for _, text in mine), mine
    assert not forfeits_of(out, "tricky")  # a fault does not end a service as it ends a process
    assert len(pq.read_table(out / "matches")) == 3
    assert not record.exists()  # the redirect led nowhere


def test_a_service_down_when_the_run_starts_is_a_load_error(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path / "l.toml"
    path.write_text(league_text({"gone": served(f"http://127.0.0.1:{port}/"), "p": '"planner"'}))
    r = run_cli(path, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and "bot 'gone' does not start" in r.output
    assert "cannot connect to 127.0.0.1" in r.output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_service_down_when_a_run_resumes_is_a_load_error_too(tmp_path, serve):
    # a service has no code to hash: a run that knows it still checks it answers
    url = serve("planner")
    path = tmp_path / "l.toml"
    path.write_text(league_text({"gone": served(url), "p": '"planner"'}))
    assert run_cli(path, "--out", tmp_path / "out").exit_code == 0
    serve.stop(url)
    r = run_cli(path, "--out", tmp_path / "out")
    assert r.exit_code == 2 and "bot 'gone' does not start" in r.output, r.output


@pytest.mark.slow
def test_a_service_that_goes_down_mid_run_forfeits_its_own_matches_quickly(tmp_path, serve):
    # Up for the run's check (start), its first match's start and 20 decisions, then gone.
    url = serve("planner", "--die-after", "22")
    path = tmp_path / "l.toml"
    path.write_text(
        league_text({"down": served(url), "planner": '"planner"', "random": '"random"'}, deals=2)
    )
    r = run_cli(path, "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    out = tmp_path / "out"
    mine, others = faults_of(out, "down")
    assert others == {}
    assert set(forfeits_of(out, "down")) == set(range(6))  # every match of its: forfeited
    by_match = {}
    for _, text in mine:
        assert text.startswith("crash: "), text
    rows = pq.read_table(out / "matches").to_pylist()
    for row in rows:
        seat = row["seats"].index("down")
        by_match[row["match_id"]] = row["faults"][seat]
        assert row["ranks"][seat] == 3  # ranked last
    # The first match: three connection faults (the dropped answer, then
    # refused connections); every later one: its start, refused.
    assert by_match[0] == 3 and all(by_match[m] == 1 for m in range(1, 6)), by_match
    assert json.loads((out / "errors.json").read_text()) == []


def test_a_timeout_says_the_seconds_the_seat_gave_not_what_was_left_when_it_began():
    from bohnarena.external.http.transport import Exchange

    clock = Exchange()
    clock.begin(time.perf_counter() + 0.4994, 1.0, allowed=0.5)  # a few µs went by
    assert clock.late == "no answer within 0.5 s"
