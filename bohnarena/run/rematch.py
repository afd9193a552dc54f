"""Matches played again from the bots' files and compared, record for
record, with their logs (`verify --bots DIR --replay N|all`,
docs/fairness.md): each bot's files hashed first against the hash run.json
published from its first match, so a bot file changed after its matches is
caught before anything is played."""

from __future__ import annotations

import secrets
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.entry import BotEntry
from ..core.errors import BohnarenaError, UsageError
from ..external.endpoint import close_sandboxes
from ..league.file import parse_league
from ..referee.limits import Watchdog
from ..store import layout
from ..store.growing import kept_files
from .provenance import source_hash
from .replay import Run, first_difference
from .seating import make_seat


@dataclass
class Rematched:
    """What the re-play found: one line per failed check."""

    failures: list[str] = field(default_factory=list)
    played: int = 0
    #: Matches with a seat that cannot be played again (a bot served over HTTP).
    unplayable: int = 0


def entries(results: Path, bots: Path) -> dict[str, BotEntry]:
    """Every bot the results were played by, its paths resolved in ``bots``
    (the directory the league file was in: a ladder's own): the league
    files it grew from first, the latest last."""
    found: dict[str, BotEntry] = {}
    for path in [*kept_files(results), results / layout.LEAGUE]:
        text = path.read_text("utf-8")
        found.update(parse_league(tomllib.loads(text), text, str(path), bots).bots)
    return found


def changed(run: Run, found: dict[str, BotEntry], home: Path, names: set[str]) -> dict[str, str]:
    """The bots of ``names`` whose files do not hash to what run.json
    published, each with why (hashed as a ladder hashes, relative to
    ``home``, or as a league does)."""
    published = run.store.meta().get("bots", {})
    out = {}
    for name in sorted(names):
        entry = found.get(name)
        if entry is None:
            out[name] = "no league file the results grew from has it"
            continue
        if entry.service is not None:
            continue
        try:
            hashes = {source_hash(entry, run.game.bot_base, h) for h in (home, None)}
        except BohnarenaError as e:
            out[name] = f"its files do not load ({e})"
            continue
        if published.get(name) not in hashes:
            out[name] = (
                f"its files hash to {sorted(hashes)[0]}, run.json published "
                f"{published.get(name)} from its first match"
            )
    return out


def sample(ids: Sequence[int], count: int | None) -> list[int]:
    """``count`` of ``ids`` drawn by the verifier (never by the organiser,
    who cannot know which will be played again), or all of them."""
    if count is None or count >= len(ids):
        return list(ids)
    return sorted(secrets.SystemRandom().sample(list(ids), count))


def rematch(path: Path, bots: Path, count: int | None, seed: int | None) -> Rematched:
    """Play ``count`` matches (None: all) of ``path`` again from the bots in ``bots``."""
    if not bots.is_dir():
        raise UsageError(f"--bots {bots}: not a directory")
    run = Run.open(path, "off", refuse=False, seed=seed)
    try:
        found = entries(run.store.path, bots.resolve())
    except (OSError, ValueError, BohnarenaError) as e:
        raise UsageError(f"--bots {bots}: the league's bots do not resolve there: {e}") from None
    out = Rematched()
    rows = {r["match_id"]: r for r in run.store.iter_matches(["match_id", "seed", "seats"])}
    playable = [i for i, r in rows.items() if all(_local(found.get(b)) for b in r["seats"])]
    out.unplayable = len(rows) - len(playable)
    chosen = sample(sorted(playable), count)
    names = {b for i in chosen for b in rows[i]["seats"]}
    bad = changed(run, found, bots.resolve(), names)
    out.failures += [
        f"bot {name}: {why}: its matches are not played again" for name, why in bad.items()
    ]
    try:
        _play_again(run, found, rows, chosen, bad, out)
    finally:
        close_sandboxes()
    return out


def _play_again(
    run: Run,
    found: dict[str, BotEntry],
    rows: dict[int, dict[str, Any]],
    chosen: list[int],
    bad: dict[str, str],
    out: Rematched,
) -> None:
    for mid in chosen:
        row = rows[mid]
        if any(b in bad for b in row["seats"]):
            continue
        logged = run.logs(mid, mid).get(mid)
        if not logged:
            out.failures.append(f"match {mid}: no move log to compare the re-play with")
            continue
        problem = _again(run, found, row, logged)
        out.played += 1
        if problem is not None:
            out.failures.append(f"match {mid}: played again from the bots' files, {problem}")


def _local(entry: BotEntry | None) -> bool:
    return entry is not None and entry.service is None


def _again(
    run: Run, found: dict[str, BotEntry], row: dict[str, Any], logged: list[Any]
) -> str | None:
    """How the match of ``row`` played again differs from its log (None: not at all)."""
    with Watchdog(None) as watchdog:
        seats = [
            make_seat(run.game, found[b], run.league.limits, watchdog, match_id=row["match_id"])
            for b in row["seats"]
        ]
        _, records = run.game.play(run.rules, row["seed"], seats)
    return first_difference(logged, records)
