"""The dice game's searchable state out of process (as the card game's,
tests/bohnanza/test_snapshot.py): the JSON path samples exactly what
``view.determinize`` samples in the engine's process, what is sent never
depends on a card nobody has seen, and a searching bot plays the same match
in process, as a process and in the sandbox."""

from __future__ import annotations

import json
import marshal
import random
from pathlib import Path
from typing import Any

import pytest

from bohnarena.core.entry import BotEntry
from bohnarena.core.game import ASKED
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits
from bohnarena.referee.seats import BotSeat
from bohnarena.wuerfel import wire
from bohnarena.wuerfel.bot import DiceView
from bohnarena.wuerfel.match import Match
from bohnarena.wuerfel.rules import ruleset
from bohnarena.wuerfel.state import State
from bohnarena.wuerfel.table import DECISIONS
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot
from tests.conftest import SANDBOX_MARKS

from .searching_dice_bots import SamplingDiceBot

HERE = Path(__file__).parent
SPEC = f"{HERE / 'searching_dice_bots.py'}"
CONFIGS = [(2, {}), (3, {"early_stop": False}), (4, {}), (5, {"target": 9})]


def everything(s: State) -> tuple[Any, ...]:
    t = s.table
    return (
        (t.deck, t.active_card, t.cover_card, t.covered, t.coins, t.coin_cards, t.shown_coins),
        (t.overview_turned, t.field, t.hand, t.active, t.turn, t.rng.getstate(), t.records),
        (s._stack, s.pending, s.then, s.asks, s.declared, s.forfeited, s.winners, s.result),
    )


def sent(view: DiceView, framed: bool) -> dict[str, Any]:
    shown = {**wire.view_json(view), "state": wire.state_json(view)}
    return marshal.loads(marshal.dumps(shown)) if framed else json.loads(json.dumps(shown))


class Probe(BotSeat):
    compared = 0

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        n = Probe.compared
        state = view._table.state()
        rules = wire.rules_from_json(json.loads(json.dumps(wire.rules_json(state.rules))))
        data = sent(view, framed=n % 2 == 1)
        json_view = wire.json_view({**data, ASKED: kind}, rules, [])
        a, b = view.determinize(random.Random(n)), json_view.determinize(random.Random(n))
        assert everything(a) == everything(b)
        if n % 25 == 0:
            a.playout(random.Random(n))
            b.playout(random.Random(n))
            assert everything(a) == everything(b)
        Probe.compared += 1
        return super().decide(kind, view, args)


@pytest.mark.slow
def test_the_json_path_samples_what_the_engine_samples() -> None:
    Probe.compared = 0
    hidden = 0
    for k, (players, options) in enumerate(CONFIGS):
        for seed in (k,):
            bots = [GreedyDiceBot() if s % 2 else RandomDiceBot() for s in range(players)]
            match = Match(
                ruleset("standard", players, **options),
                seed,
                [Probe(b, DECISIONS) for b in bots],
                inline=seed % 2 == 0,  # (answered as the rules go, or stopped at each)
            )
            match.play()
            t = match.table
            hidden += sum(c not in t.shown_coins for pile in t.coin_cards for c in pile)
    assert Probe.compared > 700 and hidden > 10, (Probe.compared, hidden)


@pytest.mark.slow
def test_what_is_sent_never_depends_on_a_card_nobody_has_seen() -> None:
    checked = 0

    class Mover(BotSeat):
        def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
            nonlocal checked
            checked += 1
            twin = view._table.state().clone()  # (a view holds its state weakly: keep twin)
            t = twin.table
            places = [(s, i) for s, p in enumerate(t.coin_cards) for i, c in enumerate(p)]
            places = [(s, i) for s, i in places if t.coin_cards[s][i] not in t.shown_coins]
            hidden = [t.coin_cards[s][i] for s, i in places] + t.deck
            random.Random(checked).shuffle(hidden)
            for s, i in places:
                t.coin_cards[s][i] = hidden.pop()
            t.deck, t.rng = hidden, random.Random(checked)
            other = twin.view(view.seat)
            assert json.dumps(sent(other, False)) == json.dumps(sent(view, False))
            assert marshal.dumps(sent(other, True)) == marshal.dumps(sent(view, True))
            return super().decide(kind, view, args)

    for players, options in CONFIGS:
        bots = [Mover(GreedyDiceBot(), DECISIONS) for _ in range(players)]
        Match(ruleset("standard", players, **options), 3, bots, inline=False).play()
    assert checked > 500


def test_a_view_without_a_state_cannot_be_sampled() -> None:
    state = State(ruleset("standard", 3), 1)
    state.start()
    view = wire.json_view(wire.view_json(state.view(0)), state.rules, [])
    with pytest.raises(NotImplementedError, match="wants_state"):
        view.determinize(random.Random(0))


def _twins(isolation: str, name: str, seed: int) -> tuple[Any, Any]:
    """A match with the sampling bot out of process (class ``name``), and
    the same match with it in process."""
    rules = ruleset("standard", 3)
    seat = remote_seat("wuerfel", BotEntry("sampler", f"{SPEC}:{name}", None, isolation), Limits())
    try:
        away = Match(rules, seed, [GreedyDiceBot(), seat, RandomDiceBot()])
        result = away.play()
    finally:
        seat.close()
    home = Match(rules, seed, [GreedyDiceBot(), SamplingDiceBot(), RandomDiceBot()])
    return (result, away.records), (home.play(), home.records)


ISOLATIONS = [
    pytest.param("process", marks=pytest.mark.slow),
    pytest.param("sandbox", marks=SANDBOX_MARKS),
]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_out_of_process_a_sampling_bot_plays_the_same_match(isolation: str) -> None:
    away, home = _twins(isolation, "SamplingDiceBot", 5)
    assert not any(away[0].faults)
    assert away == home
    blind, _ = _twins("process", "BlindDiceBot", 5) if isolation == "process" else (away, home)
    if isolation == "process":  # without the state it plays another match
        assert blind[1] != home[1]
