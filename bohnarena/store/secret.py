"""run.json split in two (docs/fairness.md): while a secret seed is
unrevealed, ``run.json`` (public) holds its commitment only, and the seed
and its salt live in ``secret.json`` beside it, readable by its owner
alone (mode 0600). A reader of the directory sees them merged; a copy of
the published files has no seed until ``reveal.json`` gives it.

A run.json written before this split holds the seed itself: it is read as
it is, and the next run on it moves the seed out."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from . import layout
from .parts import ResultsError, storage_error, write_text

#: What stays private while the seed is unrevealed.
PRIVATE = ("seed", "seed_salt")


def _committed(meta: dict[str, Any]) -> bool:
    return "seed_commitment" in meta


def write_run(path: Path, meta: dict[str, Any]) -> None:
    """``meta`` written to ``path``'s run.json, a committed seed and its
    salt to its private file instead (that first: a run.json that commits
    never lacks its seed on the organiser's machine)."""
    public = meta
    if _committed(meta) and any(k in meta for k in PRIVATE):
        private = {k: meta[k] for k in PRIVATE if k in meta}
        write_private(path / layout.SECRET, json.dumps(private, indent=2, sort_keys=True) + "\n")
        public = {k: v for k, v in meta.items() if k not in PRIVATE}
    write_text(path / layout.RUN_JSON, json.dumps(public, indent=2, sort_keys=True))


def public_seed(path: Path) -> bool:
    """``path``'s run.json commits to a seed it holds itself (written before
    the split): the next run moves it out."""
    meta = read_object(path / layout.RUN_JSON)
    return _committed(meta) and any(k in meta for k in PRIVATE)


def write_private(path: Path, text: str) -> None:
    """A file only its owner reads, written whole (a temporary file renamed)."""
    tmp = path.with_name(f".tmp-{path.name}")
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o600)  # (whatever the umask)
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise storage_error(path, e) from None


def with_secret(path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` (run.json as read) with its seed and salt: run.json's own (an
    older run), the private file's, or else those ``reveal.json`` made
    public (a copy of the published files)."""
    if not _committed(meta) or "seed" in meta:
        return meta
    for name in (layout.SECRET, layout.REVEAL):
        found = read_object(path / name)
        if found:
            return {**meta, **{k: found[k] for k in PRIVATE if k in found}}
    return meta


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when it is missing); ResultsError in one
    line when it does not read or is not an object."""
    try:
        found = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path} does not read: {e}") from None
    if not isinstance(found, dict):
        raise ResultsError(f"{path} is not a JSON object")
    return found
