"""A results directory opened with a league file that grew (league/growth.py):
the change checked (only bots and deals may change), then the files that
record it written so that a crash at any point leaves a directory every
reader and the next run read right: the replaced league file kept first
(``league.N.toml``), then run.json's generations, then ``league.toml``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..league.growth import (
    Generation,
    check_growth,
    generations_json,
    grown,
    history,
    parsed,
    schedule_of,
)
from . import layout
from .parts import write_text
from .secret import write_run

KEPT = re.compile(r"^league\.(\d+)\.toml$")


def first_generation(league_text: str) -> list[dict[str, Any]]:
    """run.json's ``generations`` of a new run of ``league_text``."""
    league = parsed(league_text, "the league file")
    return generations_json(league.schedule(0), [Generation.of(league)])


class Growth:
    def __init__(self, old_text: str, old_meta: dict[str, Any], text: str) -> None:
        """Check that ``text`` may grow the results of ``old_text`` (raises
        GrowthError with the reason) and work out its generations."""
        self.old_text, self.old_meta, self.text = old_text, old_meta, text
        before = parsed(old_text, "the league file of the results (league.toml)")
        after = before if text == old_text else parsed(text, "the league file")
        if text != old_text:
            check_growth(before, after)
        past = history(old_meta, before)
        self.generations = grown(past, after)
        self.changed = text != old_text or self.generations != past
        self.schedule = schedule_of(after, 0, self.generations)  # (its shape only)

    def write(self, path: Path, hashes: dict[str, str]) -> None:
        """Record the growth in ``path``; the bots' hashes: those of the bots
        it had before (a removed bot's too: its matches stay) and ``hashes``."""
        if not self.changed:
            return
        if self.text != self.old_text:
            kept = kept_files(path)
            if not kept or kept[-1].read_text("utf-8") != self.old_text:  # not a crash's repeat
                write_text(path / f"league.{len(kept) + 1}.toml", self.old_text)
        meta = {
            **self.old_meta,
            "bots": {**self.old_meta.get("bots", {}), **hashes},
            "generations": generations_json(self.schedule, self.generations),
        }
        write_run(path, meta)
        write_text(path / layout.LEAGUE, self.text)


def kept_files(path: Path) -> list[Path]:
    """The league files a results directory grew from, oldest first."""
    found = [p for p in path.iterdir() if KEPT.match(p.name)]
    return sorted(found, key=lambda p: int(p.name.split(".")[1]))
