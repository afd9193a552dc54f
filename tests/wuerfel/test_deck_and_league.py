"""The shipped deck's design checks, any deck file, and a dice-game league end to end."""

import tomllib
from collections import Counter
from importlib import resources

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.errors import RulesError
from bohnarena.wuerfel.make_deck import SHARES, kind_of
from bohnarena.wuerfel.rules import check_deck, ruleset


def shipped():
    text = resources.files("bohnarena.wuerfel").joinpath("data", "harvest_cards.toml").read_text()
    return tomllib.loads(text)["card"]


@pytest.mark.slow
def test_every_shipped_card_follows_the_design_rule_and_prints_exact_chances():
    rules = ruleset("standard", 3)
    cards = shipped()
    assert len(rules.deck) == len(cards) == 61  # "Contents: 61 harvest cards"
    assert all(len(card) == 6 for card in rules.deck)
    assert check_deck(rules.deck, rules.faces, [c["chance"] for c in cards]) == []


def test_the_deck_uses_every_order_kind_the_text_names_in_the_documented_shares():
    kinds = Counter(kind_of(order.text) for card in ruleset("standard", 3).deck for order in card)
    assert set(kinds) == set(SHARES)
    total = sum(kinds.values())
    for kind, share in SHARES.items():
        assert abs(kinds[kind] / total - share) < 0.02, kind
    named = [order.text for card in ruleset("standard", 3).deck for order in card]
    for text in ("kind:4", "none:blue", "triples:2", "pairs:3", "different:6", "house:3+2 soy"):
        assert text in named  # the text's own examples


@pytest.mark.slow
def test_a_deck_file_that_breaks_the_rules_is_caught(tmp_path):
    bad = tmp_path / "deck.toml"
    good = "\n".join(f"[[card]]\norders = {c['orders']!r}".replace("'", '"') for c in shipped())
    bad.write_text('[[card]]\norders = ["soy", "soy", "soy", "soy", "blue", "red:3"]\n' + good)
    rules = ruleset("standard", 3, deck_file=str(bad))
    problems = check_deck(rules.deck, rules.faces)
    assert any(p.startswith("card 0: one set of dice meets 6 orders in a row") for p in problems)
    short = tmp_path / "short.toml"
    short.write_text('[[card]]\norders = ["soy"]\n' + good)
    with pytest.raises(RulesError, match="has 1 orders, not 6"):
        ruleset("standard", 3, deck_file=str(short))


@pytest.mark.slow
def test_dice_league_runs_ranks_logs_and_replays(tmp_path):
    league = tmp_path / "w.toml"
    league.write_text(
        'name = "w"\ngame = "wuerfel"\nplayers = 3\ndeals = 20\nseed = 2\n'
        '[bots]\ngreedy = "wuerfel-greedy"\nrandom = "wuerfel-random"\n'
        'random-b = "wuerfel-random"\n'
    )
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(league), "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[1].split()[1] == "greedy"  # ranked first
    v = CliRunner().invoke(cli, ["replay", str(out), "--verify-all", "-j", "2"])
    assert v.exit_code == 0 and "verified 60 matches" in v.output
    t = CliRunner().invoke(cli, ["replay", str(out), "-m", "3"])
    assert "rolls" in t.output and "sets aside" in t.output and "[draw pile" in t.output


def test_play_dice_game_and_bad_input():
    r = CliRunner().invoke(
        cli, ["play", "--game", "wuerfel", "-s", "1", "wuerfel-greedy", "wuerfel-random"]
    )
    assert r.exit_code == 0 and "Winner:" in r.output and "rolls" in r.output
    for args, message in (
        (["planner", "planner"], "not a bot class"),
        (["wuerfel-greedy"], "2, 3, 4, 5 players"),
        (["-o", "early_stop=3", "wuerfel-greedy", "wuerfel-random"], "early_stop"),
    ):
        r = CliRunner().invoke(cli, ["play", "--game", "wuerfel", *args])
        assert r.exit_code == 2 and message in r.output


@pytest.mark.slow
def test_check_bot_for_the_dice_game():
    r = CliRunner().invoke(cli, ["check-bot", "--game", "wuerfel", "wuerfel-greedy"])
    assert r.exit_code == 0, r.output
