"""Notes on answers (issue 16, part 6): logged after the answer, capped,
never shown to other seats, the same in process and out, replayed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.bohnanza.replay import REPLAYER, verify
from bohnarena.core.botapi import NOTE_CHARS
from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits

from .noting_bots import Forger, LongNoter, NotingBot, Spy

RULES = ruleset("classic", 4)
SPEC = f"{Path(__file__).parent / 'noting_bots.py'}:NotingBot"
RECORDER = Path(__file__).parents[1] / "external" / "recorder.py"


def others() -> list[Bot]:
    return [Spy(), Spy(), Bot()]


def notes(records: list[tuple[Any, ...]]) -> list[tuple[int, tuple[Any, ...]]]:
    return [(i, r) for i, r in enumerate(records) if r[0] == "note"]


def test_notes_follow_their_answers_are_capped_and_stay_hidden() -> None:
    Spy.seen = []
    result, records = play_match(RULES, 3, [NotingBot(), *others()])
    found = notes(records)
    assert found and all(r[1] == 0 for _, r in found)
    for i, rec in found:
        before = records[i - 1]
        assert before[1] == 0 and before[0] in ("plant", "anytime", "respond")
        assert len(rec[2]) <= NOTE_CHARS
    assert any(len(r[2]) == NOTE_CHARS for _, r in found)  # a long one, cut
    assert any(r[2].startswith("offer by seat") for _, r in found)
    assert not any(r[2] == "first thought" for _, r in found)
    assert any(r[2].startswith("window") for _, r in found)
    assert Spy.seen == []  # no other seat ever saw a note
    assert verify(RULES, 3, records) == (result, None)  # the log replays, notes and all
    lines = list(REPLAYER.replay_lines(RULES, 3, records, ["noter", "a", "b", "c"]))
    assert any("seat 0 (noter) notes: planting" in line for line in lines)
    seat1 = list(REPLAYER.replay_lines(RULES, 3, records, ["n", "a", "b", "c"], seat=1))
    assert not any("notes:" in line for line in seat1)


def test_no_notes_no_records() -> None:
    _, records = play_match(RULES, 3, [Bot(), *others()])
    assert notes(records) == []


@pytest.mark.slow
def test_notes_out_of_process_are_the_same_records() -> None:
    """bohnarena's host (framed, windows paired with the next decision) and a
    command bot (plain JSON lines, "note" in its answers) log what the same
    bot logs in process."""
    _, inprocess = play_match(RULES, 3, [NotingBot(), *others()])
    entries = (
        BotEntry("host", spec=SPEC, isolation="process"),
        BotEntry(
            "cmd", command=(sys.executable, str(RECORDER), "/dev/null", SPEC), isolation="process"
        ),
    )
    for entry in entries:
        seat = remote_seat("bohnanza", entry, Limits())
        try:
            result, records = play_match(RULES, 3, [seat, *others()])
        finally:
            seat.close()
        assert result.faults == (0, 0, 0, 0)
        assert records == inprocess, entry.name


def test_a_bots_text_cannot_forge_lines_or_note_a_void_answer() -> None:
    """Notes and the messages of what a bot raises are stored escaped: no
    line break, terminal escape, bidirectional control or lone surrogate
    reaches the log or a transcript; a note on an answer the referee voids
    is dropped (out of process it never arrives)."""
    result, records = play_match(RULES, 3, [Forger(), *others()])
    texts = [r[2] for r in records if r[0] == "note"] + [r[3] for r in records if r[0] == "fault"]
    assert result.faults[0] > 0 and texts
    assert all(t.isprintable() and "\\n" in t and "\\x1b" in t for t in texts)
    assert all(t.encode("utf-8") for t in texts)  # no lone surrogate left
    assert "void" not in texts
    lines = list(REPLAYER.replay_lines(RULES, 3, records, ["forger", "a", "b", "c"]))
    assert not any("seat 1 (trader) harvests field 0" in line.lstrip("\n")[:40] for line in lines)
    assert all(line.lstrip("\n").isprintable() for line in lines)
    assert verify(RULES, 3, records) == (result, None)
    _, records = play_match(RULES, 3, [LongNoter(), *others()])
    long = {r[2] for r in records if r[0] == "note"}
    assert long == {"y" * NOTE_CHARS}  # written past note()'s cut: cut by the referee
