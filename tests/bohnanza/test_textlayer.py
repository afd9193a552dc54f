"""The card game in words (docs/text-seats.md): every legal answer's text
parses back to that answer; a seat's text tells nothing it may not see;
replies in prose, in other cases and spacing, are read; bad ones get a
precise reason."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bohnarena.bohnanza.answers import LEGAL
from bohnarena.bohnanza.bot import DECISION_METHODS, Offer
from bohnarena.bohnanza.decisions import DECISIONS
from bohnarena.bohnanza.game import GAME
from bohnarena.bohnanza.rules import ruleset
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.textlayer import TEXT, TEXT_VERSION, _table
from bohnarena.core.faults import ILLEGAL, PROTOCOL
from bohnarena.core.game import capabilities
from bohnarena.core.textplay import Unparsed, find_json

from .test_state import CONFIGS

ALL_CONFIGS = GAME.conformance_configs()  # every edition, player count and bean choice


#: Decisions a calm match passes on: no harvest but the forced ones, no
#: trade, so fields grow long and Jumping Bean drafts come (rare otherwise).
CALM = frozenset({"anytime", "propose", "offer", "respond"})


def _decisions(rules: Any, seed: int, every: int, calm: bool = False) -> Any:
    """(state, seat, kind, args) at every ``every``-th decision (every
    draft) of a match played with random legal answers."""
    rng = random.Random(seed)
    state = State(rules, seed)
    state.start()
    while state.pending is not None:
        seat, kind, args = state.pending
        if kind == "draft" or rng.randrange(every) == 0:
            yield state, seat, kind, args
        if calm and kind in CALM:
            state.apply(None)
        else:
            state.apply(rng.choice(state.legal_answers()))


def _random_offers(state: State, seat: int, rng: random.Random) -> list[Offer]:
    t = state.table
    refs = list(range(len(t.hands[seat])))
    if seat == t.active:
        refs += [-1 - i for i in range(len(t.revealed))]
    out = []
    for _ in range(6):
        give = tuple(rng.sample(refs, rng.randint(0, min(3, len(refs)))))
        want = tuple(rng.choice(t.rules.in_play) for _ in range(rng.randint(0, 3)))
        if give or want:
            to = rng.choice([None, *[s for s in range(t.players) if s != seat]])
            out.append(Offer(give, want, to))
    return out


@pytest.mark.slow
def test_every_legal_answer_of_every_kind_parses_back_to_itself() -> None:
    rng = random.Random(0)
    kinds: Counter[str] = Counter()
    answers = 0
    matches = [(config, i, False) for i, config in enumerate(ALL_CONFIGS)]
    jumping = [c for c in ALL_CONFIGS if "jumping" in c[2].values()]
    matches += [(c, seed, True) for c in jumping for seed in range(4)]
    for (edition, players, options), seed, calm in matches:
        rules = ruleset(edition, players, **options)
        for state, seat, kind, args in _decisions(rules, seed, every=6, calm=calm):
            view, table = state.view(seat), state.table
            TEXT.prompt(kind, view, args)  # (renders at every kind of decision)
            legal = LEGAL[kind](state, seat, *args)
            if kind in ("propose", "offer"):
                legal += _random_offers(state, seat, rng)
            for answer in legal:
                try:
                    expected = DECISIONS[kind].check(table, seat, answer, *args)
                except Exception:
                    continue  # (a random offer the rules refuse)
                text = TEXT.answer_text(kind, view, args, answer)
                assert TEXT.parse(kind, view, args, text) == expected, (kind, text)
                answers += 1
            kinds[kind] += 1
    assert set(kinds) == set(DECISION_METHODS), kinds  # every kind
    assert min(kinds.values()) >= 10, kinds  # the draft and planting a second card too
    assert sum(kinds.values()) > 10_000 and answers > 50_000


@pytest.mark.slow
def test_a_seats_text_is_the_same_whatever_the_cards_it_cannot_see() -> None:
    """Non-interference: the text a seat gets is a function of what it may
    know. Dealing the other hands and the draw pile afresh (from the cards
    it cannot place) changes no word of it; and the other hands do differ
    in the samples, so the test could see a leak."""
    rng = random.Random(1)
    differed = 0
    for i, (edition, players, options) in enumerate(CONFIGS):
        rules = ruleset(edition, players, **options)
        for state, seat, kind, args in _decisions(rules, 100 + i, every=9):
            for s in range(players):  # every seat's text, not only the one asked
                text = _text(state, s, seat, kind, args)
                # the other hands and the draw pile dealt afresh: the seat's own sample
                sample = state.determinize(s, rng)
                others = [sample.table.hands[o] for o in range(players) if o != s]
                differed += others != [state.table.hands[o] for o in range(players) if o != s]
                assert _text(sample, s, seat, kind, args) == text
    assert differed > 100


def _text(state: State, s: int, asked: int, kind: str, args: Any) -> str:
    """Seat ``s``'s text: the prompt if it is the seat asked, else its table."""
    if s == asked:
        return TEXT.prompt(kind, state.view(s), args).text
    return _table(state.view(s))


def test_the_briefing_names_the_rules_in_force() -> None:
    rules = ruleset("riogrande", 4)
    text = TEXT.briefing(rules, 2)
    assert "seat 2 of 4" in text and "third field for 3 coins" in text
    assert "Cocoa: 4 cards; -/2/3/4" in text and "Coffee" not in text  # 4 players: no Coffee


def test_the_game_declares_its_text_layer_and_version() -> None:
    make = capabilities(GAME).text
    assert make is not None and make() is TEXT and TEXT.version == TEXT_VERSION


def _stopped_at(kind: str, edition: str = "classic", players: int = 4) -> tuple[State, int, Any]:
    for state, seat, k, args in _decisions(ruleset(edition, players), 5, every=1):
        if k == kind:
            return state, seat, args
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"field": 0}', 0),
        ("0", 0),
        ('I think the best is field 0.\n```json\n{"field": 0}\n```', 0),
        ('Maybe {"field": 1}? No: {"FIELD" : 0}', 0),  # the last object stands
        ('  {"Field":"0"}  ', 0),
    ],
)
def test_replies_are_read_tolerantly(reply: str, expected: Any) -> None:
    state, seat, args = _stopped_at("plant")
    assert TEXT.parse("plant", state.view(seat), args, reply) == expected


def test_passing_yes_no_and_variety_names_in_any_case() -> None:
    state, seat, args = _stopped_at("plant_second")
    view = state.view(seat)
    assert TEXT.parse("plant_second", view, args, "Yes.") is True
    assert TEXT.parse("plant_second", view, args, '{"plant": "no"}') is False
    state, seat, args = _stopped_at("propose")
    view = state.view(seat)
    assert TEXT.parse("propose", view, args, "pass") is None
    assert TEXT.parse("propose", view, args, "null") is None
    offer = TEXT.parse("propose", view, args, '{"give": [0], "want": ["black-eyed beans"]}')
    assert offer == Offer((0,), (7,), None)


def test_a_bad_reply_gets_a_precise_reason_and_its_fault_type() -> None:
    state, seat, args = _stopped_at("plant")
    view = state.view(seat)
    cases = {
        "": ("empty", PROTOCOL),
        "the left one": ("no answer found", PROTOCOL),
        '{"feld": 0}': ('"field" is missing', PROTOCOL),
        '{"field": true}': ("must be a number", PROTOCOL),
        '{"field": 9}': ("field 9 is not one of", ILLEGAL),
    }
    for reply, (reason, fault) in cases.items():
        with pytest.raises(Unparsed) as e:
            TEXT.parse("plant", view, args, reply)
        assert reason in e.value.reason and e.value.fault == fault, (reply, e.value.reason)
    state, seat, args = _stopped_at("propose")
    with pytest.raises(Unparsed, match="not a variety"):
        TEXT.parse("propose", state.view(seat), args, '{"want": ["Mushroom"]}')


def test_listed_answers_and_the_default_are_legal_and_parse() -> None:
    for kind in ("plant", "plant_second", "propose", "respond", "anytime"):
        state, seat, args = _stopped_at(kind)
        view = state.view(seat)
        prompt = TEXT.prompt(kind, view, args)
        for text in (*prompt.answers, prompt.default):
            TEXT.parse(kind, view, args, text)  # raises if not legal
        assert prompt.schema["type"] == "object"


def test_a_reply_nested_past_the_parser_s_depth_is_no_answer_not_a_crash() -> None:
    state, seat, args = _stopped_at("plant")
    for reply in ("[" * 5000 + "]" * 5000, '{"a": ' * 3000 + "0" + "}" * 3000):
        with pytest.raises(Unparsed):
            TEXT.parse("plant", state.view(seat), args, reply)


def test_find_json_keeps_a_bare_reply_as_text() -> None:
    assert find_json(" Pass. ") == "Pass."
    assert find_json('{"Buy Field": true}') == {"buy_field": True}


def test_a_reply_quoted_back_in_a_reason_stays_escaped() -> None:
    state, seat, args = _stopped_at("plant")
    for reply in ('{"field": "\u202e\x1b[31m0"}', "\u202e\x1b[2Jfield zero"):
        with pytest.raises(Unparsed) as e:
            TEXT.parse("plant", state.view(seat), args, reply)
        assert e.value.reason.isprintable(), e.value.reason
