"""What a study shows of each parameter: the trend of the objective across
its range, a least-squares line over the trials with its 95% interval."""

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

    @property
    def clear(self) -> bool:
        """Whether the interval leaves out 0."""
        return self.low > 0 or self.high < 0


def position(d: Dimension, value: float) -> float:
    """Where ``value`` lies in the range, 0 to 1 (on its scale)."""
    if d.log:
        return math.log(value / d.low) / math.log(d.high / d.low)
    return (value - d.low) / (d.high - d.low)


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
    return Effect(d.name, slope, slope - half, slope + half)
