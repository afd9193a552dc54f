"""League files: what a league is, read from TOML and checked up front."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.entry import (
    DEFAULT_PACKAGES,
    ISOLATION_ALIASES,
    ISOLATIONS,
    NAME,
    BotEntry,
    LeagueError,
    bot_entry,
)
from ..core.game import get_game
from ..core.params import Value
from ..core.services import HTTP, with_secrets
from ..referee.limits import Limits
from .schedule import FORMATS, SEATINGS, Schedule, format_tables
from .schedule import seatings as seating_orders

TOP_KEYS = {
    *("name", "game", "edition", "players", "deals", "seed", "rules", "bots", "run", "limits"),
    *("format", "hero", "challenger", "seatings", "packages", "full_tables", "fresh_decks"),
}
RUN_KEYS = {"batch_size", "moves", "workers", "isolation"}
SECRET = "secret"
MAX_DEALS = 10_000_000
MAX_PERMUTED = 7  # 5,040 seatings a deal
#: Below this a master seed can be found by a bot that tries seeds against its own hand.
GUESSABLE = 2**40


@dataclass(frozen=True)
class League:
    name: str
    game: str
    edition: str
    players: int
    deals: int
    seed: int | None  # None: "secret", drawn at the first run and kept in its results
    bots: dict[str, BotEntry]  # by league name, in file order
    rules: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    batch_size: int = 0  # 0: chosen by the runner
    moves: bool = True
    workers: int = 0  # 0: all cores
    source: str = ""  # the file's text, frozen into the results
    format: str = "round-robin"  # or "gauntlet", "paired" (schedule.py)
    hero: str | None = None  # gauntlet and paired: the bot at every table
    challenger: str | None = None  # paired: the bot that takes the hero's place
    seatings: str = "rotations"  # or "permutations"
    file: Path | None = None  # the league file it was read from, if any
    #: round-robin: a new bot plays the full round-robin while that is at
    #: most this many tables per deal, drawn tables beyond (drawn.py); None: always full
    full_tables: int | None = None
    #: A league that grows deals each generation's new matches from decks of
    #: their own (schedule.py), so a finished generation shows nothing of a
    #: match to come; False: every match of a deal shares its deck, all along.
    fresh_decks: bool = False

    def params(self) -> dict[str, dict[str, Value]]:
        """The parameters each bot sets (docs/tuning.md), of the bots that set any."""
        return {name: dict(e.params) for name, e in self.bots.items() if e.params}

    def schedule(self, seed: int | None = None) -> Schedule:
        """The league's schedule; ``seed``: the master seed when it is secret."""
        master = self.seed if seed is None else seed
        assert master is not None, "a secret seed is read from the run before scheduling"
        if self.full_tables is not None:  # (its tables follow from the draw)
            from .growth import Generation, schedule_of

            return schedule_of(self, master, [Generation.of(self)])
        return Schedule(
            self._tables(),
            self.players,
            self.deals,
            master,
            self.seatings,
            fresh_decks=self.fresh_decks,
        )

    def _tables(self) -> tuple[tuple[str, ...], ...]:
        found = format_tables(
            list(self.bots), self.players, self.format, self.hero, self.challenger
        )
        return tuple(found)

    @property
    def per_deal(self) -> int:
        """Matches per deal (the seed changes no count; drawn tables play
        one deal each, so with ``full_tables`` it is the mean)."""
        if self.full_tables is not None:
            return self.match_count // self.deals
        return len(self._tables()) * len(seating_orders(self.players, self.seatings))

    @property
    def match_count(self) -> int:
        """Matches in the whole league."""
        if self.full_tables is not None:
            return len(self.schedule(0))
        return self.per_deal * self.deals

    def format_facts(self) -> dict[str, Any]:
        """The schedule's shape, kept in run.json (an older run has none:
        round-robin with rotations)."""
        return {
            "format": self.format,
            "hero": self.hero,
            "challenger": self.challenger,
            "seatings": self.seatings,
        }


def guessable_seed(league: League) -> bool:
    """A league with out-of-process (untrusted) bots whose master seed a bot
    could find by trying small seeds: every hand and the draw order follow."""
    return (
        league.seed is not None
        and abs(league.seed) < GUESSABLE
        and any(b.isolation in ("sandbox", HTTP) for b in league.bots.values())
    )


def with_secrets_dir(league: League, secrets: Path | None) -> League:
    """``league`` as it may be played: each served bot's token named where
    the organiser puts tokens, its token files in ``secrets`` (services.py).
    Raises UsageError in one line."""
    bots = {
        name: replace(e, service=with_secrets(e.service, secrets, f"bot {name!r}"))
        for name, e in league.bots.items()
        if e.service is not None
    }
    return replace(league, bots={**league.bots, **bots}) if bots else league


def load_league(path: str | Path, frozen: bool = False) -> League:
    """``frozen``: a results directory's copy, read as data (the files it
    names, a model's system prompt, are not beside it)."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as e:
        raise LeagueError(f"cannot read league file {p}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise LeagueError(f"{p} is not UTF-8 text (byte {e.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LeagueError(f"{p} is not valid TOML: {e}") from None
    base = None if frozen else p.resolve().parent
    return replace(parse_league(data, text, str(p), base), file=p.resolve())


def _get(
    data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = ...
) -> Any:
    if key not in data:
        if default is ...:
            raise LeagueError(f"{where}: missing key {key!r}")
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise LeagueError(f"{where}: {key} must be {names}, not {value!r}")
    return value


def parse_league(
    data: dict[str, Any], text: str = "", where: str = "league", base: Path | None = None
) -> League:
    """``base``: the league file's directory, against which a command's
    relative paths are resolved."""
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise LeagueError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(TOP_KEYS))})"
        )
    name = _get(data, "name", str, where)
    if not NAME.match(name):
        raise LeagueError(f"{where}: name {name!r} must be letters, digits, '.', '_' or '-'")
    game = get_game(_get(data, "game", str, where, "bohnanza"))
    edition = _get(data, "edition", str, where, game.editions()[0])
    if edition not in game.editions():
        raise LeagueError(
            f"{where}: unknown edition {edition!r} (known: {', '.join(game.editions())})"
        )
    players = _get(data, "players", int, where)
    deals = _get(data, "deals", int, where)
    seed = _get(data, "seed", (int, str), where, 0)
    if isinstance(seed, bool) or (isinstance(seed, str) and seed != SECRET):
        raise LeagueError(f'{where}: seed must be a whole number or "{SECRET}", not {seed!r}')
    if seed == SECRET:
        seed = None
    if not 1 <= deals <= MAX_DEALS:
        raise LeagueError(f"{where}: deals must be from 1 to {MAX_DEALS:,}")
    rules = _get(data, "rules", dict, where, {})
    game.rules(edition, players, rules)  # checks player count and rule options
    run = _get(data, "run", dict, where, {})
    isolation = _get(run, "isolation", str, f"{where} [run]", "inprocess")
    isolation = ISOLATION_ALIASES.get(isolation, isolation)
    if isolation not in ISOLATIONS:
        raise LeagueError(f"{where}: run.isolation must be one of {', '.join(ISOLATIONS)}")
    raw = _get(data, "bots", dict, where)
    if not raw:
        raise LeagueError(f"{where}: [bots] is empty")
    packages = _packages(data, where)
    bots = {
        name: replace(bot_entry(name, value, isolation, where, base), packages=packages)
        for name, value in raw.items()
    }
    unknown = sorted(set(run) - RUN_KEYS)
    if unknown:
        raise LeagueError(
            f"{where}: unknown key run.{unknown[0]} (known: {', '.join(sorted(RUN_KEYS))})"
        )
    shape = _format(data, bots, players, where)
    full_tables = _get(data, "full_tables", int, where, None)
    if full_tables is not None and (full_tables < 1 or shape[0] != "round-robin"):
        raise LeagueError(f"{where}: full_tables must be a whole number from 1, in a round-robin")
    batch = _get(run, "batch_size", int, f"{where} [run]", 0)
    workers = _get(run, "workers", int, f"{where} [run]", 0)
    if batch < 0 or workers < 0:
        raise LeagueError(f"{where}: run.batch_size and run.workers must not be negative")
    return League(
        name=name,
        game=game.name,
        edition=edition,
        players=players,
        deals=deals,
        seed=seed,
        bots=bots,
        rules=dict(rules),
        batch_size=batch,
        limits=Limits.parse(_get(data, "limits", dict, where, {}), f"{where} [limits]"),
        moves=_get(run, "moves", bool, f"{where} [run]", True),
        workers=workers,
        source=text,
        format=shape[0],
        seatings=shape[1],
        hero=shape[2].get("hero"),
        challenger=shape[2].get("challenger"),
        full_tables=full_tables,
        fresh_decks=_get(data, "fresh_decks", bool, where, False),
    )


def _packages(data: dict[str, Any], where: str) -> tuple[str, ...]:
    """The league's ``packages``: names of installed packages (import or
    distribution names), checked for shape here and found when a run starts."""
    packages = _get(data, "packages", list, where, list(DEFAULT_PACKAGES))
    for name in packages:
        if not isinstance(name, str) or not NAME.match(name):
            raise LeagueError(f"{where}: packages must be a list of package names, not {name!r}")
    return tuple(dict.fromkeys(packages))


def _format(
    data: dict[str, Any], bots: dict[str, BotEntry], players: int, where: str
) -> tuple[str, str, dict[str, str]]:
    """The schedule's keys, checked: format, hero, challenger, seatings."""
    fmt = _get(data, "format", str, where, "round-robin")
    if fmt not in FORMATS:
        raise LeagueError(f"{where}: format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    seatings = _get(data, "seatings", str, where, "rotations")
    if seatings not in SEATINGS:
        raise LeagueError(f"{where}: seatings must be one of {', '.join(SEATINGS)}")
    if players > MAX_PERMUTED and seatings == "permutations":
        raise LeagueError(f"{where}: permutations of more than {MAX_PERMUTED} seats are too many")
    roles = {"gauntlet": ("hero",), "paired": ("hero", "challenger")}.get(fmt, ())
    found: dict[str, str] = {}
    for role in ("hero", "challenger"):
        if role not in roles:
            if role in data:
                raise LeagueError(f'{where}: {role} goes with format = "{fmt}"')
            continue
        name = _get(data, role, str, where)
        if name not in bots:
            raise LeagueError(f"{where}: {role} {name!r} is not a bot of [bots]")
        found[role] = name
    if len(set(found.values())) < len(found):
        raise LeagueError(f"{where}: the hero and the challenger must be different bots")
    if roles and len(bots) == len(found):
        raise LeagueError(f"{where}: a {fmt} needs at least one opponent in [bots]")
    return fmt, seatings, found
