"""Small inline SVG charts for the HTML report: hand-written, so the page
needs no script, no font or library download, and stays a few kB a chart.

Every chart is an ``<svg class="plot">`` whose marks carry ``class="mark"``
(what the report test counts to see that a plot is drawn). Each is
markup (:class:`markupsafe.Markup`) whose every piece is written by
:func:`..core.pages.markup`: a name or a label in it is escaped text."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..core.pages import Markup, join, markup

PALETTE = [
    "#4269d0",
    "#efb118",
    "#ff725c",
    "#6cc5b0",
    "#3ca951",
    "#ff8ab7",
    "#a463f2",
    "#97bbf5",
    "#9c6b4e",
    "#9498a0",
]
FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values covering [lo, hi] (whole numbers only if ``integer``)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        hi = lo + 1 if math.isfinite(lo) else 1.0
        lo = lo if math.isfinite(lo) else 0.0
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * step:
            step *= m
            break
    if integer:
        step = max(1.0, round(step))
    first = math.ceil(lo / step - 1e-9) * step
    out, v = [], first
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def label(v: float, percent: bool = False) -> str:
    if percent:
        return f"{v:.0%}"
    return f"{v:g}" if abs(v) < 1e5 else f"{v:,.0f}"


class Frame:
    """A chart area with linear x and y scales, axes and gridlines."""

    def __init__(
        self,
        width: int,
        height: int,
        x: tuple[float, float],
        y: tuple[float, float],
        left: int = 48,
        bottom: int = 34,
        top: int = 12,
        right: int = 16,
    ) -> None:
        self.width, self.height = width, height
        self.left, self.right, self.top, self.bottom = left, right, top, bottom
        self.x0, self.x1 = x if x[1] > x[0] else (x[0], x[0] + 1)
        self.y0, self.y1 = y if y[1] > y[0] else (y[0], y[0] + 1)
        self.parts: list[Markup] = []

    def sx(self, v: float) -> float:
        span = self.width - self.left - self.right
        return self.left + (v - self.x0) / (self.x1 - self.x0) * span

    def sy(self, v: float) -> float:
        span = self.height - self.top - self.bottom
        return self.height - self.bottom - (v - self.y0) / (self.y1 - self.y0) * span

    def axes(
        self,
        xlabel: str = "",
        ylabel: str = "",
        xpercent: bool = False,
        ypercent: bool = False,
        xticks: bool = True,
        xinteger: bool = False,
    ) -> None:
        p = self.parts
        for v in ticks(self.y0, self.y1):
            if self.y0 <= v <= self.y1:
                y = self.sy(v)
                p.append(
                    markup(
                        '<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#e5e5e5"/>'
                        '<text x="{}" y="{:.1f}" text-anchor="end">{}</text>',
                        self.left,
                        self.width - self.right,
                        y,
                        y,
                        self.left - 6,
                        y + 4,
                        label(v, ypercent),
                    )
                )
        if xticks:
            for v in ticks(self.x0, self.x1, integer=xinteger):
                if self.x0 <= v <= self.x1:
                    x = self.sx(v)
                    p.append(
                        markup(
                            '<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                            x,
                            self.height - self.bottom + 16,
                            label(v, xpercent),
                        )
                    )
        base = self.height - self.bottom
        p.append(
            markup(
                '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#888"/>',
                self.left,
                self.width - self.right,
                base,
                base,
            )
        )
        if xlabel:
            p.append(
                markup(
                    '<text x="{:.0f}" y="{}" text-anchor="middle" fill="#555">{}</text>',
                    (self.left + self.width - self.right) / 2,
                    self.height - 4,
                    xlabel,
                )
            )
        if ylabel:
            p.append(
                markup(
                    '<text transform="translate(12 {:.0f}) rotate(-90)" '
                    'text-anchor="middle" fill="#555">{}</text>',
                    (self.top + base) / 2,
                    ylabel,
                )
            )

    def row_label(self, y: float, name: str) -> None:
        """A row's name, left of the chart area."""
        self.parts.append(
            markup(
                '<text x="{}" y="{:.1f}" text-anchor="end">{}</text>', self.left - 8, y + 4, name
            )
        )

    def svg(self, title: str) -> Markup:
        return plot(title, self.width, self.height, self.parts)


def plot(title: str, width: int, height: int, parts: Sequence[Markup]) -> Markup:
    """The chart's ``<svg>`` element around its pieces."""
    return markup(
        '<svg class="plot" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" '
        'height="{}" ' + FONT + ">{}</svg>",
        title,
        width,
        height,
        width,
        height,
        join(parts),
    )


Colours = Sequence[str] | None  # one per series; default: the palette in order


def pick(colours: Colours, i: int) -> str:
    return colours[i] if colours else colour(i)


def legend(names: Sequence[str], colours: Colours = None) -> Markup:
    """An HTML legend (wraps with the page, unlike SVG text)."""
    items = join(
        markup('<span class="key"><i style="background:{}"></i>{}</span>', pick(colours, i), n)
        for i, n in enumerate(names)
    )
    return markup('<div class="legend">{}</div>', items)


def lines(
    title: str,
    xs: Sequence[float],
    series: Sequence[Sequence[float]],
    xlabel: str,
    ylabel: str,
    percent: bool = False,
    bands: Sequence[tuple[Sequence[float], Sequence[float]]] | None = None,
    width: int = 460,
    height: int = 260,
    colours: Colours = None,
    xinteger: bool = False,
    dots: bool = False,
) -> Markup:
    """One line per series over shared xs; optional shaded bands (low, high);
    ``dots``: a dot at every point too (a series of one point shows)."""
    values = [v for s in series for v in s if math.isfinite(v)]
    if bands:
        values += [v for lo, hi in bands for v in (*lo, *hi) if math.isfinite(v)]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (hi - lo) * 0.05 or 0.5
    f = Frame(width, height, (min(xs, default=0), max(xs, default=1)), (lo - pad, hi + pad))
    if percent:
        f.y0, f.y1 = max(0.0, f.y0), min(1.0, f.y1) if f.y1 > f.y0 else f.y1
    f.axes(xlabel, ylabel, ypercent=percent, xinteger=xinteger)
    for i, s in enumerate(series):
        # each line a little thinner than the one drawn before it: where two
        # coincide (two bots at 0% win rate), the earlier shows round the later
        stroke = 2 + 2 * (len(series) - 1 - i) / max(len(series) - 1, 1)
        if bands:
            low, high = bands[i]
            pts = [(x, v) for x, v in zip(xs, high, strict=True) if math.isfinite(v)]
            pts += [
                (x, v) for x, v in reversed(list(zip(xs, low, strict=True))) if math.isfinite(v)
            ]
            if pts:
                path = " ".join(f"{f.sx(x):.1f},{f.sy(v):.1f}" for x, v in pts)
                f.parts.append(
                    markup(
                        '<polygon points="{}" fill="{}" opacity="0.15"/>', path, pick(colours, i)
                    )
                )
        pts = [(x, v) for x, v in zip(xs, s, strict=True) if math.isfinite(v)]
        if pts:
            path = " ".join(f"{f.sx(x):.1f},{f.sy(v):.1f}" for x, v in pts)
            f.parts.append(
                markup(
                    '<polyline class="mark" points="{}" fill="none" stroke="{}" '
                    'stroke-width="{:.2f}"/>',
                    path,
                    pick(colours, i),
                    stroke,
                )
            )
        if dots:
            f.parts += [
                markup(
                    '<circle cx="{:.1f}" cy="{:.1f}" r="{:.2f}" fill="{}"/>',
                    f.sx(x),
                    f.sy(v),
                    1 + stroke,
                    pick(colours, i),
                )
                for x, v in pts
            ]
    return f.svg(title)


def intervals(
    title: str,
    names: Sequence[str],
    value: Sequence[float],
    low: Sequence[float],
    high: Sequence[float],
    xlabel: str,
    percent: bool = False,
    width: int = 460,
    colours: Colours = None,
) -> Markup:
    """A forest plot: one row per name, a dot and its interval."""
    row = 26
    height = 40 + row * len(names)
    finite = [v for v in (*value, *low, *high) if math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    pad = (hi - lo) * 0.08 or 0.5
    if percent:
        lo, hi, pad = max(0.0, lo - pad), min(1.0, hi + pad), 0.0
    f = Frame(width, height, (lo - pad, hi + pad), (0, len(names)), left=110, top=8)
    f.axes(xlabel, xpercent=percent)
    f.parts = [p for p in f.parts if 'text-anchor="end"' not in p]  # no y tick labels
    for i, name in enumerate(names):
        y = f.sy(len(names) - i - 0.5)
        f.row_label(y, name)
        if math.isfinite(low[i]) and math.isfinite(high[i]):
            f.parts.append(
                markup(
                    '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="{}" '
                    'stroke-width="3"/>',
                    f.sx(low[i]),
                    f.sx(high[i]),
                    y,
                    y,
                    pick(colours, i),
                )
            )
        if math.isfinite(value[i]):
            f.parts.append(
                markup(
                    '<circle class="mark" cx="{:.1f}" cy="{:.1f}" r="5" fill="{}"/>',
                    f.sx(value[i]),
                    y,
                    pick(colours, i),
                )
            )
    return f.svg(title)


def grouped_bars(
    title: str,
    groups: Sequence[str],
    names: Sequence[str],
    value: Sequence[Sequence[float]],
    low: Sequence[Sequence[float]],
    high: Sequence[Sequence[float]],
    ylabel: str,
    width: int = 460,
    height: int = 260,
    colours: Colours = None,
) -> Markup:
    """Bars per group (x) and name (colour), each with an interval whisker;
    ``value[name][group]``. Percent scale from 0."""
    top = max([v for row in high for v in row if math.isfinite(v)] + [0.05])
    f = Frame(width, height, (0, len(groups)), (0, min(1.0, top * 1.05)))
    f.axes("", ylabel, ypercent=True, xticks=False)
    slot = (f.sx(1) - f.sx(0)) * 0.8 / max(1, len(names))
    for g, group in enumerate(groups):
        x0 = f.sx(g) + (f.sx(1) - f.sx(0)) * 0.1
        f.parts.append(
            markup(
                '<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                f.sx(g + 0.5),
                height - f.bottom + 16,
                group,
            )
        )
        for i in range(len(names)):
            v = value[i][g]
            if not math.isfinite(v):
                continue
            x = x0 + i * slot
            f.parts.append(
                markup(
                    '<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" '
                    'fill="{}"/>',
                    x,
                    f.sy(v),
                    slot * 0.9,
                    max(0.5, f.sy(0) - f.sy(v)),
                    pick(colours, i),
                )
            )
            if math.isfinite(low[i][g]) and math.isfinite(high[i][g]):
                cx = x + slot * 0.45
                f.parts.append(
                    markup(
                        '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#333"/>',
                        cx,
                        cx,
                        f.sy(low[i][g]),
                        f.sy(high[i][g]),
                    )
                )
    return f.svg(title)


def boxes(
    title: str,
    names: Sequence[str],
    quantiles: Sequence[Sequence[float]],
    means: Sequence[float],
    xlabel: str,
    width: int = 460,
    colours: Colours = None,
) -> Markup:
    """Horizontal box plots: whiskers 5-95%, box 25-75%, median line, mean dot;
    ``quantiles[i]`` = (q5, q25, q50, q75, q95)."""
    row = 30
    height = 40 + row * len(names)
    finite = [v for q in quantiles for v in q if math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    pad = (hi - lo) * 0.05 or 0.5
    f = Frame(width, height, (lo - pad, hi + pad), (0, len(names)), left=110, top=8)
    f.axes(xlabel)
    f.parts = [p for p in f.parts if 'text-anchor="end"' not in p]
    for i, name in enumerate(names):
        y = f.sy(len(names) - i - 0.5)
        f.row_label(y, name)
        q5, q25, q50, q75, q95 = quantiles[i]
        if not math.isfinite(q50):
            continue
        f.parts.append(
            markup(
                '<line x1="{:.1f}" x2="{:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#666"/>'
                '<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="18" fill="{}" '
                'fill-opacity="0.6" stroke="#333"/>'
                '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#000" '
                'stroke-width="2"/>',
                f.sx(q5),
                f.sx(q95),
                f.sx(q25),
                y - 9,
                max(1.0, f.sx(q75) - f.sx(q25)),
                pick(colours, i),
                f.sx(q50),
                f.sx(q50),
                y - 9,
                y + 9,
                y=y,
            )
        )
        if math.isfinite(means[i]):
            f.parts.append(
                markup(
                    '<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="#fff" stroke="#000"/>',
                    f.sx(means[i]),
                    y,
                )
            )
    return f.svg(title)


def histogram(
    title: str, edges: Sequence[float], counts: Sequence[int], xlabel: str, width: int = 460
) -> Markup:
    """Bars of counts between consecutive edges (whole-number ticks: counts
    of discrete things, such as turns, centred on their value)."""
    height = 240
    f = Frame(width, height, (edges[0], edges[-1]), (0, max([*counts, 1]) * 1.05))
    f.axes(xlabel, "matches", xinteger=True)
    for i, c in enumerate(counts):
        if c:
            x, x2 = f.sx(edges[i]), f.sx(edges[i + 1])
            f.parts.append(
                markup(
                    '<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" '
                    'fill="{}"/>',
                    x,
                    f.sy(c),
                    max(0.5, x2 - x - 1),
                    f.sy(0) - f.sy(c),
                    colour(0),
                )
            )
    return f.svg(title)


def heatmap(
    title: str,
    names: Sequence[str],
    value: Sequence[Sequence[float]],
    low: Sequence[Sequence[float]],
    high: Sequence[Sequence[float]],
) -> Markup:
    """A matrix of shares (0-1): blue above one half, red below, the share
    and its interval written in each cell; the diagonal left blank."""
    cell_w, cell_h, left, top = 96, 40, 110, 28
    n = len(names)
    width, height = left + cell_w * n + 8, top + cell_h * n + 8
    parts = []
    for j, name in enumerate(names):
        parts.append(
            markup(
                '<text x="{:.0f}" y="{}" text-anchor="middle">{}</text>',
                left + cell_w * (j + 0.5),
                top - 10,
                name[:14],
            )
        )
    for i, name in enumerate(names):
        y = top + cell_h * i
        parts.append(
            markup(
                '<text x="{}" y="{:.0f}" text-anchor="end">{}</text>',
                left - 8,
                y + cell_h / 2 + 4,
                name,
            )
        )
        for j in range(n):
            x = left + cell_w * j
            v = value[i][j]
            if i == j or not math.isfinite(v):
                parts.append(
                    markup(
                        '<rect x="{}" y="{}" width="{}" height="{}" fill="#f3f3f3"/>',
                        x,
                        y,
                        cell_w - 2,
                        cell_h - 2,
                    )
                )
                continue
            strength = min(1.0, abs(v - 0.5) * 2)
            rgb = (66, 105, 208) if v >= 0.5 else (255, 114, 92)
            fill = "rgb({},{},{})".format(*(round(255 - (255 - c) * strength) for c in rgb))
            ink = "#fff" if strength > 0.6 else "#111"
            span = ""
            if math.isfinite(low[i][j]):
                span = f"{low[i][j] * 100:.0f}-{high[i][j] * 100:.0f}%"
            parts.append(
                markup(
                    '<rect class="mark" x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"/>'
                    '<text x="{mid:.0f}" y="{}" text-anchor="middle" fill="{ink}" '
                    'font-weight="600">{:.0%}</text>'
                    '<text x="{mid:.0f}" y="{}" text-anchor="middle" fill="{ink}" '
                    'font-size="10">{}</text>',
                    y + 17,
                    v,
                    y + 31,
                    span,
                    x=x,
                    y=y,
                    w=cell_w - 2,
                    h=cell_h - 2,
                    fill=fill,
                    mid=x + cell_w / 2 - 1,
                    ink=ink,
                )
            )
    return plot(title, width, height, parts)
