"""A person at a `play` table (docs/text-seats.md): a whole match played
through a pseudo-terminal; a bad answer explained and asked again; the
deadline (off by default) and the input's end as faults of that seat."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.bohnanza.rules import ruleset
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.textlayer import TEXT
from bohnarena.cli import cli
from bohnarena.core.faults import CRASH, TIMEOUT
from bohnarena.referee.textseat import HumanSeat, LineReader

ASKED = re.compile(r"Your answer \(an empty line plays (.*)\):\r?\n")


def _first_legal(screen: str) -> str:
    """The first legal answer listed in the last prompt on ``screen``."""
    listed = screen[screen.rindex("Legal answers") :].splitlines()[1]
    return listed.strip()


@pytest.mark.slow
def test_a_person_plays_a_whole_match_through_a_pseudo_terminal(tmp_path: Path) -> None:
    page = tmp_path / "match.html"
    main, terminal = os.openpty()
    command = ["play", "--human", "1", "--seed", "3", "--html", str(page), "random", "trader"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bohnarena", *command],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        close_fds=True,
    )
    os.close(terminal)
    screen, read_to, answers, refused = "", 0, 0, False
    try:
        while True:
            ready, _, _ = select.select([main], [], [], 60)
            assert ready, screen[-2000:]
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the other end closed
                break
            if not chunk:
                break
            screen += chunk.decode("utf-8", "replace")
            while m := ASKED.search(screen, read_to):
                read_to = m.end()
                if not refused:  # once: a reply that is no answer is explained, asked again
                    os.write(main, b"the green one, please\n")
                    refused = True
                    continue
                # the first legal answer's text, or (every third) the default's empty line
                reply = "" if answers % 3 == 2 else _first_legal(screen[: m.start()])
                os.write(main, reply.encode() + b"\n")
                answers += 1
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    assert proc.wait(30) == 0, screen[-2000:]
    assert "That is not an answer: no answer found in 'the green one, please'" in screen
    assert "You play Bohnanza (classic edition) at seat 1 of 3" in screen
    assert answers > 20 and "Winner: seat" in screen
    assert "FAULT" not in screen  # every answer the person gave was played
    assert "seat 1 (human) plants" in screen and page.stat().st_size > 0
    # told what it saw happen, the other hands never (the transcript
    # printed once the match is over shows them)
    during = screen[: screen.index(", seed 3\r\n")]
    assert "seat 0 (random) is dealt ?, ?, ?, ?, ?" in during and "draws ?" in during
    assert re.search(r"seat [02] \(\w+\) is dealt [^?]", during) is None
    assert re.search(r"seat [02] \(\w+\) is dealt [^?]", screen)  # (after it: shown)


def _pipe_seat(seconds: float | None = None) -> tuple[HumanSeat, int, list[str]]:
    out: list[str] = []
    read, write = os.pipe()
    seat = HumanSeat(TEXT, DECISION_METHODS, out.append, LineReader(read), seconds)
    return seat, write, out


def _stopped_at_plant() -> tuple[Any, tuple[Any, ...]]:
    state = State(ruleset("classic", 4), 1)
    state.start()
    while state.pending is not None and state.pending[1] != "plant":
        state.apply(state.legal_answers()[0])
    assert state.pending is not None
    seat, _, args = state.pending
    return state.view(seat), args


def test_a_bad_answer_is_explained_and_asked_again_then_played() -> None:
    seat, write, out = _pipe_seat()
    view, args = _stopped_at_plant()
    seat.start(view.seat, view.rules, 0)
    os.write(write, b'{"field": 7}\n{"FIELD": 1}\n')
    assert seat.decide("plant", view, args) == (1, None)
    assert any("That is not an answer: not allowed: field 7 is not one of" in o for o in out)
    [exchange] = seat.exchanges
    assert exchange.replies == ['{"field": 7}', '{"FIELD": 1}'] and exchange.fault is None


def test_an_empty_line_plays_the_default() -> None:
    seat, write, _ = _pipe_seat()
    view, args = _stopped_at_plant()
    seat.start(view.seat, view.rules, 0)
    os.write(write, b"\n")
    assert seat.decide("plant", view, args) == (view.fields_for(args[0])[0], None)


def test_no_answer_by_the_deadline_is_a_timeout_and_the_input_s_end_a_forfeit() -> None:
    seat, write, out = _pipe_seat(seconds=0.05)
    view, args = _stopped_at_plant()
    seat.start(view.seat, view.rules, 0)
    answer, fault = seat.decide("plant", view, args)
    assert answer is None and fault is not None and fault.startswith(TIMEOUT)
    assert not seat.forfeits(1) and "No answer within 0.05 s" in out[-1]
    os.close(write)
    answer, fault = seat.decide("plant", view, args)
    assert answer is None and fault == f"{CRASH}: the input ended" and seat.forfeits(2)


def test_bad_human_seats_are_one_line_usage_errors() -> None:
    for args, said in (
        (["--human", "3", "random", "random"], "--human 3: the table has seats 0 to 2"),
        (["--human", "0", "--human", "0", "random"], "a seat is given twice"),
        (["--game", "wuerfel", "--human", "0", "random"], "has no text seats"),
        (["--human", "0", "--human-seconds", "0", "random", "random"], "must be above 0"),
    ):
        r = CliRunner().invoke(cli, ["play", *args])
        assert r.exit_code == 2 and said in r.output, r.output
        assert "Traceback" not in r.output
