"""`rank`'s statistics tables (deal bootstrap, by seat, head to head) in
every output format: text, Markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import UsageError
from .skill import Ranking
from .stats import LeagueStats

VIEWS = ("ranking", "seat", "head-to-head")


@dataclass
class Table:
    """One view: a title, its rows for machines (CSV, JSON) and a rendering
    for people (column headers and display cells)."""

    key: str
    title: str
    rows: list[dict[str, Any]]
    head: list[str]
    cells: list[list[str]]


def pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1%}"


def span(row: dict[str, Any], name: str, show: Callable[[float | None], str]) -> str:
    """``value [low-high]``, the interval's unit sign dropped."""
    if row[name] is None:
        return "-"
    if row[f"{name}_low"] is None:  # no resamples
        return show(row[name])
    low, high = (show(row[f"{name}_{end}"]).rstrip("%") for end in ("low", "high"))
    return f"{show(row[name])} [{low}-{high}]"


def num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def method_line(s: LeagueStats) -> str:
    """The one place the intervals' method is named (every table below uses it)."""
    if not s.resamples:
        return "No bootstrap resamples, so no intervals."
    return (
        f"Every interval below is 95%, from a deal bootstrap: {s.resamples} resamples of "
        f"the {s.deals} deals (all their tables and rotations together), seed {s.seed}."
    )


def bootstrap_table(s: LeagueStats, order: Sequence[str]) -> Table:
    rows = {r["bot"]: r for r in s.bot_rows()}
    ordered = [rows[b] for b in order]
    return Table(
        "bootstrap",
        "Win rate, mean coins and mean place per seat filled, rank by mean place",
        ordered,
        ["bot", "win rate", "mean coins", "mean place", "P(#1)", "rank"],
        [
            [
                r["bot"],
                span(r, "win_rate", pct),
                span(r, "mean_coins", num),
                span(r, "mean_place", num),
                pct(r["p_first"]),
                "-"
                if r["rank_low"] is None
                else (
                    str(r["rank_low"])
                    if r["rank_low"] == r["rank_high"]
                    else f"{r['rank_low']}-{r['rank_high']}"
                ),
            ]
            for r in ordered
        ],
    )


def seat_table(s: LeagueStats, order: Sequence[str]) -> Table:
    rows = s.seat_rows()
    by = {(r["bot"], r["seat"]): r for r in rows}
    return Table(
        "by_seat",
        "Win rate by seat (seat 0 starts)",
        sorted(rows, key=lambda r: (list(order).index(r["bot"]), r["seat"])),
        ["bot", *(f"seat {t}" for t in range(s.players))],
        [
            [b, *(span(by[b, t], "win_rate", pct) for t in range(s.players))]
            for b in order
            if (b, 0) in by
        ],
    )


def h2h_table(s: LeagueStats, order: Sequence[str]) -> Table:
    by = {(r["bot"], r["opponent"]): r for r in s.h2h_rows()}
    return Table(
        "head_to_head",
        "Head to head: how often the row bot finishes ahead of the column bot at "
        "the same table (ties count half)",
        [by[a, b] for a in order for b in order if a != b],
        ["bot", *order],
        [[a, *("" if a == b else span(by[a, b], "ahead", pct) for b in order)] for a in order],
    )


def signed(v: float) -> str:
    """An Elo difference: whole points, signed, +-inf when one bot is always ahead."""
    if math.isnan(v):
        return "-"
    return f"{v:+.0f}" if math.isfinite(v) else ("+inf" if v > 0 else "-inf")


def elo_cell(s: LeagueStats, i: int, j: int) -> str:
    e = s.elo
    v, lo, hi = (float(x[i, j]) for x in (e.value, e.low, e.high))
    if math.isnan(lo):
        return signed(v)
    return f"{signed(v)} [{signed(lo)}, {signed(hi)}]"


def elo_table(s: LeagueStats, order: Sequence[str]) -> Table:
    """Each pair once (the first in ranking order as the row bot): its
    head-to-head score and Elo-style difference."""
    at = {b: i for i, b in enumerate(s.bots)}
    by = {(r["bot"], r["opponent"]): r for r in s.h2h_rows()}
    pairs = [(a, b) for k, a in enumerate(order) for b in order[k + 1 :]]
    return Table(
        "elo",
        "Each pair: the first bot's head-to-head score over the second and the Elo-style "
        "difference it means, 400 log10(score / (1 - score)) (docs/statistics.md)",
        [by[a, b] for a, b in pairs],
        ["bot", "opponent", "seat pairs", "score", "Elo difference"],
        [
            [a, b, str(by[a, b]["pairs"]), span(by[a, b], "ahead", pct), elo_cell(s, at[a], at[b])]
            for a, b in pairs
        ],
    )


def tables(ranking: Ranking, s: LeagueStats, views: Sequence[str]) -> list[Table]:
    order = [st.bot for st in ranking.standings]
    out: list[Table] = []
    if "ranking" in views:
        out.append(bootstrap_table(s, order))
    if "seat" in views:
        out.append(seat_table(s, order))
    if "head-to-head" in views:
        out += [h2h_table(s, order), elo_table(s, order)]
    return out


def text(t: Table) -> str:
    widths = [max(len(x) for x in col) for col in zip(t.head, *t.cells, strict=True)]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    return "\n".join([t.title + ":", line(t.head), *map(line, t.cells)])


def markdown(t: Table) -> str:
    lines = [
        f"{t.title}:",
        "",
        "| " + " | ".join(t.head) + " |",
        "|" + "---|" * len(t.head),
    ]
    lines += ["| " + " | ".join(c or " " for c in cells) + " |" for cells in t.cells]
    return "\n".join(lines)


def render(fmt: str, ranking: Ranking, s: LeagueStats, views: Sequence[str]) -> str:
    """The ranking plus the chosen views in ``fmt``. CSV is one table: the
    ranking joined with its bootstrap columns, or the one other view asked."""
    chosen = tables(ranking, s, views)
    if fmt in ("json", "csv"):  # the head-to-head rows hold the Elo table's fields
        chosen = [t for t in chosen if t.key != "elo"]
    if fmt == "json":
        data = json.loads(ranking.to_json()) if "ranking" in views else {}
        data["bootstrap_settings"] = {
            "method": "deal bootstrap, percentile intervals",
            "level": 0.95,
            "resamples": s.resamples,
            "seed": s.seed,
            "deals": s.deals,
        }
        data.update({t.key: t.rows for t in chosen})
        return json.dumps(data, indent=2)
    if fmt == "csv":
        return csv_text(ranking, chosen)
    if fmt == "markdown":
        head = ranking.to_markdown().rstrip("\n") + "\n\n" if "ranking" in views else ""
        return head + method_line(s) + "\n\n" + "\n\n".join(map(markdown, chosen))
    head = ranking.to_text() + "\n\n" if "ranking" in views else ""
    return head + method_line(s) + "\n\n" + "\n\n".join(map(text, chosen))


#: Bootstrap columns joined to the ranking's CSV rows: the one interval of
#: each figure.
JOINED = [
    "win_rate_low",
    "win_rate_high",
    "mean_coins_low",
    "mean_coins_high",
    "mean_place_low",
    "mean_place_high",
    "p_first",
    "rank_low",
    "rank_high",
]


def csv_text(ranking: Ranking, chosen: list[Table]) -> str:
    if len(chosen) != 1:
        raise UsageError("CSV holds one table: give --by seat or --head-to-head, not both")
    t = chosen[0]
    if t.key == "bootstrap":
        boot = {r["bot"]: r for r in t.rows}
        rows = [{**r, **{k: boot[r["bot"]][k] for k in JOINED}} for r in ranking.rows()]
    else:
        rows = t.rows
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["bot"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
