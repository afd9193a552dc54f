"""Small inline SVG charts for the HTML report: hand-written, so the page
needs no script, no font or library download, and stays a few kB a chart.

Every chart is an ``<svg class="plot">`` whose marks carry ``class="mark"``
(what the report test counts to see that a plot is drawn)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..core.untrusted import html_text

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
        self.parts: list[str] = []

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
                    f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{y:.1f}" '
                    f'y2="{y:.1f}" stroke="#e5e5e5"/>'
                    f'<text x="{self.left - 6}" y="{y + 4:.1f}" text-anchor="end">'
                    f"{label(v, ypercent)}</text>"
                )
        if xticks:
            for v in ticks(self.x0, self.x1, integer=xinteger):
                if self.x0 <= v <= self.x1:
                    x = self.sx(v)
                    p.append(
                        f'<text x="{x:.1f}" y="{self.height - self.bottom + 16}" '
                        f'text-anchor="middle">{label(v, xpercent)}</text>'
                    )
        base = self.height - self.bottom
        p.append(
            f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{base}" y2="{base}" '
            'stroke="#888"/>'
        )
        if xlabel:
            p.append(
                f'<text x="{(self.left + self.width - self.right) / 2:.0f}" '
                f'y="{self.height - 4}" text-anchor="middle" fill="#555">{html_text(xlabel)}</text>'
            )
        if ylabel:
            p.append(
                f'<text transform="translate(12 {(self.top + base) / 2:.0f}) rotate(-90)" '
                f'text-anchor="middle" fill="#555">{html_text(ylabel)}</text>'
            )

    def svg(self, title: str) -> str:
        return (
            f'<svg class="plot" role="img" aria-label="{html_text(title)}" '
            f'viewBox="0 0 {self.width} {self.height}" width="{self.width}" '
            f'height="{self.height}" {FONT}>' + "".join(self.parts) + "</svg>"
        )


Colours = Sequence[str] | None  # one per series; default: the palette in order


def pick(colours: Colours, i: int) -> str:
    return colours[i] if colours else colour(i)


def legend(names: Sequence[str], colours: Colours = None) -> str:
    """An HTML legend (wraps with the page, unlike SVG text)."""
    items = "".join(
        f'<span class="key"><i style="background:{pick(colours, i)}"></i>{html_text(n)}</span>'
        for i, n in enumerate(names)
    )
    return f'<div class="legend">{items}</div>'


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
) -> str:
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
        if bands:
            low, high = bands[i]
            pts = [(x, v) for x, v in zip(xs, high, strict=True) if math.isfinite(v)]
            pts += [
                (x, v) for x, v in reversed(list(zip(xs, low, strict=True))) if math.isfinite(v)
            ]
            if pts:
                path = " ".join(f"{f.sx(x):.1f},{f.sy(v):.1f}" for x, v in pts)
                f.parts.append(
                    f'<polygon points="{path}" fill="{pick(colours, i)}" opacity="0.15"/>'
                )
        pts = [(x, v) for x, v in zip(xs, s, strict=True) if math.isfinite(v)]
        if pts:
            path = " ".join(f"{f.sx(x):.1f},{f.sy(v):.1f}" for x, v in pts)
            f.parts.append(
                f'<polyline class="mark" points="{path}" fill="none" stroke="{pick(colours, i)}" '
                'stroke-width="2"/>'
            )
        if dots:
            f.parts += [
                f'<circle cx="{f.sx(x):.1f}" cy="{f.sy(v):.1f}" r="3" fill="{pick(colours, i)}"/>'
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
) -> str:
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
        f.parts.append(
            f'<text x="{f.left - 8}" y="{y + 4:.1f}" text-anchor="end">{html_text(name)}</text>'
        )
        if math.isfinite(low[i]) and math.isfinite(high[i]):
            f.parts.append(
                f'<line x1="{f.sx(low[i]):.1f}" x2="{f.sx(high[i]):.1f}" y1="{y:.1f}" '
                f'y2="{y:.1f}" stroke="{pick(colours, i)}" stroke-width="3"/>'
            )
        if math.isfinite(value[i]):
            f.parts.append(
                f'<circle class="mark" cx="{f.sx(value[i]):.1f}" cy="{y:.1f}" r="5" '
                f'fill="{pick(colours, i)}"/>'
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
) -> str:
    """Bars per group (x) and name (colour), each with an interval whisker;
    ``value[name][group]``. Percent scale from 0."""
    top = max([v for row in high for v in row if math.isfinite(v)] + [0.05])
    f = Frame(width, height, (0, len(groups)), (0, min(1.0, top * 1.05)))
    f.axes("", ylabel, ypercent=True, xticks=False)
    slot = (f.sx(1) - f.sx(0)) * 0.8 / max(1, len(names))
    for g, group in enumerate(groups):
        x0 = f.sx(g) + (f.sx(1) - f.sx(0)) * 0.1
        f.parts.append(
            f'<text x="{f.sx(g + 0.5):.1f}" y="{height - f.bottom + 16}" '
            f'text-anchor="middle">{html_text(group)}</text>'
        )
        for i in range(len(names)):
            v = value[i][g]
            if not math.isfinite(v):
                continue
            x = x0 + i * slot
            f.parts.append(
                f'<rect class="mark" x="{x:.1f}" y="{f.sy(v):.1f}" width="{slot * 0.9:.1f}" '
                f'height="{max(0.5, f.sy(0) - f.sy(v)):.1f}" fill="{pick(colours, i)}"/>'
            )
            if math.isfinite(low[i][g]) and math.isfinite(high[i][g]):
                cx = x + slot * 0.45
                f.parts.append(
                    f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{f.sy(low[i][g]):.1f}" '
                    f'y2="{f.sy(high[i][g]):.1f}" stroke="#333"/>'
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
) -> str:
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
        f.parts.append(
            f'<text x="{f.left - 8}" y="{y + 4:.1f}" text-anchor="end">{html_text(name)}</text>'
        )
        q5, q25, q50, q75, q95 = quantiles[i]
        if not math.isfinite(q50):
            continue
        f.parts.append(
            f'<line x1="{f.sx(q5):.1f}" x2="{f.sx(q95):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="#666"/>'
            f'<rect class="mark" x="{f.sx(q25):.1f}" y="{y - 9:.1f}" '
            f'width="{max(1.0, f.sx(q75) - f.sx(q25)):.1f}" height="18" fill="{pick(colours, i)}" '
            'fill-opacity="0.6" stroke="#333"/>'
            f'<line x1="{f.sx(q50):.1f}" x2="{f.sx(q50):.1f}" y1="{y - 9:.1f}" '
            f'y2="{y + 9:.1f}" stroke="#000" stroke-width="2"/>'
        )
        if math.isfinite(means[i]):
            f.parts.append(
                f'<circle cx="{f.sx(means[i]):.1f}" cy="{y:.1f}" r="3" fill="#fff" stroke="#000"/>'
            )
    return f.svg(title)


def histogram(
    title: str, edges: Sequence[float], counts: Sequence[int], xlabel: str, width: int = 460
) -> str:
    """Bars of counts between consecutive edges (whole-number ticks: counts
    of discrete things, such as turns, centred on their value)."""
    height = 240
    f = Frame(width, height, (edges[0], edges[-1]), (0, max([*counts, 1]) * 1.05))
    f.axes(xlabel, "matches", xinteger=True)
    for i, c in enumerate(counts):
        if c:
            x, x2 = f.sx(edges[i]), f.sx(edges[i + 1])
            f.parts.append(
                f'<rect class="mark" x="{x:.1f}" y="{f.sy(c):.1f}" '
                f'width="{max(0.5, x2 - x - 1):.1f}" height="{f.sy(0) - f.sy(c):.1f}" '
                f'fill="{colour(0)}"/>'
            )
    return f.svg(title)


def heatmap(
    title: str,
    names: Sequence[str],
    value: Sequence[Sequence[float]],
    low: Sequence[Sequence[float]],
    high: Sequence[Sequence[float]],
) -> str:
    """A matrix of shares (0-1): blue above one half, red below, the share
    and its interval written in each cell; the diagonal left blank."""
    cell_w, cell_h, left, top = 96, 40, 110, 28
    n = len(names)
    width, height = left + cell_w * n + 8, top + cell_h * n + 8
    parts = []
    for j, name in enumerate(names):
        parts.append(
            f'<text x="{left + cell_w * (j + 0.5):.0f}" y="{top - 10}" text-anchor="middle">'
            f"{html_text(name[:14])}</text>"
        )
    for i, name in enumerate(names):
        y = top + cell_h * i
        parts.append(
            f'<text x="{left - 8}" y="{y + cell_h / 2 + 4:.0f}" text-anchor="end">'
            f"{html_text(name)}</text>"
        )
        for j in range(n):
            x = left + cell_w * j
            v = value[i][j]
            if i == j or not math.isfinite(v):
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                    'fill="#f3f3f3"/>'
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
                f'<rect class="mark" x="{x}" y="{y}" width="{cell_w - 2}" '
                f'height="{cell_h - 2}" fill="{fill}"/>'
                f'<text x="{x + cell_w / 2 - 1:.0f}" y="{y + 17}" text-anchor="middle" '
                f'fill="{ink}" font-weight="600">{v:.0%}</text>'
                f'<text x="{x + cell_w / 2 - 1:.0f}" y="{y + 31}" text-anchor="middle" '
                f'fill="{ink}" font-size="10">{span}</text>'
            )
    return (
        f'<svg class="plot" role="img" aria-label="{html_text(title)}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT}>'
        + "".join(parts)
        + "</svg>"
    )
