"""The dice game's bots note their answers as the card game's do (logged
after the answer, hidden from the other seats, replayed, the same out of
process), and their views tell the time bank, the match id and the history
as named records."""

from __future__ import annotations

from pathlib import Path

import pytest

from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits
from bohnarena.referee.seats import BotSeat
from bohnarena.wuerfel.game import _REPLAYER
from bohnarena.wuerfel.match import Match
from bohnarena.wuerfel.rules import ruleset
from bohnarena.wuerfel.table import DECISIONS
from bohnarena_bots.wuerfel_bots import RandomDiceBot

from .noting_dice_bots import DiceSpy, NotingDiceBot

RULES = ruleset("standard", 3)
SPEC = f"{Path(__file__).parent / 'noting_dice_bots.py'}:NotingDiceBot"


def test_notes_follow_their_answers_stay_hidden_and_are_replayed() -> None:
    NotingDiceBot.seen, DiceSpy.seen = [], []
    match = Match(RULES, 4, [NotingDiceBot(), DiceSpy(), RandomDiceBot()])
    result = match.play()
    records = match.records
    notes = [(i, r) for i, r in enumerate(records) if r[0] == "note"]
    assert notes and all(r[1] == 0 and r[2].startswith("keeping") for _, r in notes)
    assert all(records[i - 1][:2] == ("keep", 0) for i, _ in notes)
    assert DiceSpy.seen == []  # no other seat saw a note
    assert NotingDiceBot.seen and all(s == (None, None, True) for s in NotingDiceBot.seen)
    lines = list(_REPLAYER.replay_lines(RULES, 4, records, ["noter", "spy", "random"]))
    assert any("seat 0 (noter) notes: keeping" in line for line in lines)
    assert _REPLAYER.verify(RULES, 4, records) == (result, None)


def test_out_of_process_the_notes_and_the_view_are_the_same() -> None:
    noter = BotSeat(NotingDiceBot(), DECISIONS, limits=Limits())  # a time bank, as out of it
    noter.match_id = 17
    home = Match(RULES, 4, [noter, DiceSpy(), RandomDiceBot()])
    home.play()
    assert any(r[0] == "note" and r[2].endswith("in match 17, bank True") for r in home.records)
    seat = remote_seat("wuerfel", BotEntry("noter", SPEC, None, "process"), Limits())
    seat.match_id = 17
    try:
        away = Match(RULES, 4, [seat, DiceSpy(), RandomDiceBot()])
        result = away.play()
    finally:
        seat.close()
    assert not any(result.faults)
    assert away.records == home.records  # the notes (the match id and bank in them) included


def test_in_a_league_the_view_tells_the_time_bank_and_the_match_id() -> None:
    from bohnarena.core.plugins import load_bot
    from bohnarena.run.seating import make_seat
    from bohnarena.wuerfel.bot import Bot
    from bohnarena.wuerfel.game import Wuerfel

    entry = BotEntry("noter", SPEC, isolation="inprocess")
    seat = make_seat(Wuerfel(), entry, Limits(match_seconds=30.0))
    seat.match_id = 9
    seen = load_bot(SPEC, Bot).seen  # (the class as loaded from its spec)
    seen.clear()
    Match(RULES, 4, [seat, DiceSpy(), RandomDiceBot()]).play()
    times = [s[0] for s in seen]
    assert times and all(0 < t <= 30.0 for t in times) and times == sorted(times, reverse=True)
    assert {s[1] for s in seen} == {9}


def test_both_games_matches_refuse_a_seat_too_many_or_too_few() -> None:
    from bohnarena.bohnanza import Match as CardMatch
    from bohnarena.bohnanza import ruleset as card_ruleset
    from bohnarena_bots.random_bot import RandomBot

    for players in (2, 4):
        with pytest.raises(ValueError, match=f"{players} seats for a 3-player rule set"):
            Match(RULES, 1, [RandomDiceBot() for _ in range(players)])
        with pytest.raises(ValueError, match=f"{players} seats for a 3-player rule set"):
            CardMatch(card_ruleset("classic", 3), 1, [RandomBot() for _ in range(players)])
