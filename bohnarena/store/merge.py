"""Shard directories of one league merged into one run, every check made
before anything is written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import layout
from .directory import RunDir
from .growing import KEPT
from .logbook import LOG_FORMAT
from .manifest import SIDES, TABLES
from .parts import ResultsError, part_name


def merge(out: str | Path, sources: list[str | Path]) -> RunDir:
    """Merge shard (or any partial) runs of one league into ``out``.

    Refuses directories of different leagues, rules versions or bot sources,
    matches that two directories both hold, and parts that are not what
    their run committed.
    """
    runs = [RunDir(p) for p in sources]
    for r in runs:
        if not r.is_run():
            raise ResultsError(f"{r.path} is not a bohnarena results directory")
    first = runs[0]
    league_text = (first.path / layout.LEAGUE).read_text("utf-8")
    meta = first.meta()
    for r in runs[1:]:
        other = r.meta()
        if (r.path / layout.LEAGUE).read_text("utf-8") != league_text:
            raise ResultsError(f"{r.path} is a run of a different league than {first.path}")
        for key in ("rules_version", "bots", "game", "generations"):
            if other.get(key) != meta.get(key):
                raise ResultsError(f"{r.path} differs from {first.path} in {key}")
    final = Path(out)
    if final.exists() and any(final.iterdir()):
        raise ResultsError(f"{final} already exists; merge into a new directory")
    listings = [r.listing("full").require() for r in runs]
    seen: set[int] = set()
    for r, listing in zip(runs, listings, strict=True):  # every check before anything is written
        ids = r.done_ids(listing)
        twice = ids & seen
        if twice:
            raise ResultsError(f"match {min(twice)} is in more than one directory")
        seen |= ids
    # Built aside and renamed into place: OUT is a whole merge or nothing.
    final.parent.mkdir(parents=True, exist_ok=True)
    aside = RunDir(final.parent / f".{final.name}.merging-{os.getpid()}")
    try:
        # (every source's moves files without timing: older ones, kept as such)
        untimed = sorted({n for r in runs for n in r.meta().get("untimed", r._untimed())})
        aside.open_for_run(
            league_text,
            {**meta, "shard": None, "log_format": LOG_FORMAT, "untimed": untimed},
            restart=True,
        )
        for kept in first.path.iterdir():  # the league files it grew from
            if KEPT.match(kept.name):
                shutil.copyfile(kept, aside.path / kept.name)
        for listing in listings:
            # each part's files, and the moves files a compaction left beside its matches
            files: list[tuple[tuple[int, int], dict[str, Path | None]]] = [
                (p.span, {t: p.file(t) for t in TABLES}) for p in listing.parts
            ]
            files += [(m.span, {t: getattr(m, t) for t in SIDES}) for m in listing.loose]
            for span, held in files:
                copies = {}
                for table, source in held.items():
                    if source is not None:
                        copies[table] = aside.table_dir(table) / f".tmp-copy-{part_name(*span)}"
                        copies[table].parent.mkdir(exist_ok=True)  # (exchanges/: not up front)
                        shutil.copyfile(source, copies[table])
                aside.commit(*span, *(copies.get(t) for t in TABLES))
        aside.close()
        if final.exists():
            final.rmdir()  # empty, checked above
        os.rename(aside.path, final)
    except BaseException:
        aside.close()
        shutil.rmtree(aside.path, ignore_errors=True)
        raise
    return RunDir(final)
