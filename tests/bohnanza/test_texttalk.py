"""The card game in words (docs/text-seats.md), issue 49's last parts: a
seat that plays in words is told what it saw happen since its last
decision (its view only), what other seats said included; it may say
something with an offer itself."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bohnarena.bohnanza import Bot, Offer, ruleset
from bohnarena.bohnanza.game import GAME
from bohnarena.bohnanza.textlayer import TEXT
from bohnarena.core.botapi import SAY_CHARS
from bohnarena.core.textplay import Unparsed
from bohnarena.referee.textseat import Exchange, TextSeat
from bohnarena_bots.trader import TraderBot
from tests.bohnanza.talking_bots import Talker

from .helpers import V, cards, rig, scripted


class Told(TextSeat):
    """A seat in words that plays each decision's default, keeping its prompts."""

    def __init__(self, decisions: tuple[str, ...] = GAME.bot_base.DECISIONS) -> None:
        super().__init__(TEXT, decisions)
        self.prompts: list[str] = []

    def answer(
        self, exchange: Exchange, prompt: Any, kind: str, view: Any, args: tuple[Any, ...]
    ) -> tuple[Any, str | None]:
        self.prompts.append(prompt.text)
        return self.parse(exchange, kind, view, args, prompt.default), None


def _offer_once(offer: Offer) -> Any:
    made: list[int] = []

    def propose(view: Any) -> Offer | None:
        if made:
            return None
        made.append(1)
        return offer

    return propose


def test_a_seat_is_told_what_happened_since_with_what_was_said() -> None:
    told = Told(("respond",))
    offer = Offer((0,), (V["chili"],), 1, "a fine\tRed,\x1b[2J <b>cheap</b>")
    m = rig(
        bots=[scripted(propose=_offer_once(offer)), told, Bot(), Bot()],
        hands={0: cards("red", "garden"), 1: cards("chili")},
        top=cards("soy", "blue", "stink", "stink", "stink"),
    )
    m.play_turn()
    [prompt] = told.prompts
    told_lines = prompt[: prompt.index("\n\nTurn 1:")].splitlines()
    assert told_lines == [
        "Since the match began:",
        "  seat 0 plants Red from hand in field 0",
        "  seat 0 reveals Soy",
        "  seat 0 reveals Blue",
        '  seat 0 says: "a fine Red,[2J <b>cheap</b>"',  # (the escape's ESC removed)
        "  seat 0 offers Garden for Chili to seat 1 (you)",
    ]
    assert 'Offer: seat 0 offers Garden for Chili, to you, saying "a fine Red,' in prompt


def test_each_prompt_tells_only_what_is_new_and_only_what_the_seat_saw() -> None:
    told = Told()
    GAME.play(ruleset("classic", 3), 5, [told, Talker(), TraderBot()])
    assert len(told.prompts) > 20
    assert told.prompts[0].startswith("Since the match began:\n")
    since = [p.startswith("Since your last decision:\n") for p in told.prompts[1:]]
    # (nothing new between two decisions in a row: nothing told)
    assert sum(since) > 10 and all(
        s or p.startswith("Turn ") for s, p in zip(since, told.prompts[1:], strict=True)
    )
    happened = [p.split("\n\nTurn ")[0] for p in told.prompts if p.startswith("Since")]
    turns = [line for h in happened for line in h.splitlines() if "is active" in line]
    assert len(turns) == len(set(turns)) > 5  # each turn told once
    text = "\n".join(happened)
    assert re.search(r"seat 0 \(you\) is dealt [A-Z]", text)
    assert "seat 1 is dealt ?, ?, ?, ?, ?" in text and "seat 2 draws ?" in text
    assert re.search(r"seat [12] (is dealt|draws) [A-Z]", text) is None  # never another's cards
    said = [line for line in text.splitlines() if "says:" in line]
    assert said and all(line.startswith('  seat 1 says: "turn ') for line in said)
    assert all(len(line) < SAY_CHARS + 40 and line.isprintable() for line in said)


def test_a_reply_may_say_something_with_an_offer() -> None:
    m = rig(hands={0: cards("red", "garden")})
    m.table.phase = 2
    view = m.state.view(0)
    reply = '{"give": [0], "want": ["Chili"], "to": 1, "say": "Chili,\\nplease \\u0007' + (
        "x" * 300 + '"}'
    )
    offer = TEXT.parse("propose", view, (), reply)
    assert offer.to == 1 and offer.say.startswith("Chili, please ")
    assert len(offer.say) == SAY_CHARS and offer.say.isprintable()
    text = TEXT.answer_text("propose", view, (), offer)
    assert TEXT.parse("propose", view, (), text) == offer  # its text reads back as it
    assert TEXT.parse("offer", view, (), '{"give": [0], "say": null}').say == ""
    with pytest.raises(Unparsed, match='"say" must be text'):
        TEXT.parse("offer", view, (), '{"give": [0], "say": 7}')
    prompt = TEXT.prompt("propose", view, ())
    assert '"say"' in prompt.text and "say" in prompt.schema["properties"]
    assert prompt.schema["properties"]["say"]["maxLength"] == SAY_CHARS
    assert "say" in TEXT.briefing(view.rules, 0)
