"""Table talk (issue 49 part 5): an offer's public message is checked
(bounded, control characters removed), logged as a ``said`` record that
every seat sees, replayed, written to and read from the move log, sent
over the wire both ways; a bot that says nothing plays as before."""

from dataclasses import replace
from pathlib import Path

import pytest

from bohnarena.bohnanza import Bot, Offer, Proposal, play_match, ruleset, wire
from bohnarena.bohnanza.decisions import DECISIONS
from bohnarena.bohnanza.game import GAME
from bohnarena.bohnanza.records import COLUMNS, LAYOUT, public_history
from bohnarena.bohnanza.replay import verify
from bohnarena.bohnanza.snapshot import decode, encode
from bohnarena.core.botapi import SAY_CHARS
from bohnarena.core.errors import IllegalAnswer
from bohnarena.core.untrusted import talk
from bohnarena.store.logbook import moves_table, records_of
from bohnarena_bots.trader import TraderBot
from tests.bohnanza.talking_bots import HOSTILE, Echo, Talker

from .helpers import V, cards, rig, scripted

RULES = ruleset("classic", 4)
SEED = 11


def silent(records):
    return [r for r in records if r[0] != "said"]


def test_a_message_is_cut_and_cleaned_once_and_for_all():
    said = talk(HOSTILE, SAY_CHARS)
    assert len(said) == SAY_CHARS and said.isprintable()
    assert "\x1b" not in said and "\n" not in said and said.startswith("<b>deal?</b>")
    assert talk(said, SAY_CHARS) == said  # canonical: a logged message replays as said
    assert talk(" \t\u202e \x00", SAY_CHARS) == ""
    assert talk("\x00" * 10**7 + "late", SAY_CHARS) == ""  # (not read to its end)


def test_a_message_is_checked_with_its_offer():
    m = rig(hands={0: cards("red", "garden")})
    t, check = m.table, DECISIONS["propose"].check
    assert check(t, 0, Offer((0,), (), 1, "hi\x07 there\n")) == Offer((0,), (), 1, "hi there")
    assert check(t, 0, Offer((0,), (), 1, "x" * 999)).say == "x" * SAY_CHARS
    with pytest.raises(IllegalAnswer, match="say must be a str"):
        check(t, 0, Offer((0,), (), 1, b"hi"))  # type: ignore[arg-type]
    assert check(t, 0, Offer((0,), (), 1)) == Offer((0,), (), 1)


def test_the_offered_seat_hears_the_message_and_every_seat_sees_it():
    heard = []

    def respond(view, offer):
        heard.append(offer.say)

    m = rig(
        bots=[
            scripted(propose=lambda v: Offer((0,), (V["chili"],), 1, "a <i>fine</i> Red")),
            scripted(respond=respond),
            Bot(),
            Bot(),
        ],
        hands={0: cards("red", "garden"), 1: cards("chili")},
    )
    m.play_turn()
    assert heard and set(heard) == {"a <i>fine</i> Red"}
    said = [r for r in m.records if r[0] == "said"]
    assert said and said[0] == ("said", 0, "a <i>fine</i> Red")
    at = m.records.index(said[0])
    assert m.records[at - 1][:2] == ("propose", 0) and m.records[at + 1][:2] == ("offered", 0)
    for seat in range(4):  # public: the same to every seat
        assert ("said", 0, "a <i>fine</i> Red") in public_history(m.records, seat)


def test_a_bot_that_talks_plays_the_moves_of_one_that_does_not():
    result, quiet = play_match(RULES, SEED, [TraderBot(), TraderBot(), Bot(), TraderBot()])
    talked, records = play_match(RULES, SEED, [Talker(), TraderBot(), Bot(), Echo()])
    assert "said" not in {r[0] for r in quiet}
    assert talked == result and silent(records) == quiet
    said = [r for r in records if r[0] == "said"]
    assert {r[1] for r in said} == {0, 3}
    assert all(len(r[2]) <= SAY_CHARS and r[2].isprintable() for r in said)
    assert any(r[2].startswith("you said turn") for r in said)  # Echo heard Talker
    assert verify(RULES, SEED, records) == (result, None)


def test_a_logged_message_replays_and_one_no_check_allows_diverges():
    result, records = play_match(RULES, SEED, [Talker(), TraderBot(), Bot(), TraderBot()])
    at = next(i for i, r in enumerate(records) if r[0] == "said")
    # the message is the seat's answer, as the log holds it
    other = [*records[:at], ("said", 0, "something else"), *records[at + 1 :]]
    assert verify(RULES, SEED, other) == (result, None)
    for bad in ("x" * (SAY_CHARS + 1), "line\nbreak", " padded"):
        forged = [*records[:at], ("said", 0, bad), *records[at + 1 :]]
        _, problem = verify(RULES, SEED, forged)
        assert problem is not None and f"{at}" in problem
    # a message without an offer
    none = next(i for i, r in enumerate(records) if r[:3] == ("propose", 0, 0))
    forged = [*records[: none + 1], ("said", 0, "hi"), *records[none + 1 :]]
    assert verify(RULES, SEED, forged)[1] is not None


def test_a_message_round_trips_through_the_move_log():
    _, records = play_match(RULES, SEED, [Talker(), TraderBot(), Bot(), Echo()])
    table = moves_table([(7, records)], LAYOUT, COLUMNS)
    assert records_of(table, LAYOUT) == records
    texts = [
        t
        for k, t in zip(table["kind"].to_pylist(), table["text"].to_pylist(), strict=True)
        if k == "said"
    ]
    assert texts and all(texts)


def test_the_transcript_shows_a_message_as_one_escaped_line():
    _, records = play_match(RULES, SEED, [Talker(), TraderBot(), Bot(), TraderBot()])
    lines = [x for x in GAME.transcript(records, ["a", "b", "c", "d"]) if "says:" in x]
    assert lines and all("\x1b" not in x and "\n" not in x for x in lines)
    assert lines[0].startswith('  seat 0 (a) says: "turn 1: <b>deal?</b>')


def test_a_message_round_trips_through_the_wire_and_is_absent_when_none():
    offer = Offer((0, -1), (3,), None, "deal?")
    assert wire.answer_from_json("propose", wire.answer_json(offer)) == offer
    assert "say" not in wire.answer_json(replace(offer, say=""))
    assert wire.answer_from_json("offer", {"give": [0], "say": None}) == Offer((0,), ())
    p = Proposal(1, None, (2,), (3,), "<b>x</b>")
    assert wire.args_from_json("respond", wire.args_json("respond", None, (p,))) == (p,)
    assert "say" not in wire.proposal_json(replace(p, say=""))
    assert decode(encode((offer, p))) == (offer, p)  # a state's frames, sent to a searcher


@pytest.mark.slow
def test_a_bot_out_of_process_hears_and_talks_as_in_process():
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.remote import remote_seat

    spec = f"{Path(__file__).parent / 'talking_bots.py'}"
    alone = play_match(RULES, SEED, [Talker(), TraderBot(), Bot(), Echo()])
    seats = [
        remote_seat("bohnanza", BotEntry("t", spec=f"{spec}:Talker", isolation="process")),
        TraderBot(),
        Bot(),
        remote_seat("bohnanza", BotEntry("e", spec=f"{spec}:Echo", isolation="process")),
    ]
    assert play_match(RULES, SEED, seats) == alone


class NotingTalker(Talker):
    def propose(self, view):  # type: ignore[no-untyped-def]
        self.note("my reasons")
        return super().propose(view)


def test_a_message_and_a_note_on_one_answer_replay_in_their_order():
    result, records = play_match(RULES, SEED, [NotingTalker(), TraderBot(), Bot(), TraderBot()])
    at = next(i for i, r in enumerate(records) if r[0] == "said")
    assert [r[0] for r in records[at - 2 : at + 2]] == ["propose", "note", "said", "offered"]
    assert verify(RULES, SEED, records) == (result, None)
    # the note is the log's alone: no other seat sees it, every seat the message
    assert records[at - 1] not in public_history(records, 1)
    assert records[at] in public_history(records, 1)
