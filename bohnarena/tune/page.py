"""The page a study writes: the best parameters, each one's effect, the
objective over the trials and a plot per parameter (inline SVG, escaped:
core/pages.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.pages import Markup, markup, render
from ..report.svg import Frame, colour, legend, lines
from .effects import Effect
from .study import Dimension, Setup, Trial, best


def objective_chart(done: Sequence[Trial]) -> Markup:
    xs = [float(t.slot + 1) for t in done]
    ys = [t.objective for t in done]
    top = [max(ys[: i + 1]) for i in range(len(ys))]
    return lines(
        "The objective of each trial, and the best so far",
        xs,
        [ys, top],
        "trial",
        "coins a deal vs baseline",
        xinteger=True,
        dots=True,
    )


def parameter_chart(d: Dimension, done: Sequence[Trial], chosen: Trial) -> Markup:
    """Each trial's objective against the parameter's value (a log
    parameter's log10), the best trial larger."""
    scale = math.log10 if d.log else float
    pts = [(scale(t.values[d.name]), t.objective, t is chosen) for t in done]
    ys = [y for _, y, _ in pts]
    lo, hi = (min(ys), max(ys)) if ys else (0.0, 1.0)
    pad = (hi - lo) * 0.05 or 0.5
    f = Frame(460, 260, (scale(d.low), scale(d.high)), (lo - pad, hi + pad))
    f.axes(f"log10 {d.name}" if d.log else d.name, "coins a deal", xinteger=d.integer and not d.log)
    for x, y, top in pts:
        f.parts.append(
            markup(
                '<circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}" opacity="0.8"/>',
                f.sx(x),
                f.sy(y),
                6 if top else 3,
                colour(1 if top else 0),
            )
        )
    return f.svg(f"The objective against {d.name}")


def page(
    setup: Setup,
    done: Sequence[Trial],
    effects: Sequence[Effect],
    importance: Mapping[str, float],
    confirmation: Sequence[str],
) -> str:
    chosen = best(list(done))
    low, high = chosen.estimate.interval()
    return render(
        __package__,
        "tune.html",
        setup=setup,
        trials=len(done),
        pruned=sum(t.pruned for t in done),
        best=chosen,
        spec=setup.candidate(chosen.values),
        interval=(low, high),
        effects=effects,
        importance=importance,
        objective=objective_chart(done),
        objective_legend=legend(["each trial", "the best so far"]),
        charts=[parameter_chart(d, done, chosen) for d in setup.dimensions],
        confirmation=confirmation,
        fmt=_fmt,
    )


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "n/a" if not math.isfinite(v) else f"{v:+.3f}"
    return str(v)
