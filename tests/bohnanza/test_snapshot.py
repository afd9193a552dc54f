"""The searchable state out of process (issue 16): what the engine sends a
seat that asks for it, and the state a bot's process rebuilds from it. The
JSON path samples exactly what ``view.determinize`` samples in the engine's
process; what is sent never depends on a card the seat cannot see; a
bean counter out of process plays the very match it plays in process."""

from __future__ import annotations

import json
import marshal
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bohnarena.bohnanza import Bot, Match, Offer, Proposal, play_match, ruleset
from bohnarena.bohnanza import wire as bwire
from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.bohnanza.decisions import DECISIONS
from bohnarena.bohnanza.snapshot import decode, encode, restore, snapshot
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.view import SeatView
from bohnarena.core.entry import BotEntry
from bohnarena.core.game import ASKED
from bohnarena.external.host import Host
from bohnarena.external.remote import remote_seat
from bohnarena.referee.limits import Limits
from bohnarena.referee.seats import BotSeat
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.searcher import BeanCounterBot, rollout_policy
from bohnarena_bots.trader import TraderBot
from tests.conftest import SANDBOX_MARKS

from .searching_bots import QuickCounter
from .test_state import CONFIGS

HERE = Path(__file__).parent
QUICK = f"{HERE / 'searching_bots.py'}:QuickCounter"
BLIND = f"{HERE / 'searching_bots.py'}:BlindCounter"

BOTS = [TraderBot, TraderBot, PlannerBot, RandomBot, Bot]


def everything(s: State) -> tuple[Any, ...]:
    """Every part of a state that plays a role from here on."""
    t = s.table
    return (
        (t.deck, t.hands, t.fields, t.trade, t.revealed, t.discard, t.coins, t.drafts),
        (t.exhaustions, t.ended, t.playing_out, t.active, t.turn, t.phase, t.rng.getstate()),
        (s._stack, s.pending, s.then, s.asks, s.declared, s.forfeited, s.result),
        (s._busy, s._windows, s._trades, t.records, t.referee),
    )


def sent(view: SeatView, framed: bool) -> dict[str, Any]:
    """The view with its state, as a bot's host holds it: through marshal
    (bohnarena's own host) or JSON (a command bot)."""
    shown = {**bwire.view_json(view), "state": bwire.state_json(view)}
    return marshal.loads(marshal.dumps(shown)) if framed else json.loads(json.dumps(shown))


def others_offer(s: State, seat: int) -> bool:
    """Is another seat's offer of cards from its hand on the stack?"""
    return any(
        type(v) is Offer and any(r >= 0 for r in v.give) and f[3].by != seat
        for f in s._stack
        for v in f
        if len(f) > 3 and type(f[3]) is Proposal
    )


class Probe(BotSeat):
    """A bot in process that, at each of its decisions, samples the match
    both ways (in process, and from what the engine would send it) and
    checks they are the same sample."""

    count: ClassVar[Counter[str]] = Counter()
    every = 1  # compare at every n-th decision (a seat's own count)
    playouts = 8  # and play both samples out at every n-th compared

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        self.asked = getattr(self, "asked", -1) + 1
        if self.asked % self.every:
            return super().decide(kind, view, args)
        state = view._table.state()
        seat = view.seat
        n = sum(self.count[k] for k in DECISION_METHODS)
        data = sent(view, framed=n % 2 == 0)
        rules = bwire.rules_from_json(json.loads(json.dumps(bwire.rules_json(state.rules))))
        self._same(view.determinize, data, kind, rules, n)
        self.count[kind] += 1
        self.count["offer on the table"] += others_offer(state, seat)
        then = state.then
        if then is not None and then[0] in state.asks[seat]:
            # the second of a pair: the window passes first, in both processes
            passed = state.clone()
            passed.resume(None)
            self._same(lambda rng: passed.determinize(seat, rng), data, then[0], rules, n)
            self.count["pair"] += 1
        return super().decide(kind, view, args)

    def _same(self, engine: Any, data: dict[str, Any], kind: str, rules: Any, n: int) -> None:
        view = bwire.json_view({**data, ASKED: kind}, rules, [])
        a, b = engine(random.Random(n)), view.determinize(random.Random(n))
        assert everything(a) == everything(b)
        assert view.determinize(random.Random(n + 1)).table.deck == (
            engine(random.Random(n + 1)).table.deck
        )  # (the rebuilt state serves every sample of the decision)
        if n % self.playouts == 0:  # and they play on alike
            policy = rollout_policy if n % (2 * self.playouts) else None
            a.playout(random.Random(n), policy)
            b.playout(random.Random(n), policy)
            assert everything(a) == everything(b)


class Crasher(Probe):
    """Answers illegally from turn 9 on: with one fault allowed, it forfeits."""

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        answer = super().decide(kind, view, args)
        return ("nonsense", None) if view.turn >= 9 else answer


def probe_matches(seeds: range, every: int, playouts: int) -> Counter[str]:
    Probe.count, Probe.every, Probe.playouts = Counter(), every, playouts
    for edition, players, options in CONFIGS:
        rules = ruleset(edition, players, **options)
        for seed in seeds:
            rng = random.Random(seed)
            seats = [Probe(rng.choice(BOTS)(), DECISIONS) for _ in range(players)]
            if seed % 2:
                seats[1] = Crasher(TraderBot(), DECISIONS, limits=Limits(max_faults=1))
            result = Match(rules, seed, seats, inline=False).play()
            assert result.faults[1] == seed % 2
    return Probe.count


@pytest.mark.slow
def test_the_json_path_samples_what_the_engine_samples() -> None:
    count = probe_matches(range(2), every=7, playouts=25)
    assert set(DECISION_METHODS) <= set(count), count  # every decision was compared
    assert count["pair"] and count["offer on the table"] > 10, count


@pytest.mark.slow
def test_the_json_path_samples_what_the_engine_samples_over_many_matches() -> None:
    count = probe_matches(range(2, 8), every=1, playouts=8)
    assert sum(count[k] for k in DECISION_METHODS) > 25_000, count  # 36 matches


def moved(state: State, seat: int, rng: random.Random) -> State:
    """The same match but for what ``seat`` cannot see: the other hands'
    cards and the draw pile shuffled together, another random stream, and
    another seat's offer made from other places in its hand."""
    new = state.clone()
    t = new.table
    hidden = [c for s in range(t.players) if s != seat for c in t.hands[s]] + t.deck
    rng.shuffle(hidden)
    for s in range(t.players):
        if s != seat:
            size = len(t.hands[s])
            t.hands[s], hidden = hidden[:size], hidden[size:]
    t.deck = hidden
    t.rng = random.Random(rng.random())
    for i, f in enumerate(new._stack):
        if len(f) > 3 and type(f[3]) is Proposal and f[3].by != seat:
            o: Offer = f[2]
            hand = sum(r >= 0 for r in o.give)
            places = iter(rng.sample(range(len(t.hands[f[3].by])), hand))
            give = tuple(r if r < 0 else next(places) for r in o.give)
            new._stack[i] = (f[0], f[1], Offer(give, o.want, o.to), *f[3:])
    return new


@pytest.mark.slow
def test_what_is_sent_never_depends_on_a_card_the_seat_cannot_see() -> None:
    class Mover(BotSeat):
        checked = offers = 0

        def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
            Mover.checked += 1
            if Mover.checked % 3 == 0:
                state = view._table.state()
                twin = moved(state, view.seat, random.Random(Mover.checked))
                other = twin.view(view.seat)  # (a view holds its state weakly: keep twin)
                assert json.dumps(sent(other, False)) == json.dumps(sent(view, False))
                assert marshal.dumps(sent(other, True)) == marshal.dumps(sent(view, True))
                Mover.offers += others_offer(state, view.seat)
            return super().decide(kind, view, args)

    for edition, players, options in CONFIGS[::2]:
        rules = ruleset(edition, players, **options)
        seats = [Mover(TraderBot(), DECISIONS) for _ in range(players)]
        Match(rules, 4, seats, inline=False).play()
    assert Mover.checked > 1500 and Mover.offers > 20, (Mover.checked, Mover.offers)


def test_steps_travel_by_name_and_a_stranger_fails_loudly() -> None:
    state = State(ruleset("classic", 4), 1)
    state.start()
    data = snapshot(state, 0)
    assert [{"step": "_turn"}] in data["stack"]
    assert list(decode(data["stack"])) == state._stack
    with pytest.raises(ValueError, match="no step '_renamed'"):
        decode([{"step": "_renamed"}])
    with pytest.raises(ValueError, match="no step 'start'"):
        decode({"step": "start"})  # (a public method is not a step)
    with pytest.raises(TypeError, match="not a step"):
        encode((print, 1))
    for junk in ({"Nonesuch": 1}, {"step": "_turn", "x": 1}, 1.5, {1, 2}):
        with pytest.raises(ValueError, match="not a frame value"):
            decode([junk])
    proposal = Proposal(1, None, (2, 3), (4,))
    assert decode(json.loads(json.dumps(encode((proposal, Offer((0, -1), (4,), 2)))))) == (
        proposal,
        Offer((0, -1), (4,), 2),
    )


def test_a_view_without_a_state_cannot_be_sampled() -> None:
    state = State(ruleset("classic", 4), 1)
    state.start()
    view = bwire.json_view(bwire.view_json(state.view(0)), state.rules, [])
    with pytest.raises(NotImplementedError, match="wants_state"):
        view.determinize(random.Random(0))
    bare = SeatView(state.table.copy(), 0)  # in process: a table no state owns
    with pytest.raises(RuntimeError, match="no state behind it"):
        bare.determinize(random.Random(0))
    data = {**sent(state.view(0), framed=False), ASKED: "respond"}
    with pytest.raises(ValueError, match="not at 'respond'"):
        restore(data, state.rules, "respond")


def test_only_a_bot_that_wants_it_asks_for_the_state() -> None:
    rules = bwire.rules_json(ruleset("classic", 4))
    start = {"type": "start", "seat": 0, "seed": 1, "rules": rules}
    assert "state" not in Host(TraderBot, bwire).handle(start)  # type: ignore[operator]
    assert Host(BeanCounterBot, bwire).handle(start)["state"] is True  # type: ignore[index]
    assert not Bot.wants_state and BeanCounterBot.wants_state


# -- a bean counter out of process --------------------------------------------
def _twins(
    isolation: str, spec: str, home: Bot, edition: str, players: int, seed: int
) -> tuple[Any, Any]:
    """One match with a bean counter out of process (``spec``), and the same
    match with ``home`` in its seat in process."""
    rules = ruleset(edition, players)
    seat = remote_seat("bohnanza", BotEntry("counter", spec, None, isolation), Limits())
    others: list[Bot] = [TraderBot(), PlannerBot(), TraderBot(), RandomBot()][: players - 1]
    try:
        away = play_match(rules, seed, [*others[:1], seat, *others[1:]])
    finally:
        seat.close()
    return away, play_match(rules, seed, [*others[:1], home, *others[1:]])


@pytest.mark.slow
@pytest.mark.parametrize(("edition", "players"), [("classic", 4), ("riogrande", 3)])
def test_out_of_process_it_searches_and_plays_the_same_match(edition: str, players: int) -> None:
    (result, records), home = _twins("process", QUICK, QuickCounter(), edition, players, 7)
    assert (result, records) == home  # answer for answer, note for note
    notes = Counter(r[2] for r in records if r[0] == "note")
    assert notes["searched"] > 50 and not notes["fallback"], notes


@pytest.mark.slow
def test_out_of_process_without_the_state_it_falls_back() -> None:
    (result, records), (_, home_records) = _twins("process", BLIND, QuickCounter(), "classic", 4, 7)
    assert not any(result.faults)
    notes = Counter(r[2] for r in records if r[0] == "note")
    assert notes["fallback"] > 50 and not notes["searched"], notes
    assert records != home_records


@pytest.mark.parametrize("isolation", [pytest.param("sandbox", marks=SANDBOX_MARKS)])
def test_the_shipped_bean_counter_searches_in_the_sandbox(
    isolation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped bot, imported inside the sandbox: the match it plays there
    is the one it plays in process, and not the one it plays without a state."""
    spec = "bohnarena_bots.searcher:BeanCounterBot"
    (result, records), home = _twins(isolation, spec, BeanCounterBot(), "classic", 4, 7)
    assert not any(result.faults)
    assert (result, records) == home

    def unavailable(self: SeatView, rng: random.Random) -> State:
        raise NotImplementedError

    monkeypatch.setattr(SeatView, "determinize", unavailable)
    blind = play_match(
        ruleset("classic", 4), 7, [TraderBot(), BeanCounterBot(), PlannerBot(), TraderBot()]
    )
    assert blind[1] != records


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
