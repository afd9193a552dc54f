"""A ladder's seasons (docs/ladder.md, "Seasons"; docs/fairness.md): each
has one secret seed, committed before its first match. ``season end``
reveals it (the season's results are then closed: no run plays on a
revealed seed); ``season new`` closes the season (revealing it if need be),
keeps its results under ``seasons/N``, and draws the next season's seed
and commitment, which the next ``ladder run`` plays under."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from ..core.seeding import commitment, new_salt
from ..league.file import SECRET
from ..run.verify import reveal
from ..store import layout
from ..store.directory import RunDir
from ..store.secret import write_private
from .settings import RESULTS, LadderError, Settings

#: Where the closed seasons' results are kept: seasons/1, seasons/2, ...
SEASONS = "seasons"
#: The next season's seed and salt, drawn by ``season new`` before its
#: results exist (private, mode 0600; the first run moves them in).
NEXT = "next-season.json"


def _public(results: Path) -> dict[str, Any]:
    try:
        meta = json.loads((results / layout.RUN_JSON).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def ended(ladder: Path) -> bool:
    """The season's seed is revealed: nothing more is played on it."""
    return (ladder / RESULTS / layout.REVEAL).is_file()


def drawn(ladder: Path) -> tuple[int, str] | None:
    """The seed and salt ``season new`` drew for a season not played yet."""
    try:
        found = json.loads((ladder / NEXT).read_text("utf-8"))
        return int(found["seed"]), str(found["seed_salt"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LadderError(f"{ladder / NEXT} does not read: {e}") from None


def started(ladder: Path) -> None:
    """The season's first run made its results (the seed is in them now)."""
    if (ladder / RESULTS / layout.SECRET).is_file():
        (ladder / NEXT).unlink(missing_ok=True)


def end_season(ladder: Path) -> dict[str, Any]:
    """Reveal the season's seed; returns what was revealed."""
    with _locked(ladder):
        if not (ladder / RESULTS / layout.RUN_JSON).is_file():
            raise LadderError(f"{ladder} has no season played yet: nothing to reveal")
        return reveal(ladder / RESULTS)


def new_season(ladder: Path, settings: Settings) -> tuple[Path | None, str | None]:
    """Close the season (its seed revealed, its results kept under
    seasons/N) and draw the next one's; returns where the closed season is
    kept (None: none was played) and the new commitment (None: the
    ladder's seed is not secret)."""
    with _locked(ladder):
        results = ladder / RESULTS
        kept = None
        if (results / layout.RUN_JSON).is_file():
            if "seed_commitment" in _public(results) and not ended(ladder):
                reveal(results)
            seasons = ladder / SEASONS
            seasons.mkdir(exist_ok=True)
            number = 1 + sum(1 for p in seasons.iterdir() if p.name.isdigit())
            kept = seasons / str(number)
            os.rename(results, kept)
        if settings.data.get("seed", SECRET) != SECRET:
            (ladder / NEXT).unlink(missing_ok=True)
            return kept, None
        seed, salt = secrets.randbits(63), new_salt()
        text = json.dumps({"seed": seed, "seed_salt": salt}, sort_keys=True) + "\n"
        write_private(ladder / NEXT, text)
        return kept, commitment(seed, salt)


def fairness(ladder: Path) -> list[str]:
    """What ``ladder rank`` says of the season's fairness: its commitment
    and chain head, or the next season's commitment, or that it ended."""
    results = ladder / RESULTS
    meta = _public(results)
    if "seed_commitment" not in meta:
        if (found := drawn(ladder)) is not None:
            return [f"seed commitment: {commitment(*found)} (the next run plays under it)"]
        return []
    lines = [f"seed commitment: {meta['seed_commitment']}"]
    if "chain_head" in meta:
        lines.append(f"chain head: {meta['chain_head']}")
    if ended(ladder):
        lines.append(f"season ended: its seed is revealed; bohnarena verify {results}")
    return lines


class _locked:
    """The ladder taken as a run takes it (one run, or season change, at a time)."""

    def __init__(self, ladder: Path) -> None:
        self.keeper = RunDir(ladder)

    def __enter__(self) -> None:
        self.keeper.lock()

    def __exit__(self, *exc: object) -> None:
        self.keeper.close()
