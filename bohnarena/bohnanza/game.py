"""The card game as seen by the runner and the replayer (see :class:`bohnarena.core.game.Game`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.game import Capabilities, Config, Game, MatchResult, Record
from ..core.textplay import TextLayer
from ..viewer.film import Viewer
from . import records, replay, rules
from .bot import Bot
from .decisions import DECISIONS
from .match import play_match
from .rules import RuleSet
from .state import State


def _log_names(ruleset: RuleSet) -> dict[str, tuple[str, ...]]:
    # every variety of every edition, by the id the logs hold
    return {"variety": tuple(v.name for v in ruleset.varieties)}


def _text() -> TextLayer:
    from .textlayer import TEXT

    return TEXT


def _viewer() -> Viewer:
    from .viewer import VIEWER

    return VIEWER


class Bohnanza:
    name = "bohnanza"
    title = "Bohnanza"
    version = rules.RULES_VERSION
    layout = records.LAYOUT
    columns = records.COLUMNS
    bot_base = Bot
    decisions = DECISIONS
    wire = "bohnarena.bohnanza.wire"
    shipped_bots = ("planner", "trader", "random", "beancounter")
    capabilities = Capabilities(
        new_state=State,
        # The quick, clock-free ones: conformance and compare opponents (the
        # bean counter searches ~20 ms a decision, and its wall-clock cap can
        # change a match on a busy machine, which check-bot would call the
        # checked bot's nondeterminism).
        sparring_bots=("planner", "trader", "random"),
        viewer=_viewer,
        log_names=_log_names,
        text=_text,
    )

    def editions(self) -> list[str]:
        return rules.edition_names()

    def player_counts(self, edition: str) -> list[int]:
        return rules.player_counts(edition)

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> RuleSet:
        return rules.ruleset(edition, players, **options)

    def conformance_configs(self) -> list[Config]:
        """Every edition, player count and bean choice a bot must handle."""
        out: list[Config] = []
        for edition in self.editions():
            choices = rules.editions()[edition].get("extra_bean_choices") or [None]
            for players in self.player_counts(edition):
                for extra in choices:
                    out.append((edition, players, {"extra_bean": extra} if extra else {}))
        return out

    def play(
        self, ruleset: RuleSet, seed: int, bots: Sequence[Bot]
    ) -> tuple[MatchResult, list[Record]]:
        return play_match(ruleset, seed, bots)

    transcript = replay.REPLAYER.transcript
    verify = replay.REPLAYER.verify
    replay_lines = replay.REPLAYER.replay_lines
    table_at = replay.REPLAYER.table_at


GAME: Game = Bohnanza()
