"""The league report: one self-contained HTML file (inline CSS and SVG, no
script, nothing fetched), built from aggregates only, so it stays small and
opens at once whatever the league's size (docs/report.md). Each section's
figures are computed here and shown by ``templates/`` (``report.html``
and the macros of ``sections.html``), which escape every text."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..analysis.results import LeagueResults, read_results
from ..analysis.thinking import thinking
from ..core.pages import Markup, markup, render
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
from ..run.verify import public_meta
from ..store import layout
from ..store.faultlog import described, fault_reasons
from ..store.parts import write_text
from ..store.reading import RunReader
from . import svg
from .hero import hero_figures
from .talk import talk
from .watch import Watched
from .watch import section as watch_section

REPORT = layout.REPORT


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


def span(v: float, lo: float, hi: float, percent: bool = False) -> str | Markup:
    """A figure with its interval below it."""
    show = pct if percent else fmt
    if not np.isfinite(lo):
        return show(v)
    tail = f"{lo * 100:.1f}–{hi * 100:.1f}" if percent else f"{fmt(lo)}–{fmt(hi)}"
    return markup("{}<br><small>{}</small>", show(v), tail)


def leaderboard(r: LeagueResults, s: LeagueStats) -> dict[str, Any]:
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
                markup('<b style="color:{}">■</b> {}', svg.colour(i), st.bot),
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
    head = ["#", "bot", "score μ−3σ", "TrueSkill μ ± σ", "matches", "win rate", "mean coins"]
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
    return {
        "head": head,
        "rows": rows,
        "forest": forest,
        "places": places,
        "resamples": s.resamples,
        "deals": s.deals,
        "seed": s.seed,
    }


def convergence(r: LeagueResults, path: Trajectory, order: list[int]) -> dict[str, Any]:
    """The ratings' and win rates' paths, bots in the standings' ``order``
    (each in its colour), the legend in that order too."""
    at = [float(x) for x in path.at]
    colours = [svg.colour(i) for i in order]
    mu = svg.lines(
        "TrueSkill mu as matches were rated",
        at,
        [path.mu[:, i].tolist() for i in order],
        "matches rated (match-id order)",
        "μ",
        bands=[
            (
                (path.mu[:, i] - path.sigma[:, i]).tolist(),
                (path.mu[:, i] + path.sigma[:, i]).tolist(),
            )
            for i in order
        ],
        colours=colours,
    )
    wins = svg.lines(
        "cumulative win rate",
        at,
        [path.win_rate[:, i].tolist() for i in order],
        "matches (match-id order)",
        "win rate",
        percent=True,
        colours=colours,
    )
    legend = svg.legend([r.matches.bots[i] for i in order], colours)
    return {"legend": legend, "mu": mu, "wins": wins}


def head_to_head(s: LeagueStats, order: list[int]) -> dict[str, Any]:
    names = [s.bots[i] for i in order]

    def pick(a: Any) -> list[list[float]]:
        return [[float(a[i, j]) for j in order] for i in order]

    t = elo_table(s, names)
    return {
        "heatmap": svg.heatmap(
            "head to head", names, pick(s.h2h.value), pick(s.h2h.low), pick(s.h2h.high)
        ),
        "head": t.head,
        "rows": t.cells,  # each pair once: its score and Elo-style difference
    }


def hero_section(r: LeagueResults, s: LeagueStats) -> dict[str, Any] | None:
    """A gauntlet's hero: against each opponent, by seat, its worst deals."""
    hero = r.league.hero
    if r.league.format != "gauntlet" or hero is None or hero not in s.bots:
        return None
    f = hero_figures(r.matches, s, hero, r.path)
    h = s.bots.index(hero)
    against = [[o.bot, o.pairs, span(o.score, o.low, o.high, True), o.elo] for o in f.opponents]
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
            ", ".join(w.seats),
            markup("<code>{}</code>", w.command),
        ]
        for w in f.worst
    ]
    return {"name": hero, "against": against, "by_seat": by_seat, "worst": worst}


def seats(s: LeagueStats, order: list[int]) -> dict[str, Any]:
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
    return {"legend": svg.legend(names, [svg.colour(i) for i in order]), "chart": chart}


def distributions(r: LeagueResults, order: list[int]) -> dict[str, Any]:
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
    return {
        "box": box,
        "hist": hist,
        "turns": (fmt(t_q[0], 0), fmt(t_q[1], 0)),
        "wall": (fmt(d_q[0] * 1000, 1), fmt(d_q[1] * 1000, 1)),
    }


def faults_and_times(r: LeagueResults, order: list[int]) -> dict[str, Any]:
    m = r.matches
    faults = per_bot(m, m.faults)
    think = thinking(RunReader(r.path).listing().require(), m, r.timings)
    bank = r.league.limits.match_seconds
    rows = []
    for i in order:
        f = faults[i]
        row: list[Any] = [
            m.bots[i],
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
    else:
        head.append("match wall ms (median / p99)")
    return {
        "head": head,
        "rows": rows,
        "reasons": fault_lines(r, [m.bots[i] for i in order]) if m.faults.any() else [],
        "timed": f"{think.timed_matches:,}" if think.timed_matches else "",
        "matches": f"{m.n:,}",
        "bank": f"{bank:g}",
    }


def words(r: LeagueResults) -> dict[str, Any] | None:
    """The seats that play in words: what they cost and how often they
    misspoke (None: the league has none)."""
    found = talk(RunReader(r.path).listing().require(), r.matches)
    if not found:
        return None
    rows = []
    for t in found:
        median, p90 = t.latency()
        rows.append(
            [
                t.bot,
                f"{t.decisions:,}",
                f"{fmt(t.tokens_in / t.seats, 0)} / {fmt(t.tokens_out / t.seats, 0)}",
                f"{micros(median)} / {micros(p90)}",
                fmt(t.retries / t.decisions),
                pct(t.refused / t.replies if t.replies else float("nan")),
            ]
        )
    head = [
        "bot",
        "decisions asked",
        "tokens a match (in / out)",
        "latency (median / p90)",
        "retries a decision",
        "illegal replies",
    ]
    return {"head": head, "rows": rows}


def fault_lines(r: LeagueResults, order: list[str]) -> list[tuple[str, list[str]]]:
    """Each faulting bot (in ``order``) with its fault types, how often and
    the first reason of each, and its forfeits; nothing where the run
    logged no moves."""
    found = fault_reasons(r.path) or {}
    return [(bot, described(found[bot])) for bot in order if bot in found]


def settings(r: LeagueResults) -> dict[str, Any]:
    meta = public_meta(r.meta)  # a secret seed and its salt stay secret (until `reveal`)
    league_text = (r.path / layout.LEAGUE).read_text("utf-8")
    facts = [
        ["bohnarena", str(meta.get("bohnarena", "?"))],
        ["game", f"{meta.get('game', r.league.game)} {meta.get('edition', '')}"],
        ["rules version", str(meta.get("rules_version", "?"))],
        ["log format", str(meta.get("log_format", "?"))],
        ["python", str(meta.get("python", "?"))],
        ["platform", str(meta.get("platform", "?"))],
        ["packages", ", ".join(f"{k} {v}" for k, v in meta.get("packages", {}).items())],
    ]
    facts += [
        [f"{bot}'s parameters", ", ".join(f"{k}={v}" for k, v in sorted(params.items()))]
        for bot, params in meta.get("params", {}).items()
    ]
    if "seed_commitment" in meta:  # docs/fairness.md
        facts.append(["seed commitment", str(meta["seed_commitment"])])
    if "chain_head" in meta:  # (as the run that wrote the report left it)
        facts.append(["chain head", str(meta["chain_head"])])
    return {
        "facts": facts,
        "league": league_text,
        "run": json.dumps(meta, indent=2, sort_keys=True),
    }


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
    sections: dict[str, Any] = {"board": None}
    if done:
        sections = {
            "board": leaderboard(r, s),
            "hero": hero_section(r, s),
            "convergence": convergence(r, path, order),
            "pairs": head_to_head(s, order),
            "seats": seats(s, order),
            "distributions": distributions(r, order),
            "faults": faults_and_times(r, order),
            "words": words(r),
            "watch": watch_section(r.matches, watched) if watched else None,
        }
    return render(
        __package__,
        "report.html",
        title=f"League {lg.name}",
        game=r.meta.get("game", lg.game),
        edition=str(r.meta.get("edition", lg.edition)),
        players=lg.players,
        bots=len(lg.bots),
        deals=lg.deals,
        total=f"{total:,}",
        done=f"{done:,}",
        partial=done < total,
        version=__version__,
        when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        settings=settings(r),
        **sections,
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
