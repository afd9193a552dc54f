"""The ``new-bot`` template plays a sensible plan: it clearly beats random."""

from __future__ import annotations

from pathlib import Path

import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.core.plugins import load_bot
from bohnarena.tools.newbot import create
from bohnarena_bots.random_bot import RandomBot

MATCHES = 40


def template_bot(tmp_path: Path) -> type[Bot]:
    root, module = create("plan-check", tmp_path)
    cls: type[Bot] = load_bot(f"{root / module / 'bot.py'}:PlanCheckBot", Bot)
    return cls


@pytest.mark.slow
def test_template_beats_three_randoms_in_most_matches(tmp_path: Path) -> None:
    cls = template_bot(tmp_path)
    rules = ruleset("classic", 4)
    wins = coins = 0
    for seed in range(MATCHES):
        seat = seed % 4  # every seat in turn
        players: list[Bot] = [RandomBot() for _ in range(4)]
        players[seat] = cls()
        result, _ = play_match(rules, seed, players)
        assert result.faults == (0, 0, 0, 0)
        wins += result.winners == (seat,)
        coins += result.coins[seat]
    print(f"template vs 3 random: {wins}/{MATCHES} won outright, {coins / MATCHES:.1f} coins")
    assert wins >= 0.6 * MATCHES  # a random seat wins about a quarter
