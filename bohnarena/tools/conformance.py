"""The conformance check of a bot (``bohnarena check-bot``), in the spirit
of fastchess ``--compliance`` and PettingZoo's ``api_test``: the bot plays
every seat of every player count of every rule set against the shipped
bots (or of the rule sets given: a ladder checks its own), twice, and must
never fault and must play the same moves both times (its notes may differ).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.entry import BotEntry
from ..core.faults import fault_type
from ..core.game import Config, Game, sparring_bots
from ..core.seeding import derive_seed
from ..referee.limits import Limits, Watchdog
from ..run.seating import make_seat

#: Where a served bot's median decision sits when its small answers wait
#: for the engine's delayed ACK (Nagle's algorithm on the service's socket):
#: Linux delays an ACK 40 ms, so nearly every decision takes 43-48 ms (the
#: middle half within 4 ms on loopback, a quick bot; docs/http-bots.md).
NAGLE_SECONDS = (0.035, 0.050)
#: ... and the spread of its middle half at most.
NAGLE_SPREAD = 0.010


@dataclass
class Report:
    matches: int = 0
    faults: Counter[str] = field(default_factory=Counter)  # by kind ("illegal", "timeout", ...)
    examples: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    nondeterministic: list[str] = field(default_factory=list)
    stopped: str = ""
    served: bool = False  # a bot served over HTTP
    http_versions: set[str] = field(default_factory=set)  # what its answers were in

    @property
    def passed(self) -> bool:
        return not self.faults and not self.nondeterministic

    def lines(self) -> list[str]:
        out = [
            f"matches played: {self.matches} (each twice, for determinism)"
            + (f"; {self.stopped}" if self.stopped else "")
        ]
        if self.times:
            p99 = statistics.quantiles(self.times, n=100)[98] if len(self.times) > 1 else 0.0
            out.append(
                f"decision time: median {statistics.median(self.times) * 1e6:.1f} µs, "
                f"99th percentile {p99 * 1e3:.2f} ms, worst {max(self.times) * 1e3:.2f} ms "
                f"over {len(self.times)} decisions"
            )
        out += self.warnings()
        out.append(
            "faults: " + (", ".join(f"{k} {n}" for k, n in sorted(self.faults.items())) or "none")
        )
        out += [f"  e.g. {e}" for e in self.examples[:5]]
        out.append(
            "same seed, same moves: "
            + (
                "yes"
                if not self.nondeterministic
                else f"NO, in {len(self.nondeterministic)} matches, e.g. {self.nondeterministic[0]}"
            )
        )
        out.append("PASS" if self.passed else "FAIL")
        return out

    def warnings(self) -> list[str]:
        """What slows a served bot down that a service can fix (docs/http-bots.md)."""
        out = []
        if "HTTP/1.0" in self.http_versions:
            out.append(
                "warning: the service answers in HTTP/1.0, which closes the connection after "
                "every answer: each decision pays for a new one (answer in HTTP/1.1 to keep it)"
            )
        if self.served and len(self.times) >= 4:
            q1, median, q3 = statistics.quantiles(self.times, n=4)
            low, high = NAGLE_SECONDS
            if low <= median <= high and q3 - q1 <= NAGLE_SPREAD:
                out.append(
                    f"warning: nearly every decision takes {median * 1e3:.0f} ms, as when a "
                    "service's answers wait for delayed ACKs (Nagle's algorithm): set "
                    "TCP_NODELAY on its accepted sockets (docs/http-bots.md)"
                )
        return out


def _shown(options: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(options.items()))


def _moves(records: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A match's records but the bots' notes: a note may say what varies
    (the time left), a move may not."""
    return [r for r in records if r[0] != "note"]


def check_bot(
    game: Game,
    entry: BotEntry,
    limits: Limits,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    stop_after: int = 20,
    log: Path | None = None,
    configs: Sequence[Config] | None = None,
) -> Report:
    """Stops early once ``stop_after`` faults have shown the bot fails;
    ``log``: where an out-of-process bot's stderr goes; ``configs``: the
    rule sets played (default: every one the game declares)."""
    report = Report(served=entry.service is not None)
    opponents = [BotEntry(name, spec=name) for name in sparring_bots(game)]
    with Watchdog() as watchdog:
        for edition, players, options in configs or game.conformance_configs():
            rules = game.rules(edition, players, options)
            for seat in range(players):
                label = " ".join(filter(None, [edition, f"{players}p", _shown(options)]))
                label += f" seat {seat}"
                if progress:
                    progress(label)
                match_seed = derive_seed(seed, edition, players, str(sorted(options.items())), seat)
                runs = []
                for _ in range(2):
                    seats = [opponents[i % len(opponents)] for i in range(players)]
                    seats[seat] = entry
                    live = [
                        make_seat(game, e, limits, watchdog, log if i == seat else None, i == seat)
                        for i, e in enumerate(seats)
                    ]
                    _result, records = game.play(rules, match_seed, live)
                    runs.append(records)
                    report.times += live[seat].times or []
                    # a served bot's endpoint notes the HTTP versions it answered in
                    endpoint = getattr(live[seat], "endpoint", None)
                    report.http_versions |= getattr(endpoint, "versions", set())
                report.matches += 1
                for rec in runs[0]:
                    if rec[0] == "fault" and rec[1] == seat:
                        kind = fault_type(rec[3])
                        report.faults[kind] += 1
                        if len(report.examples) < 5:
                            report.examples.append(f"{label}: {rec[2]}: {rec[3]}")
                if _moves(runs[0]) != _moves(runs[1]):
                    report.nondeterministic.append(label)
                if sum(report.faults.values()) >= stop_after:
                    report.stopped = f"stopped early after {stop_after} faults"
                    return report
    return report
