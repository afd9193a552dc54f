"""The card game as a PettingZoo AEC environment (the ``rl`` extra).

``env(edition, players, ...)`` is the environment with PettingZoo's usual
wrappers, ``raw_env`` the bare one. Agents are ``seat_0`` .. ``seat_{n-1}``;
the agent to act is the seat whose decision is pending. Every kind of
decision shares one ``Discrete`` action space with a fixed layout
(:class:`ActionLayout`); the observation is a fixed-size vector built from
the acting seat's :class:`~bohnarena.bohnanza.view.SeatView` only
(:class:`ObservationLayout`), with an action mask marking exactly the ids
that are legal now. docs/rl.md documents both layouts and the reward.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..bohnanza.bot import DECISION_METHODS, Accept, Anytime, DraftPick, Offer, Proposal
from ..bohnanza.rules import RuleSet, ruleset
from ..bohnanza.state import EVERYTHING, State
from ..bohnanza.view import SeatView
from ..core.errors import IllegalAnswer, RulesError

#: Trade-area cards ``plant_next`` can name; later ones move up as earlier
#: ones are planted, so every card is reachable.
TRADE_AREA_CAP = 8
REWARDS = ("win", "margin")

Observation = dict[str, np.ndarray]
Part = tuple[slice, tuple[int, ...]]  # where a part lies in a vector, and its shape


def max_fields(rules: RuleSet) -> int:
    """Fields a seat can ever have: its own, and a bought third one."""
    return rules.fields + (1 if rules.third_field_cost else 0)


def _layout(parts: Iterable[tuple[str, tuple[int, ...]]]) -> dict[str, Part]:
    out: dict[str, Part] = {}
    at = 0
    for name, shape in parts:
        size = int(np.prod(shape))
        out[name] = (slice(at, at + size), shape)
        at += size
    return out


class ActionLayout:
    """Action ids: one segment per kind of decision (``plant`` and
    ``make_room`` share the field segment, ``propose`` and ``offer`` the
    trade segment). ``V`` varieties in play (in ``rules.in_play`` order),
    ``F`` fields at most, ``D = players + 1`` draft cards at most.

    * ``field`` (F): plant in / harvest field f.
    * ``plant_second`` (2): no, yes.
    * ``plant_next`` (TRADE_AREA_CAP): plant trade-area card i.
    * ``anytime`` (F + 2): pass, harvest field f, buy a third field.
    * ``draft`` (D * (F + 1)): card i into field f, or (f = F) discarded.
    * ``respond`` (2): decline, accept (giving the first cards of the wanted
      varieties: front of the hand first, then revealed cards).
    * ``trade`` (1 + V + V*V + V): stop offering; give one card of j for
      nothing; give one of j for one of k (k != j); ask one of k as a gift.
      The card given is the last of its variety (a revealed card first for
      the active player, else the back-most in the hand), as in
      :func:`~bohnarena.bohnanza.state.sensible_offers`.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.varieties = rules.in_play
        self.fields = max_fields(rules)
        self.draft_cards = rules.players + 1
        v, f = len(self.varieties), self.fields
        self.segments = _layout(
            [
                ("field", (f,)),
                ("plant_second", (2,)),
                ("plant_next", (TRADE_AREA_CAP,)),
                ("anytime", (f + 2,)),
                ("draft", (self.draft_cards, f + 1)),
                ("respond", (2,)),
                ("trade", (1 + v + v * v + v,)),
            ]
        )
        self.size = max(s.stop for s, _ in self.segments.values())

    def at(self, segment: str) -> int:
        return int(self.segments[segment][0].start)

    def choices(self, view: SeatView, kind: str, args: tuple[Any, ...]) -> dict[int, Any]:
        """Every legal action id of ``view``'s seat for this decision, and its answer."""
        if kind == "plant":
            return {self.at("field") + f: f for f in view.fields_for(args[0])}
        if kind == "make_room":
            return {self.at("field") + f: f for f in view.harvestable()}
        if kind == "plant_second":
            return {self.at("plant_second"): False, self.at("plant_second") + 1: True}
        if kind == "plant_next":
            n = min(len(view.my_trade_area), TRADE_AREA_CAP)
            return {self.at("plant_next") + i: i for i in range(n)}
        if kind == "anytime":
            return self._anytime(view)
        if kind == "draft":
            return self._draft(view, args[0])
        if kind == "respond":
            return self._respond(view, args[0])
        return self._trade(view, active=kind == "propose")

    def _anytime(self, view: SeatView) -> dict[int, Any]:
        at = self.at("anytime")
        out: dict[int, Any] = {at: None}
        for f in view.harvestable():
            out[at + 1 + f] = Anytime((f,))
        if view.can_buy_field():
            out[at + 1 + self.fields] = Anytime((), buy_field=True)
        return out

    def _draft(self, view: SeatView, cards: tuple[int, ...]) -> dict[int, Any]:
        at, width = self.at("draft"), self.fields + 1
        out: dict[int, Any] = {}
        for i, card in enumerate(cards[: self.draft_cards]):
            for f in view.fields_for(card):
                out[at + i * width + f] = DraftPick(i, f)
            out[at + i * width + self.fields] = DraftPick(i, None)
        return out

    def _respond(self, view: SeatView, proposal: Proposal) -> dict[int, Any]:
        at = self.at("respond")
        out: dict[int, Any] = {at: None}
        where = _tradeable(view, revealed=view.seat == view.active, last_first=False)
        give: list[int] = []
        for variety, k in Counter(proposal.want).items():
            refs = where.get(variety, [])
            if len(refs) < k:
                return out
            give.extend(refs[:k])
        out[at + 1] = Accept(tuple(give))
        return out

    def _trade(self, view: SeatView, active: bool) -> dict[int, Any]:
        at, v = self.at("trade"), len(self.varieties)
        out: dict[int, Any] = {at: None}
        own = _tradeable(view, revealed=active, last_first=True)
        for j, give in enumerate(self.varieties):
            if give in own:
                ref = (own[give][0],)
                out[at + 1 + j] = Offer(ref)
                for k, want in enumerate(self.varieties):
                    if k != j:
                        out[at + 1 + v + j * v + k] = Offer(ref, (want,))
        for k, want in enumerate(self.varieties):
            out[at + 1 + v + v * v + k] = Offer((), (want,))
        return out

    def describe(self, action: int) -> str:
        """What action id ``action`` means, in words."""
        for name, (s, shape) in self.segments.items():
            if s.start <= action < s.stop:
                return self._describe(name, action - s.start, shape)
        raise ValueError(f"action {action} is not in 0..{self.size - 1}")

    def _describe(self, segment: str, i: int, shape: tuple[int, ...]) -> str:
        name = _names(self.varieties)
        v = len(self.varieties)
        if segment == "field":
            return f"field {i}"
        if segment == "plant_second":
            return "plant second: " + ("yes" if i else "no")
        if segment == "plant_next":
            return f"plant trade-area card {i}"
        if segment == "anytime":
            if i == 0:
                return "pass"
            return "buy a field" if i > self.fields else f"harvest field {i - 1}"
        if segment == "draft":
            card, f = divmod(i, shape[1])
            return f"draft card {card} " + ("discarded" if f == self.fields else f"into field {f}")
        if segment == "respond":
            return "accept" if i else "decline"
        if i == 0:
            return "no offer"
        i -= 1
        if i < v:
            return f"give {name[i]}"
        i -= v
        if i < v * v:
            return f"give {name[i // v]} for {name[i % v]}"
        return f"ask {name[i - v * v]}"


def _names(varieties: tuple[int, ...]) -> list[str]:
    from ..bohnanza.rules import varieties as all_varieties

    return [all_varieties()[vid].key for vid in varieties]


def _tradeable(view: SeatView, revealed: bool, last_first: bool) -> dict[int, list[int]]:
    """Card references by variety: hand positions, then revealed cards
    (-1, -2, ...) when ``revealed``; reversed when ``last_first``."""
    out: dict[int, list[int]] = {}
    for r, variety in enumerate(view.hand):
        out.setdefault(variety, []).append(r)
    if revealed:
        for i, variety in enumerate(view.revealed):
            out.setdefault(variety, []).append(-1 - i)
    if last_first:
        for refs in out.values():
            refs.reverse()
    return out


class ObservationLayout:
    """The observation vector (float32, every entry a count or a 0/1 flag,
    none above the deck's size). Seats are relative: index 0 is the
    observing seat, then the others clockwise. ``P`` players, ``V``
    varieties in play (``rules.in_play`` order), ``F`` fields at most,
    ``A = TRADE_AREA_CAP``, ``D = players + 1``. :attr:`parts` maps each
    part's name to its slice of the vector and its shape (docs/rl.md lists
    them)."""

    def __init__(self, rules: RuleSet) -> None:
        p, v, f = rules.players, len(rules.in_play), max_fields(rules)
        self.players = p
        self._column = {vid: j for j, vid in enumerate(rules.in_play)}
        self.parts = _layout(
            [
                ("kind", (len(DECISION_METHODS),)),
                ("then", (len(DECISION_METHODS),)),
                ("phase", (4,)),
                ("active", (p,)),
                ("hand", (v,)),
                ("front", (2, v)),
                ("fields", (p, f, v + 2)),
                ("trade_areas", (p, v)),
                ("my_trade_area", (TRADE_AREA_CAP, v)),
                ("revealed", (v,)),
                ("coins", (p,)),
                ("hand_sizes", (p,)),
                ("table", (3,)),
                ("discard", (v,)),
                ("unseen", (v,)),
                ("card", (v,)),
                ("draft", (p + 1, v)),
                ("proposal_by", (p,)),
                ("proposal_to_me", (1,)),
                ("proposal_gives", (v,)),
                ("proposal_wants", (v,)),
            ]
        )
        self.size = max(s.stop for s, _ in self.parts.values())
        self._at = {name: int(s.start) for name, (s, _) in self.parts.items()}
        self._fields = f
        self._high = float(rules.total_cards)

    def space(self) -> spaces.Box:
        """A new space object for the vector (each agent's is its own, to seed)."""
        return spaces.Box(0.0, self._high, (self.size,), np.float32)

    def encode(
        self,
        view: SeatView,
        decision: tuple[str, tuple[Any, ...]] | None,
        then: tuple[str, tuple[Any, ...]] | None,
    ) -> np.ndarray:
        """``view``'s seat's observation; ``decision`` is its pending decision
        (None: it has none), ``then`` the one its pending harvest window
        comes before, when known."""
        # Filled as a list, by flat (row-major) index: writing numpy
        # elements one by one costs three times as much.
        x = [0.0] * self.size
        at = self._at
        col = self._column
        v, f_max = len(col), self._fields
        n, me = self.players, view.seat

        def rel(seat: int) -> int:
            return (seat - me) % n

        if decision is not None:
            x[at["kind"] + DECISION_METHODS.index(decision[0])] = 1
            if then is not None:
                x[at["then"] + DECISION_METHODS.index(then[0])] = 1
        if 1 <= view.phase <= 4:
            x[at["phase"] + view.phase - 1] = 1
        x[at["active"] + rel(view.active)] = 1
        hand = view.hand
        for card in hand:
            x[at["hand"] + col[card]] += 1
        for i, card in enumerate(hand[:2]):
            x[at["front"] + i * v + col[card]] = 1
        for seat, seat_fields in enumerate(view.fields):
            for f, (variety, count) in enumerate(seat_fields):
                base = at["fields"] + (rel(seat) * f_max + f) * (v + 2)
                x[base] = 1
                if count:
                    x[base + 1 + col[variety]] = 1
                    x[base + 1 + v] = count
        for seat, area in enumerate(view.trade_areas):
            for card in area:
                x[at["trade_areas"] + rel(seat) * v + col[card]] += 1
        for i, card in enumerate(view.my_trade_area[:TRADE_AREA_CAP]):
            x[at["my_trade_area"] + i * v + col[card]] = 1
        for card in view.revealed:
            x[at["revealed"] + col[card]] += 1
        coins, sizes = view.coins, view.hand_sizes
        for seat in range(n):
            x[at["coins"] + rel(seat)] = coins[seat]
            x[at["hand_sizes"] + rel(seat)] = sizes[seat]
        table = at["table"]
        x[table : table + 3] = (view.draw_pile, view.exhaustions, view.can_buy_field())
        for card in view.discard:
            x[at["discard"] + col[card]] += 1
        unseen = view.unseen
        for vid, j in col.items():
            x[at["unseen"] + j] = unseen[vid]
        # A harvest window says what it comes before: that decision's argument.
        for d in (decision, then if decision else None):
            if d is not None:
                self._argument(x, rel, d[0], d[1])
        return np.array(x, np.float32)

    def _argument(
        self, x: list[float], rel: Callable[[int], int], kind: str, args: tuple[Any, ...]
    ) -> None:
        at, col, v = self._at, self._column, len(self._column)
        if kind in ("plant", "make_room"):
            x[at["card"] + col[args[0]]] = 1
        elif kind == "draft":
            for i, card in enumerate(args[0][: self.players + 1]):
                x[at["draft"] + i * v + col[card]] = 1
        elif kind == "respond":
            proposal: Proposal = args[0]
            x[at["proposal_by"] + rel(proposal.by)] = 1
            x[at["proposal_to_me"]] = proposal.to is not None
            for card in proposal.cards:
                x[at["proposal_gives"] + col[card]] += 1
            for card in proposal.want:
                x[at["proposal_wants"] + col[card]] += 1


class BohnanzaEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """One match per episode; see the module's docstring and docs/rl.md.

    ``decisions``: the kinds of decision the agents are asked (default:
    all); the others are played with the engine's default answers, as for
    a bot that does not override them (should none of them come up, the
    match is over at ``reset``). ``reward``: "win" (1 to each
    winner at the end, 0 to the others) or "margin" (own coins less the
    best other seat's). ``seed``: where the deals start when ``reset`` is
    given none; ``reset(seed=s)`` plays the deal of match seed ``s`` (the
    one ``bohnarena play --seed s`` plays), and later seedless resets
    follow from it. Other keywords are rule options (``ruleset``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  # PettingZoo reads it off the class
        "name": "bohnanza_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        edition: str = "classic",
        players: int = 4,
        seed: int | None = None,
        render_mode: str | None = None,
        reward: str = "win",
        decisions: Iterable[str] | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        asked = EVERYTHING if decisions is None else frozenset(decisions)
        unknown = sorted(asked - EVERYTHING)
        if unknown or not asked:
            raise RulesError(
                f"decisions must be some of {', '.join(DECISION_METHODS)}, not {sorted(asked)}"
            )
        self.rules = ruleset(edition, players, **options)
        self.render_mode = render_mode
        self.reward = reward
        self.decisions = asked
        self.actions = ActionLayout(self.rules)
        self.observations = ObservationLayout(self.rules)
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        # One space object per agent: the API test wants the same object on every call.
        self._obs_spaces = {a: self._space() for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.actions.size) for a in self.possible_agents}
        self._seeds = random.Random(seed)
        self.state: State | None = None
        self._choices: dict[int, Any] | None = None
        self._last = ""

    def _space(self) -> spaces.Dict:
        mask = spaces.Box(0, 1, (self.actions.size,), np.int8)
        return spaces.Dict({"observation": self.observations.space(), "action_mask": mask})

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        match_seed = seed if seed is not None else self._seeds.getrandbits(63)
        self.state = State(self.rules, match_seed, asks=[self.decisions] * self.rules.players)
        self.state.start()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._last = f"new match, seed {match_seed}"
        self._moved()

    def _moved(self) -> None:
        """After the state moved on: the next agent, or the end."""
        state = self._state()
        self._choices = None
        if state.pending is not None:
            self.agent_selection = self.possible_agents[state.pending[0]]
            return
        result = state.result
        assert result is not None
        best_other = [
            max(c for s, c in enumerate(result.coins) if s != seat)
            for seat in range(len(result.coins))
        ]
        for seat, agent in enumerate(self.possible_agents):
            if self.reward == "win":
                self.rewards[agent] = 1.0 if seat in result.winners else 0.0
            else:
                self.rewards[agent] = float(result.coins[seat] - best_other[seat])
            self.infos[agent] = {"coins": result.coins[seat], "rank": result.ranks[seat]}
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _state(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state

    def legal_actions(self) -> dict[int, Any]:
        """The pending decision's legal action ids and the answer each plays."""
        state = self._state()
        if self._choices is None:
            if state.pending is None:
                self._choices = {}
            else:
                seat, kind, args = state.pending
                self._choices = self.actions.choices(state.view(seat), kind, args)
        return self._choices

    def observe(self, agent: str) -> Observation:
        state = self._state()
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.actions.size, np.int8)
        pending = state.pending
        decision = None
        if pending is not None and pending[0] == seat:
            decision = (pending[1], pending[2])
            mask[list(self.legal_actions())] = 1
        vector = self.observations.encode(state.view(seat), decision, state.then)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state()
        choices = self.legal_actions()
        a = int(action)
        if a not in choices:
            raise IllegalAnswer(
                f"action {a} ({self.actions.describe(a)}) is not legal for {agent} now"
            )
        assert state.pending is not None
        self._last = f"{agent} {state.pending[1]}: {self.actions.describe(a)}"
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        state.apply(choices[a])
        self._moved()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        state = self._state()
        t = state.table
        coins = " ".join(map(str, state.returns()))
        line = f"turn {t.turn} phase {t.phase}: {self._last} | coins {coins} | draw {len(t.deck)}"
        if self.render_mode == "ansi":
            return line
        print(line)
        return None

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> BohnanzaEnv:
    """The environment without wrappers (keywords as :class:`BohnanzaEnv`)."""
    return BohnanzaEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment in PettingZoo's usual wrappers: actions out of range
    fail an assertion, and calls out of order (``step`` before ``reset``)
    raise. An in-range action the mask rules out raises
    :class:`~bohnarena.core.errors.IllegalAnswer`."""
    wrapped: Any = wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["TRADE_AREA_CAP", "ActionLayout", "BohnanzaEnv", "ObservationLayout", "env", "raw_env"]
