"""The dice game out of process: the JSON-lines wire, the same matches in
process, as a process and in the sandbox, hostile bots, and a bot in bash."""

import json
import marshal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.entry import BotEntry
from bohnarena.core.game import get_game
from bohnarena.run.dispatch import run_league
from bohnarena.run.seating import make_seat
from bohnarena.wuerfel import wire
from bohnarena.wuerfel.bot import FULFIL, REDEEM, Keep
from bohnarena.wuerfel.match import Match
from bohnarena.wuerfel.rules import ruleset
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot
from tests.conftest import SANDBOX_MARKS, faults_by_bot, sandboxed

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
GAME = get_game("wuerfel")
SHIPPED = ("wuerfel-greedy", "wuerfel-random")
ISOLATIONS = [
    pytest.param("process", marks=pytest.mark.slow),
    pytest.param("sandbox", marks=SANDBOX_MARKS),
]
LIMITS = (
    "[limits]\ndecision_seconds = 0.5\nmatch_seconds = 5\nmemory_mb = 512\noutput_kb = 64\n"
    "max_faults = 3\n"
)


# -- the wire itself ------------------------------------------------------------
def test_rules_travel_as_data_and_rebuild_the_same_rule_set(tmp_path):
    deck = tmp_path / "deck.toml"  # a file the sandbox cannot see: its contents travel
    shipped = (ROOT / "bohnarena" / "wuerfel" / "data" / "harvest_cards.toml").read_text()
    deck.write_text(shipped)
    rules = ruleset("standard", 4, early_stop=False, target=9, deck_file=str(deck))
    data = json.loads(json.dumps(wire.rules_json(rules)))
    assert str(tmp_path) not in json.dumps(data)
    sent = wire.rules_from_json(data)
    assert (sent.edition, sent.players, sent.early_stop, sent.target) == ("standard", 4, False, 9)
    assert (sent.deck, sent.faces, sent.varieties) == (rules.deck, rules.faces, rules.varieties)


@pytest.mark.parametrize(
    "kind,data,answer",
    [
        ("keep", {"dice": [0, 2]}, Keep((0, 2))),
        ("keep", {"dice": [1], "stop": True}, Keep((1,), True)),
        ("keep", {"dice": [99, 99]}, Keep((99, 99))),  # well-formed; the engine judges it illegal
        ("harvest", "fulfil", FULFIL),
        ("harvest", "redeem", REDEEM),
        ("harvest", None, None),
    ],
)
def test_answers_read_from_json(kind, data, answer):
    assert wire.answer_from_json(kind, data) == answer
    assert wire.answer_from_json(kind, json.loads(json.dumps(wire.answer_json(answer)))) == answer


@pytest.mark.parametrize(
    "kind,data",
    [
        ("keep", None),
        ("keep", [0]),
        ("keep", {"dice": 0}),
        ("keep", {"dice": ["0"]}),
        ("keep", {"dice": [True]}),
        ("keep", {"dice": [0.0]}),
        ("keep", {"dice": [0], "stop": 1}),
        ("keep", "fulfil"),
        ("harvest", "Fulfil"),
        ("harvest", 1),
        ("harvest", {}),
        ("harvest", ["fulfil"]),
        ("harvest", False),
        ("plant", 0),
    ],
)
def test_junk_answers_raise(kind, data):
    with pytest.raises((ValueError, TypeError)):
        wire.answer_from_json(kind, data)


@pytest.mark.parametrize("junk", [object(), {1, 2}, Keep((object(),), None), b"x", [[1]]])
def test_any_python_answer_becomes_json(junk):
    json.dumps(wire.answer_json(junk))  # a junk answer is the engine's to judge, not lost


class Twin(GreedyDiceBot):
    """Checks at every decision that the JsonDiceView a host would build
    from the messages says exactly what the engine's DiceView says."""

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        self.sent = wire.rules_from_json(json.loads(json.dumps(wire.rules_json(rules))))
        self.seen, self.events, self.checked = 0, [], 0

    def twin(self, view, args):
        new, self.seen = wire.events_since(view, self.seen)
        self.events += marshal.loads(marshal.dumps(new))  # as a framed Python host gets them
        data = json.loads(json.dumps(wire.view_json(view)))
        twin = wire.json_view(data, self.sent, self.events)
        for name in (
            "seat",
            "active",
            "turn",
            "players",
            "coins",
            "bean_field",
            "dice_left",
            "hand",
            "cards",
            "covered",
            "cover_cards",
            "draw_pile",
            "history",
        ):
            assert getattr(twin, name) == getattr(view, name), name
        for s in range(view.players):
            assert twin.open_orders(s) == view.open_orders(s)
        assert twin.open_orders() == view.open_orders()
        assert twin.fulfillable(args[0]) == view.fulfillable(args[0])
        assert (
            wire.args_from_json(
                self.kind, json.loads(json.dumps(wire.args_json(self.kind, view, args)))
            )
            == args
        )
        self.checked += 1

    def keep(self, view, roll):
        self.kind = "keep"
        self.twin(view, (roll,))
        return super().keep(view, roll)

    def harvest(self, view, dice):
        self.kind = "harvest"
        self.twin(view, (dice,))
        return super().harvest(view, dice)


class Faulty(RandomDiceBot):
    def harvest(self, view, dice):
        if view.turn % 7 == 0:
            raise RuntimeError("secret plans")
        return super().harvest(view, dice)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_json_view_says_what_the_engine_view_says(seed):
    twins = [Twin(), Twin()]
    match = Match(ruleset("standard", 4), seed, [twins[0], Faulty(), twins[1], RandomDiceBot()])
    match.play()
    assert all(t.checked > 50 for t in twins)
    faults = [r for r in twins[0].events if r[0] == "fault"]
    assert faults and all(r[3] == "raised" for r in faults)  # another seat's fault: its type only
    assert not any(r[0] == "seat" for r in twins[0].events)


# -- the same matches in every isolation ----------------------------------------
@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("players,seed", [(3, 1), (4, 7), (5, 3)])
def test_shipped_bots_play_the_same_match_in_every_isolation(players, seed, isolation):
    rules = ruleset("standard", players, early_stop=seed % 2 == 1)
    names = [SHIPPED[i % 2] for i in range(players)]
    inproc = GAME.play(rules, seed, [make_seat(GAME, BotEntry(n, spec=n)) for n in names])
    seats = [make_seat(GAME, BotEntry(n, spec=n, isolation=isolation)) for n in names]
    assert GAME.play(rules, seed, seats) == inproc


def league_file(tmp_path, name, bots, extra=""):
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "wuerfel"\nedition = "standard"\nplayers = 3\n'
        f"seed = 4\n{extra}[bots]\n" + "".join(f"{k} = {v}\n" for k, v in bots.items())
    )
    return path


def content(out):
    matches = pq.read_table(out / "matches").sort_by("match_id").drop_columns(["duration_s"])
    moves = pq.read_table(out / "moves").sort_by([("match_id", "ascending"), ("seq", "ascending")])
    return matches, moves


@sandboxed
def test_a_sandboxed_dice_league_equals_the_in_process_league(tmp_path):
    bots = {"greedy": "wuerfel-greedy", "random": "wuerfel-random", "greedy-b": "wuerfel-greedy"}
    runs = {}
    for isolation in ("inprocess", "sandbox"):
        entries = {k: f'{{ spec = "{v}", isolation = "{isolation}" }}' for k, v in bots.items()}
        out = tmp_path / isolation
        s = run_league(
            league_file(tmp_path, isolation, entries, "deals = 2\n"), out, workers=2, progress=False
        )
        assert s.complete and s.played == 6
        runs[isolation] = content(out)
    assert runs["sandbox"][0].equals(runs["inprocess"][0])
    assert runs["sandbox"][1].equals(runs["inprocess"][1])


@sandboxed
@pytest.mark.parametrize(
    "hostile,fault",
    [("Raises", "raised RuntimeError"), ("Sleeps", "timeout"), ("Junk", ("illegal", "protocol"))],
)
def test_hostile_dice_bots_in_the_sandbox_fault_alone(tmp_path, hostile, fault):
    spec = f"{HERE / 'hostile_dice.py'}:{hostile}"
    path = league_file(
        tmp_path,
        "h",
        {
            "hostile": f'{{ spec = "{spec}", isolation = "sandbox" }}',
            "greedy": '"wuerfel-greedy"',
            "random": '"wuerfel-random"',
        },
        f"deals = 1\n[run]\nbatch_size = 1\n{LIMITS}",
    )
    out = tmp_path / "out"
    s = run_league(path, out, workers=2, progress=False)
    assert s.complete and s.played == 3
    faults = faults_by_bot(out)
    assert faults["hostile"] > 0 and faults["greedy"] == 0 and faults["random"] == 0
    texts = {r["text"] for r in pq.read_table(out / "moves").to_pylist() if r["kind"] == "fault"}
    fault = fault if isinstance(fault, tuple) else (fault,)
    assert all(t.startswith(fault) for t in texts), texts
    assert {f for f in fault if any(t.startswith(f) for t in texts)} == set(fault), texts


# -- a bot in bash ----------------------------------------------------------------
SCRIPT = ROOT / "bots" / "wuerfel_first.sh"


@sandboxed
def test_a_dice_bot_in_bash_plays_a_league(tmp_path):
    path = league_file(
        tmp_path,
        "sh",
        {
            "shell": f'{{ command = ["bash", "{SCRIPT}"] }}',
            "greedy": '"wuerfel-greedy"',
            "random": '"wuerfel-random"',
        },
        "deals = 2\n",
    )
    out = tmp_path / "out"
    s = run_league(path, out, workers=2, progress=False)
    assert s.complete and s.played == 6
    assert faults_by_bot(out)["shell"] == 0
    shell = {
        (m["match_id"], m["seats"].index("shell"))
        for m in pq.read_table(out / "matches").to_pylist()
    }
    kept = [
        r["cards"]
        for r in pq.read_table(out / "moves").to_pylist()
        if r["kind"] == "keep" and (r["match_id"], r["seat"]) in shell
    ]
    assert len(shell) == 6 and kept and all(k == [0] for k in kept)  # the first die, always


@sandboxed
def test_the_bash_dice_bot_passes_check_bot():
    r = CliRunner().invoke(cli, ["check-bot", "--game", "wuerfel", "--command", f"bash {SCRIPT}"])
    assert r.exit_code == 0 and "PASS" in r.output, r.output
