"""What the site shows of a ladder, read from its catalog and results: the
standings, an entry, its matches (found as ``bohnarena matches`` finds
them), the public part of ``run.json``, the files it offers for download.

Nothing shown may predict a match not yet played. Without ``fresh_decks``
every match of a deal is dealt from the same deck the whole season long
(its seed follows from the master seed and the deal alone: league/growth.py),
so a finished match's moves, its seed, its viewer page and its seats' stderr
and notes show the deck of every match of that deal still to come, a new
version's too: they are shown once the season's seed is revealed
(``reveal.json`` beside ``run.json``: ``bohnarena reveal``). With
``fresh_decks`` (what ``ladder init`` writes) each run deals its new matches
from decks of their own, so the matches of every run that has finished are
shown, and those of a run still playing (or cut short) are not: :func:`veil`."""

from __future__ import annotations

import functools
import json
import math
import threading
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis.notable import SORTS, Found, Query, find, scores
from ..analysis.results import LeagueResults, read_results
from ..core.errors import BohnarenaError
from ..ladder import live, player
from ..ladder.catalog import Catalog, Version
from ..ladder.settings import RESULTS
from ..run.replay import Run
from ..run.verify import REVEAL, public_meta
from ..store import layout
from ..store.parts import ResultsError
from ..store.reading import RunReader

#: The Parquet tables offered for download.
TABLES = (layout.MATCHES, layout.MOVES, layout.TIMING, layout.EXCHANGES)
#: The results' other files offered (run.json only as its public part).
FILES = (layout.MANIFEST, layout.NAMES)
#: Viewer pages kept made (each some hundreds of kB).
PAGES = 32
HIDDEN = (
    "shown when the season's seed is revealed: every match of a deal is dealt from "
    "the same deck all season, so a finished match would show the deck of the "
    "matches of its deal still to come"
)
PLAYING = (
    "shown when the run that plays them has finished: the matches of a run are dealt "
    "from decks of their own, and those still to come share them"
)


def results_of(ladder: Path) -> Path:
    return ladder / RESULTS


@dataclass(frozen=True)
class Veil:
    """What of the season's matches is not shown yet (the matches with ids
    from ``first``) and why (``reason``; None: nothing is hidden)."""

    reason: str | None = None
    first: int = 0

    def hides(self, match_id: int) -> bool:
        """Whether the contents of match ``match_id`` are hidden."""
        return self.reason is not None and match_id >= self.first


def veil(ladder: Path) -> Veil:
    """What the site may not show yet of the matches' contents (moves, seeds,
    viewer pages, notes; a bot's stderr and the Parquet parts while anything
    is hidden): everything until the reveal, or with ``fresh_decks`` the
    matches of the run still playing, cut short or due."""
    path = results_of(ladder)
    if (path / REVEAL).is_file() or not (path / layout.RUN_JSON).is_file():
        return Veil()
    try:
        fresh = tomllib.loads((path / layout.LEAGUE).read_text("utf-8")).get("fresh_decks")
    except (OSError, ValueError):
        fresh = False
    if fresh is not True:
        return Veil(HIDDEN)
    playing = live.read(ladder) is not None or (ladder / player.DUE).exists()
    manifest = path / layout.MANIFEST
    stamp = manifest.stat().st_mtime_ns if manifest.is_file() else 0
    first, done = _last_generation(path, stamp, (path / layout.RUN_JSON).stat().st_mtime_ns)
    return Veil(PLAYING, first) if playing or not done else Veil()


@functools.lru_cache(maxsize=8)  # (per request otherwise: the manifest read for every page)
def _last_generation(path: Path, *_stamps: int) -> tuple[int, bool]:
    """The first id of the results' last generation, and whether all of
    its matches are played (``_stamps``: what a change of either shows in)."""
    reader = RunReader(path)
    generations = reader.meta().get("generations") or []
    if not generations:  # (a run before leagues grew: generation 0, its count unknown)
        return 0, False
    first, count = int(generations[-1]["first_id"]), int(generations[-1]["matches"])
    return first, sum(1 for i in reader.done_ids() if i >= first) >= count


@dataclass(frozen=True)
class Row:
    """A version in the standings."""

    version: Version
    rating: tuple[float, float, float, int, int] | None  # mu, sigma, score, matches, wins

    @property
    def interval(self) -> tuple[float, float] | None:
        """Its skill's interval, mu plus or minus three sigma (the score is its low end)."""
        if self.rating is None:
            return None
        mu, sigma = self.rating[:2]
        return mu - 3 * sigma, mu + 3 * sigma

    def as_json(self) -> dict[str, Any]:
        v, r = self.version, self.rating
        out: dict[str, Any] = {"entry": v.name, "version": v.bot, "state": v.state}
        if r is not None:
            mu, sigma, score, matches, wins = r
            out |= {"score": score, "mu": mu, "sigma": sigma, "matches": matches, "wins": wins}
        if v.state != "active":
            out["reason"] = v.reason
        return out


def standings(catalog: Catalog) -> tuple[list[Row], list[Row]]:
    """The active versions by score after the last run that rated them
    (those no run played yet last), and the suspended and retired ones
    apart, at their last rating (as ``ladder rank``)."""
    rated = catalog.last_ratings()
    active = [Row(v, rated.get(v.id)) for v in catalog.active()]
    active.sort(key=lambda r: -(r.rating[2] if r.rating else -math.inf))
    apart = [Row(v, rated.get(v.id)) for v in catalog.versions(states=("suspended", "retired"))]
    return active, apart


def version_json(v: Version) -> dict[str, Any]:
    """A version as the API and its poll show it (its reason escaped where shown)."""
    return {
        "id": v.id,
        "entry": v.name,
        "version": v.bot,
        "kind": v.kind,
        "source": v.source,
        "state": v.state,
        "reason": v.reason,
        "submitted": v.submitted,
        "changed": v.changed,
    }


def public_run(ladder: Path) -> dict[str, Any] | None:
    """run.json without its secret seed and salt (None: no run yet)."""
    path = results_of(ladder)
    if not (path / layout.RUN_JSON).is_file():
        return None
    return public_meta(RunReader(path).meta())


def downloads(ladder: Path) -> dict[str, list[str]]:
    """The files offered, by table: each committed Parquet part (as the
    manifest lists it) and the results' public files."""
    path = results_of(ladder)
    if not (path / layout.MANIFEST).is_file():
        return {}
    listing = RunReader(path).listing()
    found = {t: [f.name for _, f in listing.files(t)] for t in TABLES}
    found["files"] = [f for f in FILES if (path / f).is_file()]
    return found


def download_path(ladder: Path, table: str, name: str) -> Path | None:
    """The file ``name`` of ``table`` if it is one :func:`downloads` offers
    (the name compared whole, so no path the client sends reaches the disk)."""
    offered = downloads(ladder).get(table, [])
    if name not in offered:
        return None
    path = results_of(ladder)
    return path / name if table == "files" else path / table / name


class MatchCache:
    """The results read, and opened for replay, once per change of the
    manifest (a run commits a part: the next page reads them again), shared
    by the site's threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.key: tuple[int, int] | None = None
        self.results: LeagueResults | None = None
        self.opened: Run | None = None
        #: The last viewer pages made (a match's page is a replay: a second or so).
        self.pages: OrderedDict[int, str] = OrderedDict()

    def _fresh(self, ladder: Path) -> bool:
        """Whether there are results; what was read of older ones forgotten."""
        try:
            stat = (results_of(ladder) / layout.MANIFEST).stat()
        except FileNotFoundError:
            return False
        if (stat.st_mtime_ns, stat.st_size) != self.key:
            self.key, self.results, self.opened = (stat.st_mtime_ns, stat.st_size), None, None
            self.pages.clear()
        return True

    def get(self, ladder: Path) -> LeagueResults | None:
        """The standings' matches rated and collected (None: no run yet)."""
        with self.lock:
            if not self._fresh(ladder):
                return None
            if self.results is None:
                self.results = read_results(results_of(ladder))
            return self.results

    def run(self, ladder: Path) -> Run:
        """The results opened for replay (a viewer page, a match's notes)."""
        with self.lock:
            if not self._fresh(ladder):
                raise ResultsError("no match has been played yet")
            if self.opened is None:
                self.opened = Run.open(results_of(ladder))
            return self.opened

    def page(self, ladder: Path, match_id: int, make: Callable[[Run], str]) -> str:
        """Match ``match_id``'s viewer page, made by ``make`` unless it is
        among the last :data:`PAGES` made."""
        with self.lock:
            if self._fresh(ladder) and match_id in self.pages:
                self.pages.move_to_end(match_id)
                return self.pages[match_id]
        made = make(self.run(ladder))  # (outside the lock: other pages go on meanwhile)
        with self.lock:
            self.pages[match_id] = made
            while len(self.pages) > PAGES:
                self.pages.popitem(last=False)
        return made


class BadQuery(BohnarenaError, ValueError):
    """A match query the page cannot answer, said in one line."""


def _int(params: Mapping[str, str], name: str, low: int = 0) -> int | None:
    text = params.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < low:
        raise BadQuery(f"{name} must be a whole number of at least {low}")
    return int(text)


def entry_matches(
    results: LeagueResults, bots: list[str], params: Mapping[str, str]
) -> tuple[str | None, list[dict[str, Any]], int]:
    """The matches of ``bots`` (an entry's versions, the one asked for by
    ``params["version"]`` or the newest that played) filtered and sorted as
    ``bohnarena matches`` does (``against``, ``seat``, ``deal``, ``faults``,
    ``sort``, ``limit``): (the version, the matches, how many in all)."""
    m = results.matches
    played = [b for b in bots if b in m.bots]
    bot = params.get("version") or (played[-1] if played else None)
    if bot is None:
        return None, [], 0
    if bot not in played:
        raise BadQuery(f"version: {bot!r} played no match of the standings")
    against = params.get("against") or None
    if against is not None and against not in m.bots:
        raise BadQuery(f"against: no bot {against!r} in the standings")
    sort = params.get("sort") or "id"
    if sort not in SORTS:
        raise BadQuery(f"sort is one of {', '.join(SORTS)}")
    seat = _int(params, "seat")
    if seat is not None and seat >= m.players:
        raise BadQuery(f"seat: the league has seats 0-{m.players - 1}")
    limit = _int(params, "limit", 1) or 50
    query = Query(
        m.bots.index(bot),
        None if against is None else m.bots.index(against),
        seat,
        _int(params, "deal"),
        params.get("faults") in ("1", "on", "true"),
        sort,
        min(limit, 500),
    )
    found, total = find(m, scores(m, results.ranking), query)
    return bot, [_match(m, f) for f in found], total


def _match(m: Any, f: Found) -> dict[str, Any]:
    r = f.row
    seats = [m.bots[b] for b in m.bot[r]]
    return {
        "match_id": int(m.match_id[r]),
        "deal": int(m.deal[r]),
        "seats": seats,
        "coins": m.coins[r].tolist(),
        "places": m.place[r].tolist(),
        "faults": m.faults[r].tolist(),
        "turns": int(m.turns[r]),
        "value": f.value,
    }


def settings_shown(data: Mapping[str, Any]) -> dict[str, Any]:
    """ladder.toml's keys a participant may read: never its seed (a number
    would predict every deal) nor where the organiser keeps secrets."""
    return {k: v for k, v in data.items() if k not in ("seed", "secrets")}


def pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
