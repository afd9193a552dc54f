"""The card game as seen by the runner and the replayer (see :class:`bohnarena.game.Game`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..game import MatchResult
from ..league import BotEntry
from ..limits import Limits, Watchdog
from ..plugins import load_bot
from ..remote import remote_seat
from ..seats import BotSeat
from . import records, replay, rules, transcript
from .bot import Bot
from .decisions import DECISIONS
from .match import play_match


class Bohnanza:
    name = "bohnanza"
    title = "Bohnanza"
    version = rules.RULES_VERSION
    layout = records.LAYOUT
    columns = records.COLUMNS
    bot_base = Bot

    def editions(self) -> list[str]:
        return rules.edition_names()

    def player_counts(self, edition: str) -> list[int]:
        return rules.player_counts(edition)

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> rules.RuleSet:
        return rules.ruleset(edition, players, **options)

    def play(
        self, ruleset: rules.RuleSet, seed: int, bots: Sequence[Bot]
    ) -> tuple[MatchResult, list[tuple]]:
        return play_match(ruleset, seed, bots)

    def transcript(self, recs: Iterable[Sequence[Any]], names: Sequence[str]) -> Iterator[str]:
        return transcript.transcript(recs, names)

    shipped_bots = ("planner", "trader", "random")

    def conformance_configs(self) -> list[tuple[str, int, dict[str, Any]]]:
        """Every edition, player count and bean choice a bot must handle."""
        out = []
        for edition in self.editions():
            choices = rules.editions()[edition].get("extra_bean_choices") or [None]
            for players in self.player_counts(edition):
                for extra in choices:
                    out.append((edition, players, {"extra_bean": extra} if extra else {}))
        return out

    def make_seat(
        self,
        entry: BotEntry,
        limits: Limits | None = None,
        watchdog: Watchdog | None = None,
        log: Path | None = None,
        timed: bool = False,
    ) -> Any:
        """A seat for a league's bot: in this process, or in a sandbox process."""
        if entry.isolation == "inprocess":
            assert entry.spec is not None
            # The bot is built in seat.start(), under the limits:
            # its constructor's faults are its own.
            return BotSeat(None, DECISIONS, limits, watchdog, timed, make=load_bot(entry.spec, Bot))
        return remote_seat(self.name, entry, limits, log)

    # -- replay -------------------------------------------------------------
    def verify(
        self, ruleset: rules.RuleSet, seed: int, log: Sequence[tuple]
    ) -> tuple[MatchResult | None, str | None]:
        return replay.verify(ruleset, seed, log)

    def replay_lines(
        self,
        ruleset: rules.RuleSet,
        seed: int,
        log: Sequence[tuple],
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
    ) -> Iterator[str]:
        """The replayed match, move by move, with the table at each turn's start.
        Raises :class:`replay.Divergence` where the log leaves the rules."""
        narrator = transcript.Narrator(names)
        out: list[str] = []

        def emit(i: int, rec: tuple, table: Any) -> None:
            shown = rec if seat is None else records.public(rec, seat)
            if shown is None:
                return
            if as_json:
                out.append(json.dumps(replay.record_dict(i, shown)))
            elif (line := narrator.describe(shown)) is not None:
                out.append(line)
            if rec[0] == "turn":
                state = replay.state(table, seat)
                out.extend(
                    [json.dumps({"move": i, "kind": "table", "state": state})]
                    if as_json
                    else narrator.table(state)
                )

        replay.replay(ruleset, seed, log, on_record=emit)
        return iter(out)

    def table_at(
        self,
        ruleset: rules.RuleSet,
        seed: int,
        log: Sequence[tuple],
        move: int,
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
    ) -> list[str]:
        """The whole table after ``move`` (or what ``seat`` saw of it)."""
        table, _ = replay.replay(ruleset, seed, log, stop_at=move)
        state = replay.state(table, seat)
        rec = log[move]
        shown = rec if seat is None else records.public(rec, seat)
        if as_json:
            return [
                json.dumps(
                    {
                        "move": move,
                        "record": None if shown is None else replay.record_dict(move, shown),
                        "state": state,
                    }
                )
            ]
        narrator = transcript.Narrator(names)
        what = narrator.describe(shown) if shown is not None else None
        head = f"After move {move} ({rec[0] if shown is not None else 'hidden'})"
        return [
            head + (f": {what.strip()}" if what else ""),
            f"  turn {state['turn']}, active seat {state['active']}, phase {state['phase']}",
            *narrator.table(state),
        ]


GAME = Bohnanza()
