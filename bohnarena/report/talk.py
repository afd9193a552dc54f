"""What each seat that plays in words cost and said, from a results
directory's exchanges files (docs/logs.md, "exchanges"): per bot, its
tokens a match, latency, retries a decision and illegal-reply rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..rating.stats import Matches
from ..store import layout
from ..store.parts import Listing, read_table

_COLUMNS = ["match_id", "seat", "tokens_in", "tokens_out", "micros", "retries"]


@dataclass(frozen=True)
class Talk:
    """One bot's exchanges, summed up."""

    bot: str
    seats: int  # the seats it held that have exchanges (a match each)
    decisions: int
    tokens_in: int
    tokens_out: int
    micros: np.ndarray
    retries: int
    replies: int
    refused: int  # replies refused (unreadable or illegal)

    def latency(self) -> tuple[float, float]:
        """Median and 90th percentile of an exchange's µs."""
        q = np.quantile(self.micros, (0.5, 0.9)) if len(self.micros) else (np.nan, np.nan)
        return float(q[0]), float(q[1])


def talk(listing: Listing, m: Matches) -> list[Talk]:
    """Each bot with exchanges among the finished matches ``m``, in name
    order (none: a league without seats that play in words)."""
    files = listing.files(layout.EXCHANGES)
    if not files:
        return []
    t = pa.concat_tables(
        read_table(path, columns=[*_COLUMNS, "replies", "reasons"]) for _, path in files
    )
    row = {int(i): r for r, i in enumerate(m.match_id)}
    ids = t["match_id"].to_numpy()
    known = np.array([i in row for i in ids], bool)
    t = t.filter(pa.array(known))
    seat = t["seat"].to_numpy().astype(np.int64)
    at = np.array([row[int(i)] for i in t["match_id"].to_numpy()], np.int64)
    bot = m.bot[at, seat] if len(at) else np.zeros(0, np.int64)
    replies = pc.list_value_length(t["replies"]).to_numpy(zero_copy_only=False)
    refused = np.minimum(pc.list_value_length(t["reasons"]).to_numpy(zero_copy_only=False), replies)
    figures = {c: t[c].to_numpy().astype(np.int64) for c in _COLUMNS}
    found = []
    for b in sorted(set(bot.tolist()), key=lambda b: m.bots[b]):
        mine = bot == b
        found.append(
            Talk(
                m.bots[b],
                len(np.unique(figures["match_id"][mine] * 64 + seat[mine])),
                int(mine.sum()),
                int(figures["tokens_in"][mine].sum()),
                int(figures["tokens_out"][mine].sum()),
                figures["micros"][mine],
                int(figures["retries"][mine].sum()),
                int(replies[mine].sum()),
                int(refused[mine].sum()),
            )
        )
    return found
