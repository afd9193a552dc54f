"""The PettingZoo environment (the ``rl`` extra): PettingZoo's own API and
seed tests, action masks that match the rules, reproducible deals, and
observations that never show another seat's hand."""

import random
import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install -e '.[rl]'")

import numpy as np
from pettingzoo.test import api_test, seed_test

from bohnarena.core.errors import IllegalAnswer, RulesError
from bohnarena.rl.pettingzoo_env import (
    TRADE_AREA_CAP,
    BohnanzaEnv,
    env,
    raw_env,
)

DOCS = Path(__file__).parents[2] / "docs" / "rl.md"
EDITIONS = [
    ("classic", 3, {}),
    ("anniversary", 4, {"extra_bean": "jumping"}),
    ("riogrande", 4, {}),
]
EXACT = {"plant", "make_room", "plant_second", "plant_next", "draft"}


def play(game, rng, steps=None, on_step=None, pass_often=True):
    """Play ``game`` (already reset) with random masked actions; a harvest
    window mostly passes (``pass_often``), so fields grow and drafts and
    make_room come up. ``on_step(game)`` runs before each live step."""
    base = game.unwrapped
    n = 0
    for _ in game.agent_iter():
        obs, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        if steps is not None and n >= steps:
            break
        if on_step is not None:
            on_step(base)
        legal = np.flatnonzero(obs["action_mask"])
        kind = base.state.pending[1]
        if pass_often and kind == "anytime" and rng.random() < 0.9:
            action = base.actions.at("anytime")
        else:
            action = int(legal[rng.integers(len(legal))])
        game.step(action)
        n += 1
    return n


def check_mask(base: BohnanzaEnv, kinds):
    """The mask marks exactly the ids of the legal choices; each one's
    answer passes the rules' check; for the decisions without a reduced
    choice the answers are every legal answer."""
    state = base.state
    seat, kind, _ = state.pending
    kinds.add(kind)
    mask = base.observe(base.agent_selection)["action_mask"]
    choices = base.legal_actions()
    assert base.agent_selection == f"seat_{seat}"
    assert choices, f"empty mask for {kind}"
    assert set(np.flatnonzero(mask)) == set(choices)
    for answer in choices.values():
        state.check(answer)  # raises IllegalAnswer if not legal
    legal = state.legal_answers()
    answers = list(choices.values())
    if kind in EXACT:
        if kind == "plant_next":
            legal = legal[:TRADE_AREA_CAP]
        assert sorted(map(repr, answers)) == sorted(map(repr, legal))
    elif kind == "respond":
        assert len(answers) == min(len(legal), 2)
    else:
        assert None in answers


# PettingZoo exempts only its own environments, by name, from these two
# warnings about Dict observations (the action mask's standard form).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.slow
def test_api_test_passes():
    # enough cycles for a whole match, the end and every agent's last step
    api_test(env(edition="classic", players=3), num_cycles=3000)


def test_seed_test_passes():
    seed_test(lambda: env(edition="riogrande", players=5), num_cycles=100)


@pytest.mark.parametrize("edition, players, options", EDITIONS)
def test_masks_match_the_rules(edition, players, options):
    game = env(edition=edition, players=players, **options)
    game.reset(seed=11)
    kinds = set()
    play(game, np.random.default_rng(1), steps=1200, on_step=lambda b: check_mask(b, kinds))
    assert {"plant", "anytime", "propose", "offer", "respond", "plant_next"} <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("edition, players, options", [*EDITIONS, ("riogrande", 7, {})])
def test_masks_match_the_rules_to_the_end(edition, players, options):
    game = env(edition=edition, players=players, **options)
    kinds = set()
    for seed in range(4):
        game.reset(seed=seed)
        play(game, np.random.default_rng(seed), on_step=lambda b: check_mask(b, kinds))
        assert not game.agents
    expected = {"plant", "make_room", "anytime", "propose", "offer", "respond", "plant_next"}
    if options:
        expected.add("draft")
    assert expected <= kinds


@pytest.mark.slow
def test_a_whole_match_ends_with_rewards_for_every_seat():
    game = env(edition="classic", players=3, reward="margin")
    game.reset(seed=5)
    rewards, infos = {}, {}
    for agent in game.agent_iter():
        obs, reward, terminated, _, info = game.last()
        if terminated:
            rewards[agent], infos[agent] = reward, info
            game.step(None)
        else:
            game.step(game.action_space(agent).sample(obs["action_mask"]))
    coins = [infos[f"seat_{s}"]["coins"] for s in range(3)]
    for s in range(3):
        assert rewards[f"seat_{s}"] == coins[s] - max(c for t, c in enumerate(coins) if t != s)
    assert sorted(i["rank"] for i in infos.values())[0] == 1


def episode(seed, steps=400):
    game = env(edition="anniversary", players=4, extra_bean="jumping")
    game.reset(seed=seed)
    seen = []
    rng = np.random.default_rng(0)

    def record(base):
        seen.append((base.agent_selection, base.observe(base.agent_selection)["observation"]))

    play(game, rng, steps=steps, on_step=record)
    return seen


def test_the_same_seed_plays_the_same_episode():
    a, b = episode(3), episode(3)
    assert [x[0] for x in a] == [x[0] for x in b]
    assert all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    c = episode(4, steps=5)
    assert not all(np.array_equal(x[1], y[1]) for x, y in zip(a, c, strict=False))


def test_reset_seed_is_the_match_seed_and_seedless_resets_follow_it():
    base = raw_env(edition="classic", players=4)
    base.reset(seed=7)
    from bohnarena.bohnanza.state import State

    state = State(base.rules, 7)
    state.start()
    assert base.state.table.hands == state.table.hands
    base.reset()
    first = list(base.state.table.hands)
    base.reset(seed=7)
    base.reset()
    assert base.state.table.hands == first


def test_the_observation_never_shows_another_hand():
    game = env(edition="riogrande", players=4)
    game.reset(seed=2)
    rng = random.Random(0)
    checked = 0

    def swap_hidden_cards(base):
        nonlocal checked
        me = base.state.pending[0]
        before = base.observe(base.agent_selection)
        t = base.state.table
        # Trade another seat's hand for draw-pile cards: what ``me`` can
        # see, the unseen counts too, stays the same.
        other = (me + 1 + rng.randrange(base.rules.players - 1)) % base.rules.players
        saved = (list(t.hands[other]), list(t.deck))
        for i in range(len(t.hands[other])):
            j = rng.randrange(len(t.deck))
            t.hands[other][i], t.deck[j] = t.deck[j], t.hands[other][i]
        base._choices = None
        after = base.observe(base.agent_selection)
        t.hands[other][:], t.deck[:] = saved
        base._choices = None
        assert np.array_equal(before["observation"], after["observation"])
        assert np.array_equal(before["action_mask"], after["action_mask"])
        checked += 1

    play(game, np.random.default_rng(2), steps=300, on_step=swap_hidden_cards)
    assert checked == 300


def test_other_agents_get_an_empty_mask_and_the_actor_a_decision_kind():
    base = raw_env()
    base.reset(seed=1)
    obs = {a: base.observe(a) for a in base.agents}
    kind = base.observations.parts["kind"][0]
    for agent, o in obs.items():
        acting = agent == base.agent_selection
        assert o["action_mask"].any() == acting
        assert o["observation"][kind].sum() == acting


def test_an_illegal_action_raises_and_a_bad_setup_is_refused():
    base = raw_env()
    base.reset(seed=1)
    mask = base.observe(base.agent_selection)["action_mask"]
    with pytest.raises(IllegalAnswer, match="not legal"):
        base.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(RulesError):
        raw_env(decisions=["bluff"])
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="coins")


def test_render_and_describe():
    base = raw_env(render_mode="ansi")
    base.reset(seed=1)
    base.step(next(iter(base.legal_actions())))
    assert re.match(r"turn 1 phase \d: seat_0 \w+: ", base.render())
    names = {base.actions.describe(a) for a in range(base.actions.size)}
    assert len(names) == base.actions.size  # every id means something different
    assert "give blue for chili" in names


def test_fewer_decisions_leave_the_rest_to_the_defaults():
    game = env(decisions=["plant", "plant_second", "plant_next"])
    game.reset(seed=3)
    kinds = set()
    play(game, np.random.default_rng(3), on_step=lambda b: kinds.add(b.state.pending[1]))
    assert kinds <= {"plant", "plant_second", "plant_next"}


@pytest.mark.slow
def test_the_random_agent_in_the_docs_runs(capsys):
    code = re.search(r"```python\n(.*?)```", DOCS.read_text(), re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, str(DOCS), "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(re.match(r"seat_\d reward", line) for line in lines)
