"""Why each bot faulted: the fault and forfeit records of a results
directory's moves, summed up per bot as each type of fault (docs/writing-a-bot.md,
"Faults"), how often, and its first reason in match-id order. The end of a
run, ``rank`` and the report show it: a service that died mid-league is
explained where the organiser looks, not only in a replay.

The matches table keeps only counts; the reasons are in the moves, so a run
with ``moves = false`` has the counts alone (:func:`fault_reasons` is None)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..core.faults import fault_type
from ..core.game import get_game
from ..core.text import plural
from ..core.untrusted import one_line
from .parts import open_part, unreadable
from .reading import RunReader

#: A reason's characters shown in a summary (``replay`` shows it whole).
REASON_CHARS = 160


@dataclass
class FaultKind:
    """One type of fault of one bot: how often, and the first one."""

    count: int
    first_match: int
    first_reason: str


@dataclass
class BotFaults:
    """A bot's faults by type (in the order first met), and its forfeits."""

    kinds: dict[str, FaultKind] = field(default_factory=dict)
    forfeits: int = 0


def fault_reasons(path: str | Path) -> dict[str, BotFaults] | None:
    """Each faulting bot's faults, from the moves of the results directory
    at ``path`` (only the records of kind ``fault`` and ``forfeit`` are
    read); None when its run logged no moves."""
    reader = RunReader(path)
    meta = reader.meta()
    listing = reader.listing().require()
    moves = listing.files("moves")
    if not moves:
        return None
    text = get_game(meta.get("game", "bohnanza")).layout["fault"][-1]  # (decision, reason)
    found = pa.concat_tables(
        [_faults(f, text) for _, f in moves]
        or [pa.table({"match_id": [], "seq": [], "kind": [], "seat": [], text: []})]
    ).sort_by([("match_id", "ascending"), ("seq", "ascending")])
    seats = _seats(listing.files("matches"), set(found["match_id"].to_pylist()))
    out: dict[str, BotFaults] = {}
    for row in found.to_pylist():
        bot = seats[row["match_id"]][row["seat"]]
        faults = out.setdefault(bot, BotFaults())
        if row["kind"] == "forfeit":
            faults.forfeits += 1
            continue
        reason = row[text] or ""
        kind = faults.kinds.get(fault_type(reason))
        if kind is None:
            faults.kinds[fault_type(reason)] = FaultKind(1, row["match_id"], reason)
        else:
            kind.count += 1
    return out


def _faults(path: Path, text: str) -> pa.Table:
    """The fault and forfeit records of one moves file."""
    columns = ["match_id", "seq", "kind", "seat", text]
    try:
        with open_part(path) as f:
            table = pq.ParquetFile(f).read(columns=columns)
    except (pa.ArrowException, OSError) as e:
        raise unreadable(path, e) from None
    return table.filter(pc.is_in(table["kind"], pa.array(["fault", "forfeit"])))


def _seats(matches: list[tuple[tuple[int, int], Path]], ids: set[int]) -> dict[int, list[str]]:
    """The bot in each seat of the matches ``ids``."""
    out: dict[int, list[str]] = {}
    for (first, last), path in matches:
        if not any(first <= i <= last for i in ids):
            continue
        try:
            with open_part(path) as f:
                table = pq.ParquetFile(f).read(columns=["match_id", "seats"])
        except (pa.ArrowException, OSError) as e:
            raise unreadable(path, e) from None
        for match_id, seats in zip(
            table["match_id"].to_pylist(), table["seats"].to_pylist(), strict=True
        ):
            if match_id in ids:
                out[match_id] = seats
    return out


def described(faults: BotFaults) -> list[str]:
    """Each type of fault with how often and its first reason (cut, on one
    line, every character that is not printable escaped), then the
    forfeits: one phrase each."""
    out = [
        f"{k.count} {name} (first in match {k.first_match}: "
        f"{one_line(k.first_reason, REASON_CHARS)})"
        for name, k in faults.kinds.items()
    ]
    if faults.forfeits:
        out.append(f"forfeited {plural(faults.forfeits, 'match')}")
    return out


def faults_text(faults: dict[str, BotFaults], order: list[str]) -> str:
    """The summary as lines for the terminal, bots in ``order`` (the
    standings')."""
    lines = ["Faults (each type with its first reason; `bohnarena replay` shows a match whole):"]
    lines += [
        f"  {one_line(bot, 80)}: " + "; ".join(described(faults[bot]))
        for bot in order
        if bot in faults
    ]
    return "\n".join(lines)
