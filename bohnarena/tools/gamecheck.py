"""The conformance check of a game (``bohnarena check-game``), as
``check-bot`` (:mod:`.conformance`) is for bots and PettingZoo's
``api_test`` for environments: the game's quick bots (its sparring bots)
play every edition at every player count and every conformance
configuration, and each check is one verdict:

* **rules**: every rule set the game declares builds; every record kind's
  values have a column type;
* **plays**: every match ends, with a result that adds up, records of the
  game's layout, and no fault of its own bots;
* **reproducible**: the same seed plays the same result and records, byte
  for byte (their ``repr``); other seeds play other records;
* **replays**: ``verify`` replays each log to its result, ``transcript``,
  ``replay_lines`` and ``table_at`` show it;
* **views hide** and **wire** (:mod:`.watch`), at every decision of a
  playthrough of each configuration;
* each capability the game declares (``Capabilities``) exercised.

A check a game does not declare what it needs for (a wire, a searchable
state) is skipped, with the reason.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..core.errors import BotLoadError
from ..core.game import Config, Game, MatchResult, Record, capabilities, sparring_bots
from ..core.plugins import load_bot, raised
from ..core.seeding import derive_seed
from ..core.wire import Wire, wire_of
from .bench import playout_roots
from .watch import Watcher, watched

#: The value types of a record's columns (the Parquet logs').
COLUMN_TYPES = ("int", "ints", "str")
ASKED_NONE = "its bots were asked no decision: nothing to check"


@dataclass(frozen=True)
class Verdict:
    """One line of the check: passed (True), failed (False) or not declared (None)."""

    check: str
    passed: bool | None
    reason: str

    def line(self) -> str:
        mark = {True: "pass", False: "FAIL", None: "skip"}[self.passed]
        return f"{mark} {self.check}: {self.reason}"


def summary(verdicts: Sequence[Verdict]) -> str:
    failed = sum(v.passed is False for v in verdicts)
    skipped = sum(v.passed is None for v in verdicts)
    return f"{'FAIL' if failed else 'PASS'}: {len(verdicts)} checks, {failed} failed" + (
        f", {skipped} not declared" if skipped else ""
    )


@dataclass
class Played:
    """A playthrough: its configuration, seed, result and records."""

    label: str
    rules: Any
    seed: int
    result: Any  # what play returned: a MatchResult, if the game keeps to the seam
    records: list[Record]

    def same(self) -> str:
        """The playthrough as bytes (what "the same" means here)."""
        return repr((self.result, self.records))


@dataclass
class Problems:
    """The first problem a check found, and how often it was tried."""

    tried: int = 0
    first: str = ""

    def note(self, problem: str) -> None:
        self.first = self.first or problem

    @contextmanager
    def trying(self, label: str) -> Iterator[None]:
        self.tried += 1
        try:
            yield
        except Exception as e:  # the game's bug: this check's finding
            self.note(f"{label}: raised {raised(e)}")

    def verdict(self, check: str, passed: str) -> Verdict:
        """Passed only if tried (a check of no playthrough passes nothing)."""
        if not self.tried:
            self.note("nothing to check: no rule set played through")
        return Verdict(check, not self.first, self.first or passed)


def bot_class(game: Game, name: str) -> type:
    """The sparring bot ``name``: registered, or (a game not registered
    yet) a bot class whose ``name`` it is in the module of the game's class
    (or of a class it subclasses)."""
    try:
        return load_bot(name, game.bot_base)
    except BotLoadError:
        homes = [vars(sys.modules.get(c.__module__, sys)) for c in type(game).__mro__]
        for thing in (thing for home in homes for thing in home.values()):
            named = getattr(thing, "name", None) == name
            if named and isinstance(thing, type) and issubclass(thing, game.bot_base):
                return thing
        raise


def configs(game: Game) -> list[Config]:
    """Every edition at every player count (no options), then every
    conformance configuration not among them."""
    out: list[Config] = [(e, p, {}) for e in game.editions() for p in game.player_counts(e)]
    for config in game.conformance_configs():
        if config not in out:
            out.append(config)
    return out


def sets(n: int) -> str:
    return f"{n} rule set{'' if n == 1 else 's'}"


def label(config: Config) -> str:
    edition, players, options = config
    extra = " ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{edition} {players}p" + (f" {extra}" if extra else "")


def check_game(
    game: Game, seed: int = 0, progress: Callable[[str], None] | None = None
) -> list[Verdict]:
    """Every check of ``game``; ``progress`` is told each configuration before it plays."""
    rules, verdicts = _rule_sets(game)
    names = sparring_bots(game)
    try:
        classes = [bot_class(game, name) for name in names]
    except BotLoadError as e:
        return [*verdicts, Verdict("plays", False, f"its sparring bots do not load: {e}")]
    wire, schema, schema_note = _wire(game)
    watcher = Watcher(game, wire, schema)
    spies = [watched(c, game.bot_base, watcher) for c in classes]
    plays, repeats, replays = Problems(), Problems(), Problems()
    played: list[Played] = []
    for where, ruleset in rules:
        if progress:
            progress(where)

        def play(bots: list[type], n: int, where: str = where, ruleset: Any = ruleset) -> Played:
            match_seed = derive_seed(seed, "check-game", where, n)
            seats = [bots[i % len(bots)]() for i in range(ruleset.players)]
            result, records = game.play(ruleset, match_seed, seats)
            return Played(where, ruleset, match_seed, result, list(records))

        with plays.trying(where):
            first = play(classes, 0)
            watcher.start(ruleset, derive_seed(seed, "check-game", where, "samples"), where)
            other = play(spies, 1)
            for p in (first, other):
                plays.note(_ended(game, p))
            played.append(first)
            with repeats.trying(where):
                if play(classes, 0).same() != first.same():
                    repeats.note(f"{where}: the same seed played differently")
                elif other.records == first.records and play(classes, 2).records == first.records:
                    repeats.note(f"{where}: three seeds played the same records")
            with replays.trying(where):
                replays.note(_replays(game, first))
    bots = ", ".join(names)
    return [
        *verdicts,
        plays.verdict(
            "plays",
            f"{sets(len(rules))} (every edition at every player count, and "
            f"every conformance configuration), its sparring bots ({bots}) "
            "playing: every match ended, no fault",
        ),
        repeats.verdict(
            "reproducible",
            "the same seed played the same result and records, byte for byte; "
            "other seeds, other records",
        ),
        replays.verdict("replays", "verify, transcript, replay_lines and table_at show every log"),
        *_watched(watcher, schema_note),
        *_capabilities(game, played),
    ]


def _watched(watcher: Watcher, schema_note: str) -> list[Verdict]:
    """The verdicts of what was checked at each decision (:mod:`.watch`)."""
    n, found = watcher.findings.decisions, watcher.findings.problems

    def verdict(name: str, key: str, declared: bool, missing: str, held: str) -> Verdict:
        """A check the game declared passes where no decision found a
        problem and there was a decision to look at."""
        if not declared:
            return Verdict(name, None, missing)
        return Verdict(
            name, key not in found and n > 0, found.get(key) or (held if n else ASKED_NONE)
        )

    return [
        verdict(
            "views hide",
            "hide",
            watcher.hides,
            "not declared: no searchable state (Capabilities.new_state) "
            "to deal a seat's sample from",
            f"{n} views the same in a sample that re-dealt what the seat cannot see",
        ),
        verdict(
            "wire",
            "wire",
            watcher.wire is not None,
            "not declared: the game's bots run in process only (wire = None)",
            f"{n} views, the records they saw, their arguments and answers "
            f"through JSON and back, unchanged; {schema_note}",
        ),
    ]


def _rule_sets(game: Game) -> tuple[list[tuple[str, Any]], list[Verdict]]:
    """The rule set of every configuration, and the ``rules`` verdict."""
    problems = Problems()
    out = []
    with problems.trying("its configurations"):
        for config in configs(game):
            with problems.trying(label(config)):
                out.append((label(config), game.rules(*config)))
    for kind, names in game.layout.items():
        for name in names:
            if game.columns.get(name) not in COLUMN_TYPES:
                problems.note(f"the record {kind}'s {name} has no column type (int, ints, str)")
    if not out:
        problems.note("it declares no edition and player count")
    return out, [problems.verdict("rules", f"{sets(len(out))} build; every record has columns")]


def _wire(game: Game) -> tuple[Wire | None, dict[str, Any] | None, str]:
    """The game's wire module, its protocol's schema, and what is checked of it."""
    if game.wire is None:
        return None, None, ""
    wire = wire_of(game.wire)
    protocol = getattr(wire, "protocol", None)
    if protocol is None:
        return wire, None, "no schema checked (the wire module has no protocol())"
    if importlib.util.find_spec("jsonschema") is None:  # (the test extra's)
        return wire, None, "no schema checked (pip install jsonschema)"
    from ..core.protocol_schema import schema

    return wire, schema(protocol()), "each valid under the protocol's schema"


def _ended(game: Game, p: Played) -> str:
    """What is wrong with a finished playthrough (empty: nothing)."""
    r, players = p.result, p.rules.players
    if not isinstance(r, MatchResult):
        return f"{p.label}: play returned {type(r).__name__}, not a MatchResult"
    if not len(r.coins) == len(r.ranks) == len(r.faults) == players:
        return f"{p.label}: a result of {len(r.coins)} seats for {players} players"
    if r.winners != tuple(s for s in range(players) if r.ranks[s] == 1):
        return f"{p.label}: winners {r.winners} but ranks {r.ranks}"
    if any(r.faults):
        fault = next((rec for rec in p.records if rec[0] == "fault"), ())
        return f"{p.label}: its own bots faulted: {fault!r:.160}"
    for rec in p.records:
        names = game.layout.get(rec[0])
        if names is None or len(rec) != 2 + len(names):
            return f"{p.label}: the record {rec!r:.120} is not of the game's layout"
    return ""


def _replays(game: Game, p: Played) -> str:
    names = [f"bot{i}" for i in range(p.rules.players)]
    result, problem = game.verify(p.rules, p.seed, p.records)
    if problem is not None or result != p.result:
        return f"{p.label}: verify: {problem or f'{result} for {p.result}'}"
    shown = [
        list(game.transcript(p.records, names)),
        list(game.replay_lines(p.rules, p.seed, p.records, names)),
        list(game.replay_lines(p.rules, p.seed, p.records, names, seat=0)),
        game.table_at(p.rules, p.seed, p.records, len(p.records) - 1, names),
    ]
    if not all(lines and all(isinstance(line, str) for line in lines) for lines in shown):
        return f"{p.label}: a transcript, replay or table came back empty or not as text"
    return ""


def _capabilities(game: Game, played: Sequence[Played]) -> list[Verdict]:
    """A verdict per capability the game declares (``sparring_bots``: ``plays``)."""
    declared = capabilities(game)
    out = []
    if declared.new_state is not None:
        states = Problems()
        for p in played:
            with states.trying(p.label):
                for i, root in enumerate(playout_roots(declared.new_state, p.rules, 2, p.seed)):
                    rng = random.Random(i)
                    for state in (root.clone(), root.determinize(root.pending[0], rng)):
                        state.playout(rng)
                        if state.result is None:
                            states.note(f"{p.label}: a playout stopped before the end")
        out.append(states.verdict("capability new_state", "copies and samples play out to the end"))
    if declared.viewer is not None:
        films = Problems()
        for p in played:
            with films.trying(p.label):
                film = declared.viewer().film(p.rules, p.seed, p.records, ["a"] * p.rules.players)
                if len(film.frames) != len(p.records):
                    films.note(f"{p.label}: {len(film.frames)} frames for {len(p.records)} records")
        out.append(films.verdict("capability viewer", "a frame for every record of every log"))
    if declared.log_names is not None:
        named = Problems()
        for p in played:
            with named.trying(p.label):
                table = declared.log_names(p.rules)
                if not all(
                    isinstance(k, str) and all(isinstance(n, str) for n in v)
                    for k, v in table.items()
                ):
                    named.note(f"{p.label}: log_names is not names by id")
        out.append(named.verdict("capability log_names", "names by id for every rule set"))
    return out
