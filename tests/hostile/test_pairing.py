"""A harvest window and the decision after it go to a bot out of process in
one round trip (Referee.run); the match must be the same as when they
are asked one by one, whatever the bot answers."""

from pathlib import Path

import pytest

from bohnarena.bohnanza import play_match, ruleset
from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import RemoteSeat, remote_seat
from bohnarena_bots.planner import PlannerBot
from tests.hostile.pairing_bots import Unruly

pytestmark = pytest.mark.slow  # every test here plays many matches out of process

SPEC = f"{Path(__file__).parent / 'pairing_bots.py'}:Unruly"


@pytest.mark.parametrize("seed", [3, 4])
def test_paired_asks_play_the_same_match_as_single_ones(seed, monkeypatch):
    rules = ruleset("classic", 4)
    alone = play_match(rules, seed, [Unruly(), PlannerBot(), Unruly(), PlannerBot()])
    pairs = {"asked": 0, "answered": 0}
    decide_pair = RemoteSeat.decide_pair

    def counted(self, first, then, view, args):
        answer, second = decide_pair(self, first, then, view, args)
        pairs["asked"] += 1
        pairs["answered"] += second is not None
        return answer, second

    monkeypatch.setattr(RemoteSeat, "decide_pair", counted)
    seats = [
        remote_seat("bohnanza", BotEntry("u", spec=SPEC, isolation="process")),
        PlannerBot(),
        remote_seat("bohnanza", BotEntry("u", spec=SPEC, isolation="process")),
        PlannerBot(),
    ]
    assert play_match(rules, seed, seats) == alone
    records = alone[1]
    kinds = {r[2] for r in records if r[0] == "fault"}
    assert kinds >= {"anytime", "offer", "respond"}  # every way a pair can go wrong
    assert pairs["answered"] > 100 and pairs["asked"] > pairs["answered"]
