"""A bot out of process is told at the end what one in process is: the
coins, ranks and winners, and the turns played and each seat's faults
(docs/writing-a-bot.md, ``end(result)``)."""

import json
from functools import partial
from pathlib import Path

from bohnarena.bohnanza import play_match, ruleset
from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits

from .ending_bots import RaisesOnPlanting, ReportsItsEnd

SPEC = f"{Path(__file__).parent / 'ending_bots.py'}:ReportsItsEnd"


def test_a_process_bot_ends_with_the_turns_and_faults_of_the_match(tmp_path):
    log = tmp_path / "bot.log"
    seat = remote_seat("bohnanza", BotEntry("r", SPEC, None, "process"), Limits(), log)
    # The engine ends a bot's process as soon as it sends "end": here the
    # process may finish first (it exits when its input closes).
    seat.endpoint.close = partial(seat.endpoint.close, settle=30)
    try:
        result, _ = play_match(
            ruleset("classic", 3), 7, [seat, RaisesOnPlanting(), ReportsItsEnd()]
        )
    finally:
        seat.close()
    assert result.turns > 0 and result.faults[1] > 0
    told = json.loads(log.read_text().strip().splitlines()[-1])
    assert told == {
        "turns": result.turns,
        "faults": list(result.faults),
        "coins": list(result.coins),
    }
