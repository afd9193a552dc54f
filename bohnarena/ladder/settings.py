"""A ladder's settings (``ladder.toml``): the league its active versions
play, checked as a league file is, and what a submission may be."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.entry import NAME, LeagueError
from ..core.errors import UsageError
from ..league.file import SECRET, League, parse_league, with_secrets_dir

SETTINGS = "ladder.toml"
#: The league of the active versions, written by each ``ladder run``, and its results.
LEAGUE = "league.toml"
RESULTS = "results"
#: Keys of the ladder's own; every other key is the league's (docs/leagues.md).
OWN_KEYS = {"isolation", "max_submission_mb", "allow_private", "secrets", "suspend_fault_share"}
OWN_KEYS |= {"run_every_minutes"}
#: What a submission may hold besides bytes: key -> (default, most allowed).
#: Depth stays far below the interpreter's recursion limit: whatever walks
#: a bot's tree later (os.walk recurses once a level) never meets it.
COUNTS = {"max_files": (10_000, 1_000_000), "max_dirs": (2_000, 100_000), "max_depth": (32, 100)}
OWN_KEYS |= set(COUNTS)
#: Where a submission runs: never in the organiser's process.
ISOLATIONS = ("sandbox", "process")
LEAGUE_KEYS = {"name", "game", "edition", "players", "deals", "seed", "rules", "limits"}
LEAGUE_KEYS |= {"packages", "run", "seatings", "full_tables", "fresh_decks"}
#: A newcomer's full round-robin while it is at most this many tables a deal
#: (9 entries at 4-player tables: 56), drawn tables beyond (league/drawn.py).
DEFAULT_FULL_TABLES = 100
DEFAULT_MAX_MB = 50
#: A version that faults in more than this share of its matches in a run is suspended.
DEFAULT_FAULT_SHARE = 0.2

TEMPLATE = """\
# A ladder (docs/ladder.md). Every key but the last eight is a league file's.
name = "{name}"
game = "bohnanza"
edition = "classic"
players = 4
deals = 10              # deals every table of a new version plays
full_tables = 100       # beyond this many tables a deal, a new version plays
                        # `deals` deals at tables drawn for it (docs/ladder.md)
seed = "secret"         # drawn at the first run, kept where no bot reads it
fresh_decks = true      # each run's new matches dealt from decks of their own, so
                        # the site may show a finished run's matches (docs/site.md)
packages = ["bohnarena_bots"]  # what a submission may import and require
isolation = "sandbox"   # or "process" (trusted authors only)
max_submission_mb = 50  # the largest submission, unpacked
max_files = 10000       # ... and the most files, directories and levels
max_dirs = 2000         #     of nesting it may hold
max_depth = 32
allow_private = false   # may a bot submitted as a URL be on a loopback/private address
suspend_fault_share = 0.2  # a version faulting in more of its matches of a run is suspended
run_every_minutes = 0   # ladder serve: a run this often besides a new version's (0: none)

[run]
workers = 0             # 0: all cores
"""


class LadderError(UsageError):
    """A ladder that cannot do what was asked, said in one line."""


@dataclass(frozen=True)
class Settings:
    data: dict[str, Any]  # the league's keys as written
    isolation: str
    max_bytes: int
    #: Whether a bot submitted as a URL may be on a loopback or private
    #: address (a league file's ``allow_private``, for every such bot).
    allow_private: bool = False
    #: The directory of served bots' token files (``secrets``, relative to
    #: the ladder; ``--secrets`` on the command line names another).
    secrets: Path | None = None
    #: Suspended after a run in more than this share of whose matches it faulted.
    suspend_fault_share: float = DEFAULT_FAULT_SHARE
    max_files: int = COUNTS["max_files"][0]
    max_dirs: int = COUNTS["max_dirs"][0]
    max_depth: int = COUNTS["max_depth"][0]
    #: ``ladder serve``'s player runs the ladder this often (seconds) even
    #: when no version became active; 0: only when one did.
    run_every: float = 0.0

    def with_secrets(self, secrets: Path | None) -> Settings:
        """These settings with the secrets directory given on the command line, if any."""
        return self if secrets is None else replace(self, secrets=secrets.resolve())

    @property
    def packages(self) -> tuple[str, ...]:
        return self._sample.bots["check"].packages

    @property
    def players(self) -> int:
        """Seats at a table: what a submission's check plays, each seat in turn."""
        return self._sample.players

    @property
    def _sample(self) -> League:
        """The league of these settings with one bot in it."""
        return self.league({"check": {"command": ["true"]}})

    def league(self, bots: dict[str, Any], base: Path | None = None) -> League:
        """The league of ``bots`` (league name -> a bot table) under these
        settings, parsed and checked as a league file is, its tokens where
        the organiser keeps them."""
        league = parse_league({**self.data, "bots": bots}, "", "ladder.toml", base)
        return with_secrets_dir(league, self.secrets)


def load_settings(ladder: Path) -> Settings:
    path = ladder / SETTINGS
    try:
        text = path.read_text("utf-8")
    except OSError as e:
        raise LadderError(
            f"{ladder} is not a ladder (no {SETTINGS}: {e.strerror or e}); "
            "make one with bohnarena ladder init"
        ) from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise LadderError(f"{path} is not valid TOML: {e}") from None
    return parse_settings(data, ladder.resolve().name, ladder)


def parse_settings(data: dict[str, Any], default_name: str, ladder: Path = Path()) -> Settings:
    unknown = sorted(set(data) - LEAGUE_KEYS - OWN_KEYS)
    if unknown:
        known = ", ".join(sorted(LEAGUE_KEYS | OWN_KEYS))
        raise LadderError(f"ladder.toml: unknown key {unknown[0]!r} (known: {known})")
    league = {k: v for k, v in data.items() if k in LEAGUE_KEYS}
    league.setdefault("name", default_name if NAME.match(default_name) else "ladder")
    league.setdefault("seed", SECRET)
    league.setdefault("full_tables", DEFAULT_FULL_TABLES)
    isolation = data.get("isolation", "sandbox")
    if isolation not in ISOLATIONS:
        raise LadderError(f"ladder.toml: isolation must be one of {', '.join(ISOLATIONS)}")
    size = data.get("max_submission_mb", DEFAULT_MAX_MB)
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 10_000:
        raise LadderError("ladder.toml: max_submission_mb must be a whole number from 1 to 10000")
    allow = data.get("allow_private", False)
    if not isinstance(allow, bool):
        raise LadderError("ladder.toml: allow_private must be true or false")
    secrets = data.get("secrets")
    if secrets is not None and (not isinstance(secrets, str) or not secrets):
        raise LadderError("ladder.toml: secrets must name a directory")
    home = None if secrets is None else (ladder / secrets).resolve()
    share = data.get("suspend_fault_share", DEFAULT_FAULT_SHARE)
    if not isinstance(share, int | float) or isinstance(share, bool) or not 0 <= share <= 1:
        raise LadderError("ladder.toml: suspend_fault_share must be a number from 0 to 1")
    every = data.get("run_every_minutes", 0)
    if not isinstance(every, int | float) or isinstance(every, bool) or not 0 <= every <= 525_600:
        raise LadderError("ladder.toml: run_every_minutes must be a number from 0 to 525600")
    counts = {}
    for key, (default, most) in COUNTS.items():
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
            raise LadderError(f"ladder.toml: {key} must be a whole number from 1 to {most}")
        counts[key] = value
    settings = Settings(
        league, isolation, size << 20, allow, home, float(share), **counts, run_every=every * 60.0
    )
    try:
        settings.league({"check": {"command": ["true"]}})  # every league key checked
    except LeagueError as e:
        raise LadderError(str(e)) from None
    return settings
