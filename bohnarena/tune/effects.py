"""What a study shows of each parameter: the trend of the objective across
its range, a least-squares line over the trials with its 95% interval, and
where a parabola through them peaks."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rating.paired import LEVEL, t_quantile
from .study import Dimension, Trial


@dataclass(frozen=True)
class Effect:
    """The objective's change from one end of a parameter's range to the
    other (coins a deal), from a straight line through the trials."""

    name: str
    change: float
    low: float  # its interval
    high: float
    #: Where a least-squares parabola through the trials is highest in the
    #: range (its top, or the better end); nan with fewer than 4 trials.
    fitted_best: float = math.nan

    @property
    def clear(self) -> bool:
        """Whether the interval leaves out 0."""
        return self.low > 0 or self.high < 0


def position(d: Dimension, value: float) -> float:
    """Where ``value`` lies in the range, 0 to 1 (on its scale)."""
    if d.log:
        return math.log(value / d.low) / math.log(d.high / d.low)
    return (value - d.low) / (d.high - d.low)


def value_at(d: Dimension, pos: float) -> float:
    """The value at ``pos`` (0 to 1) of the range, on its scale."""
    value = d.low * (d.high / d.low) ** pos if d.log else d.low + pos * (d.high - d.low)
    return float(round(value)) if d.integer else value


def parabola_top(xs: list[float], ys: list[float]) -> float:
    """Where y = a + b x + c x^2, fitted by least squares, is highest on [0, 1]."""
    sums = [sum(x**k for x in xs) for k in range(5)]
    rhs = [sum(y * x**k for x, y in zip(xs, ys, strict=True)) for k in range(3)]
    m = [[sums[i + j] for j in range(3)] + [rhs[i]] for i in range(3)]
    for i in range(3):  # Gauss-Jordan with partial pivoting
        pivot = max(range(i, 3), key=lambda r: abs(m[r][i]))
        m[i], m[pivot] = m[pivot], m[i]
        if abs(m[i][i]) < 1e-12:
            return math.nan
        for r in range(3):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [a - f * b for a, b in zip(m[r], m[i], strict=True)]
    a, b, c = (m[i][3] / m[i][i] for i in range(3))
    candidates = [0.0, 1.0] + ([-b / (2 * c)] if c < 0 and 0 < -b / (2 * c) < 1 else [])
    return max(candidates, key=lambda x: a + b * x + c * x * x)


def effect(d: Dimension, done: list[Trial]) -> Effect:
    xs = [position(d, t.values[d.name]) for t in done if d.name in t.values]
    ys = [t.objective for t in done if d.name in t.values]
    n = len(xs)
    if n < 3:
        return Effect(d.name, math.nan, -math.inf, math.inf)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return Effect(d.name, math.nan, -math.inf, math.inf)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    resid = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys, strict=True))
    half = t_quantile(0.5 + LEVEL / 2, n - 2) * math.sqrt(resid / (n - 2) / sxx)
    top = parabola_top(xs, ys) if n >= 4 else math.nan
    return Effect(d.name, slope, slope - half, slope + half, value_at(d, top))
