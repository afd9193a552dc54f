"""The league report: one self-contained HTML file (inline CSS and SVG, no
script, nothing fetched), built from aggregates only, so it stays small and
opens at once whatever the league's size (docs/report.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..core.untrusted import html_text
from ..rating.results import LeagueResults, read_results
from ..rating.stats import (
    RESAMPLES,
    SEED,
    LeagueStats,
    Trajectory,
    league_path,
    league_stats,
    per_bot,
    quantiles,
)
from ..rating.stats import per_bot_matches as by_match
from ..rating.statstables import elo_table
from ..rating.thinking import thinking
from ..store.parts import write_text
from ..store.reading import RunReader
from . import svg
from .hero import hero_figures
from .watch import Watched
from .watch import section as watch_section

REPORT = "report.html"

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:16px 24px;
color:#1a1a1a;background:#fff}
h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 6px;
border-bottom:1px solid #ddd;padding-bottom:3px}
p.sub,p.note{color:#555;margin:4px 0}.warn{background:#fff4d6;border:1px solid #e8c35a;
padding:6px 10px;border-radius:4px}
table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 8px;text-align:right;
border-bottom:1px solid #eee;white-space:nowrap;vertical-align:top}th{background:#f6f6f6}
td:first-child,th:first-child,.board td:nth-child(2),.board th:nth-child(2),
.facts td,.watch td,.watch th{text-align:left}
small{color:#666}
.grid{display:flex;flex-wrap:wrap;gap:8px 24px}figure{margin:0}
figcaption{font-weight:600;margin:6px 0 2px}
.legend{margin:2px 0 6px}.key{margin-right:14px;white-space:nowrap}
.key i{display:inline-block;width:11px;height:11px;margin-right:5px;vertical-align:-1px;
border-radius:2px}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px;max-height:320px}
svg text{fill:#333}
"""


def figure(caption: str, body: str) -> str:
    return f"<figure><figcaption>{html_text(caption)}</figcaption>{body}</figure>"


def table(head: list[str], rows: list[list[Any]], cls: str = "") -> str:
    th = "".join(f"<th>{html_text(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}">' + (f"<tr>{th}</tr>" if any(head) else "") + f"{trs}</table>"


def pct(v: float) -> str:
    return "–" if not np.isfinite(v) else f"{v:.1%}"


def micros(v: float) -> str:
    """A time in µs, in the unit that reads best."""
    if not np.isfinite(v):
        return "–"
    if v < 1000:
        return f"{v:.0f} µs"
    return f"{v / 1000:.1f} ms" if v < 1e6 else f"{v / 1e6:.2f} s"


def fmt(v: float, digits: int = 2) -> str:
    return "–" if not np.isfinite(v) else f"{v:.{digits}f}"


def span(v: float, lo: float, hi: float, percent: bool = False) -> str:
    show = pct if percent else fmt
    if not np.isfinite(lo):
        return show(v)
    tail = f"{lo * 100:.1f}–{hi * 100:.1f}" if percent else f"{fmt(lo)}–{fmt(hi)}"
    return f"{show(v)}<br><small>{tail}</small>"


def leaderboard(r: LeagueResults, s: LeagueStats) -> str:
    index = {b: i for i, b in enumerate(s.bots)}
    rows = []
    for place, st in enumerate(r.ranking.standings, 1):
        i = index[st.bot]
        rank_range = (
            "–"
            if not np.isfinite(s.rank_low[i])
            else f"{s.rank_low[i]:.0f}"
            + ("" if s.rank_low[i] == s.rank_high[i] else f"–{s.rank_high[i]:.0f}")
        )
        rows.append(
            [
                place,
                f'<b style="color:{svg.colour(i)}">■</b> {html_text(st.bot)}',
                fmt(st.score),
                f"{fmt(st.mu)} ± {fmt(st.sigma)}",
                st.matches,
                span(s.win_rate.value[i], s.win_rate.low[i], s.win_rate.high[i], True),
                span(s.coins.value[i], s.coins.low[i], s.coins.high[i]),
                span(s.place.value[i], s.place.low[i], s.place.high[i]),
                pct(s.first[i]),
                rank_range,
                st.faults,
            ]
        )
    head = ["#", "bot", "score μ−3σ", "TrueSkill μ ± σ", "seats", "win rate", "mean coins"]
    head += ["mean place", "P(#1)", "rank range", "faults"]
    order = [index[st.bot] for st in r.ranking.standings]
    forest = svg.intervals(
        "win rate with 95% interval",
        [s.bots[i] for i in order],
        [s.win_rate.value[i] for i in order],
        [s.win_rate.low[i] for i in order],
        [s.win_rate.high[i] for i in order],
        "win rate",
        percent=True,
        colours=[svg.colour(i) for i in order],
    )
    places = svg.intervals(
        "mean place with 95% interval",
        [s.bots[i] for i in order],
        [s.place.value[i] for i in order],
        [s.place.low[i] for i in order],
        [s.place.high[i] for i in order],
        "mean place (1 is first)",
        colours=[svg.colour(i) for i in order],
    )
    return (
        "<h2>Leaderboard</h2>"
        + table(head, rows, "board")
        + '<p class="note">Sorted by the TrueSkill score. Below each figure: its 95% interval '
        f"from a deal bootstrap ({s.resamples} resamples of the {s.deals} deals, all tables and "
        f"rotations of a deal together, seed {s.seed}); P(#1) is the share of resamples in "
        "which the bot has the best mean place (bots tied for it are all #1), the rank "
        "range its 95% range of ranks by mean place. A bot filling two seats of a table "
        "counts twice.</p>"
        + '<div class="grid">'
        + figure("Win rate (95% interval)", forest)
        + figure("Mean place (95% interval)", places)
        + "</div>"
    )


def convergence(r: LeagueResults, path: Trajectory) -> str:
    m = r.matches
    at = [float(x) for x in path.at]
    bots = m.bots
    mu = svg.lines(
        "TrueSkill mu as matches were rated",
        at,
        [path.mu[:, i].tolist() for i in range(len(bots))],
        "matches rated (match-id order)",
        "μ",
        bands=[
            (
                (path.mu[:, i] - path.sigma[:, i]).tolist(),
                (path.mu[:, i] + path.sigma[:, i]).tolist(),
            )
            for i in range(len(bots))
        ],
    )
    wins = svg.lines(
        "cumulative win rate",
        at,
        [path.win_rate[:, i].tolist() for i in range(len(bots))],
        "matches (match-id order)",
        "win rate",
        percent=True,
    )
    return (
        "<h2>As the league went on</h2>"
        + svg.legend(bots)
        + '<div class="grid">'
        + figure("TrueSkill μ (band: ± σ)", mu)
        + figure("Win rate so far", wins)
        + '</div><p class="note">Match ids are deal-major, so every stretch of the run '
        "covers all tables alike: flat lines mean the ranking has settled.</p>"
    )


def head_to_head(s: LeagueStats, order: list[int]) -> str:
    names = [s.bots[i] for i in order]

    def pick(a: Any) -> list[list[float]]:
        return [[float(a[i, j]) for j in order] for i in order]

    return (
        "<h2>Head to head</h2>"
        + figure(
            "How often the row bot finishes ahead of the column bot at the same table",
            svg.heatmap(
                "head to head", names, pick(s.h2h.value), pick(s.h2h.low), pick(s.h2h.high)
            ),
        )
        + '<p class="note">Over every pair of seats the two bots held in one match; a tie '
        "counts half. Below the share: its 95% deal-bootstrap interval.</p>" + elo_pairs(s, names)
    )


def elo_pairs(s: LeagueStats, names: list[str]) -> str:
    """Each pair once: the head-to-head score and its Elo-style difference."""
    t = elo_table(s, names)
    rows = [[html_text(c) for c in cells] for cells in t.cells]
    return (
        "<h3>Score and Elo-style difference of each pair</h3>"
        + table(t.head, rows, "pairs")
        + '<p class="note">The first bot\'s head-to-head score over the second (the share '
        "above) and the Elo difference whose logistic expected score it is, "
        "400&nbsp;log<sub>10</sub>(score&nbsp;/&nbsp;(1&nbsp;&minus;&nbsp;score)), with the "
        "score's interval mapped; &plusmn;inf when one bot always finished ahead.</p>"
    )


def hero_section(r: LeagueResults, s: LeagueStats) -> str:
    """A gauntlet's hero: against each opponent, by seat, its worst deals."""
    hero = r.league.hero
    if r.league.format != "gauntlet" or hero is None or hero not in s.bots:
        return ""
    f = hero_figures(r.matches, s, hero, r.path)
    h = s.bots.index(hero)
    against = [
        [html_text(o.bot), o.pairs, span(o.score, o.low, o.high, True), html_text(o.elo)]
        for o in f.opponents
    ]
    by_seat = [
        [
            t,
            int(s.seat_n[h, t]),
            span(s.seat_win.value[h, t], s.seat_win.low[h, t], s.seat_win.high[h, t], True),
            span(s.seat_coins.value[h, t], s.seat_coins.low[h, t], s.seat_coins.high[h, t]),
        ]
        for t in range(s.players)
    ]
    worst = [
        [
            w.deal,
            w.matches,
            fmt(w.place),
            fmt(w.coins),
            w.match_id,
            html_text(", ".join(w.seats)),
            f"<code>{html_text(w.command)}</code>",
        ]
        for w in f.worst
    ]
    name = html_text(hero)
    return (
        f"<h2>The hero: {name}</h2>"
        + f"<h3>{name} against each opponent</h3>"
        + table(["opponent", "seat pairs", "score", "Elo-style difference"], against)
        + f'<p class="note">How often {name} finished ahead of the opponent at one table '
        "(ties half; weakest first), with its 95% interval, and the Elo difference that "
        "score means (docs/statistics.md).</p>"
        + f"<h3>{name} by seat</h3>"
        + table(["seat", "matches", "win rate", "mean coins"], by_seat)
        + f"<h3>{name}'s worst deals</h3>"
        + table(
            ["deal", "matches", "mean place", "mean coins", "worst match", "seats", "replay it"],
            worst,
        )
        + f'<p class="note">The deals where {name}\'s mean place was worst (then fewest '
        "coins), each with the match of the deal where it did worst and the command that "
        "replays it (the league must log moves: moves = true, the default).</p>"
    )


def seats(s: LeagueStats, order: list[int]) -> str:
    names = [s.bots[i] for i in order]
    chart = svg.grouped_bars(
        "win rate by seat",
        [f"seat {t}" for t in range(s.players)],
        names,
        [s.seat_win.value[i].tolist() for i in order],
        [s.seat_win.low[i].tolist() for i in order],
        [s.seat_win.high[i].tolist() for i in order],
        "win rate",
        width=max(460, 90 * s.players * max(1, len(names)) // 3),
        colours=[svg.colour(i) for i in order],
    )
    return (
        "<h2>Win rate by seat</h2>"
        + svg.legend(names, [svg.colour(i) for i in order])
        + figure("Win rate per seat (seat 0 starts), 95% interval whiskers", chart)
    )


def distributions(r: LeagueResults, order: list[int]) -> str:
    m = r.matches
    names = [m.bots[i] for i in order]
    coins = per_bot(m, m.coins)
    qs = (0.05, 0.25, 0.5, 0.75, 0.95)
    box = svg.boxes(
        "coins per match",
        names,
        [quantiles(coins[i], qs) for i in order],
        [float(coins[i].mean()) if len(coins[i]) else float("nan") for i in order],
        "final coins",
        colours=[svg.colour(i) for i in order],
    )
    turns = m.turns
    if len(turns):
        lo, hi = int(turns.min()), int(turns.max())
        step = max(1, -(-(hi - lo + 1) // 40))
        edges = [e - 0.5 for e in range(lo, hi + step + 1, step)]  # bins centred on whole turns
        counts = np.histogram(turns, bins=edges)[0].tolist()
    else:
        edges, counts = [0.0, 1.0], [0]
    hist = svg.histogram("match length", edges, counts, "turns per match")
    t_q = quantiles(turns, (0.5, 0.99))
    d_q = quantiles(m.duration, (0.5, 0.99))
    return (
        "<h2>Coins and match length</h2>"
        + '<div class="grid">'
        + figure("Final coins per seat (box 25–75%, whiskers 5–95%, ○ mean)", box)
        + figure("Match length: turns per match", hist)
        + "</div>"
        + f'<p class="note">Turns per match: median {fmt(t_q[0], 0)}, 99th percentile '
        f"{fmt(t_q[1], 0)}. Wall time per match: median {fmt(d_q[0] * 1000, 1)} ms, 99th "
        f"percentile {fmt(d_q[1] * 1000, 1)} ms.</p>"
    )


def faults_and_times(r: LeagueResults, order: list[int]) -> str:
    m = r.matches
    faults = per_bot(m, m.faults)
    think = thinking(RunReader(r.path).listing().require(), m, r.timings)
    bank = r.league.limits.match_seconds
    rows = []
    for i in order:
        f = faults[i]
        row = [
            html_text(m.bots[i]),
            int(f.sum()),
            fmt(100 * f.mean() if len(f) else float("nan")),
            int((f > 0).sum()),
        ]
        if think.timed_matches:
            used = quantiles(think.per_match[i] / 1e6 / bank, (0.5,))[0]
            most = think.per_match[i].max() / 1e6 / bank if len(think.per_match[i]) else 0.0
            row += [
                f"{think.decisions(i):,}",
                " / ".join(
                    micros(v)
                    for v in (think.quantile(i, 0.5), think.quantile(i, 0.99), think.longest[i])
                ),
                f"{pct(used)} / {pct(most)}",
            ]
        else:
            d = quantiles(by_match(m, m.duration)[i], (0.5, 0.99))
            row.append(f"{fmt(d[0] * 1000, 1)} / {fmt(d[1] * 1000, 1)}")
        rows.append(row)
    head = ["bot", "faults", "per 100 seats", "seats with a fault"]
    if think.timed_matches:
        head += ["decisions", "decision time (median / p99 / max)", "time bank used (median / max)"]
        note = (
            f"Decision time: what each answer cost the bot's time bank, from the timing "
            f"files ({think.timed_matches:,} of {m.n:,} matches have them); median and 99th "
            "percentile within 1.6%, the maximum exact. A bot in another process is timed "
            "from its request to its answer, the way there and back included. Time bank "
            f"used: the share of the {bank:g} s a seat may spend in a match that its "
            "decisions took, per match it sat in."
        )
    else:
        head.append("match wall ms (median / p99)")
        note = (
            "These results have no timing files (logged without moves, or by a bohnarena "
            "before log format 4): shown instead, the wall time of the matches each bot sat in."
        )
    return (
        "<h2>Faults and time</h2>"
        + table(head, rows)
        + f'<p class="note">{note} A fault is an answer replaced by the default (a raise, '
        "an illegal answer or a timeout; the kinds are in the moves log's <code>fault</code> "
        "records).</p>"
    )


def settings(r: LeagueResults) -> str:
    meta = {k: v for k, v in r.meta.items() if k != "seed"}  # a secret seed stays secret
    league_text = (r.path / "league.toml").read_text("utf-8")
    facts = [
        ["bohnarena", html_text(str(meta.get("bohnarena", "?")))],
        ["game", html_text(f"{meta.get('game', r.league.game)} {meta.get('edition', '')}")],
        ["rules version", html_text(str(meta.get("rules_version", "?")))],
        ["log format", html_text(str(meta.get("log_format", "?")))],
        ["python", html_text(str(meta.get("python", "?")))],
        ["platform", html_text(str(meta.get("platform", "?")))],
        ["packages", html_text(", ".join(f"{k} {v}" for k, v in meta.get("packages", {}).items()))],
    ]
    return (
        "<h2>Settings and versions</h2>"
        + table([], facts, "facts")
        + "<details open><summary>league.toml</summary><pre>"
        + html_text(league_text)
        + "</pre></details><details><summary>run.json</summary><pre>"
        + html_text(json.dumps(meta, indent=2, sort_keys=True))
        + "</pre></details>"
    )


def build(
    r: LeagueResults,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    watched: Watched | None = None,
) -> str:
    """The report of ``r`` as one HTML page (its ranking and rating path are
    ``r``'s: rated once, as the run went or as the directory was read);
    ``watched``: the notable matches it links."""
    path = league_path(r.matches, r.curve)
    s = league_stats(r.matches, resamples, seed)
    index = {b: i for i, b in enumerate(s.bots)}
    order = [index[st.bot] for st in r.ranking.standings]
    lg = r.league
    done, total = r.matches.n, r.total
    partial = (
        f'<p class="warn">Partial run: {done:,} of {total:,} matches are finished '
        "(interrupted, a shard, or still running); every figure covers those only.</p>"
        if done < total
        else ""
    )
    title = f"League {lg.name}"
    body = (
        f"<h1>{html_text(title)}</h1>"
        f'<p class="sub">{html_text(r.meta.get("game", lg.game))}, '
        f"{html_text(str(r.meta.get('edition', lg.edition)))} edition, {lg.players} players, "
        f"{len(lg.bots)} bots, {lg.deals} deals × every table and rotation = {total:,} "
        f"matches; {done:,} finished. Report by bohnarena {html_text(__version__)}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.</p>" + partial
    )
    if done:
        body += (
            leaderboard(r, s)
            + hero_section(r, s)
            + convergence(r, path)
            + head_to_head(s, order)
            + seats(s, order)
            + distributions(r, order)
            + faults_and_times(r, order)
            + (watch_section(r.matches, watched) if watched else "")
        )
    else:
        body += "<p>No finished matches yet.</p>"
    body += settings(r)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No request may leave the page: a report is read offline and shared.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html_text(title)} — bohnarena report</title><style>{CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )


def write_report(
    results_dir: str | Path,
    out: str | Path | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    results: LeagueResults | None = None,
    watch: Callable[[LeagueResults, Path], Watched] | None = None,
) -> Path:
    """Write the report of a results directory (default: its report.html);
    ``watch`` writes the notable matches' pages beside it (given the report's
    path) and says which."""
    r = results or read_results(results_dir)
    target = Path(out) if out is not None else r.path / REPORT
    watched = watch(r, target) if watch is not None and r.matches.n else None
    write_text(target, build(r, resamples, seed, watched))
    return target
