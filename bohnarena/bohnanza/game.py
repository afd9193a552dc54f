"""The card game as seen by the runner (see :class:`bohnarena.game.Game`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..game import MatchResult
from . import records, rules, transcript
from .bot import Bot
from .match import play_match


class Bohnanza:
    name = "bohnanza"
    title = "Bohnanza"
    layout = records.LAYOUT
    columns = records.COLUMNS
    bot_base = Bot

    def editions(self) -> list[str]:
        return rules.edition_names()

    def player_counts(self, edition: str) -> list[int]:
        return rules.player_counts(edition)

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> rules.RuleSet:
        return rules.ruleset(edition, players, **options)

    def play(self, ruleset: rules.RuleSet, seed: int,
             bots: Sequence[Bot]) -> tuple[MatchResult, list[tuple]]:
        return play_match(ruleset, seed, bots)

    def transcript(self, recs: Iterable[Sequence[Any]], names: Sequence[str]) -> Iterator[str]:
        return transcript.transcript(recs, names)


GAME = Bohnanza()
