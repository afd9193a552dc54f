"""Paired comparisons: a mean difference with its Student-t interval and
p-value, and a sequential probability ratio test (SPRT) on the same
differences (docs/statistics.md).

Observations are per-deal differences (compare.py): the matches of one
deal share a deck and are not independent, different deals are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        even = m * (b - m) * x / ((qam + m2) * (a + m2))
        odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        for num in (even, odd):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(log_front + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with t_cdf(t, df) = p (bisection: a few dozen cdf calls)."""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


@dataclass(frozen=True)
class Estimate:
    """The mean of ``n`` independent differences, with its spread."""

    n: int
    mean: float
    sd: float  # sample standard deviation (n - 1)

    @classmethod
    def of(cls, xs: Sequence[float]) -> Estimate:
        n = len(xs)
        mean = math.fsum(xs) / n if n else 0.0
        var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
        return cls(n, mean, math.sqrt(var))

    @property
    def stderr(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n else math.inf

    @property
    def t(self) -> float:
        if self.stderr > 0:
            return self.mean / self.stderr
        return 0.0 if self.mean == 0 else math.copysign(math.inf, self.mean)

    @property
    def p_value(self) -> float:
        """Two-sided, against a mean difference of 0."""
        if self.n < 2:
            return 1.0
        if math.isinf(self.t):
            return 0.0
        return min(1.0, 2 * (1 - t_cdf(abs(self.t), self.n - 1)))

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        if self.n < 2:
            return -math.inf, math.inf
        half = t_quantile(0.5 + level / 2, self.n - 1) * self.stderr
        return self.mean - half, self.mean + half


#: A variance below this (identical, deterministic bots: every difference 0)
#: is taken as this, so the test still decides.
MIN_VARIANCE = 1e-9


@dataclass(frozen=True)
class Sprt:
    """Wald's SPRT of H0: mean = h0 against H1: mean = h1 (h1 > h0), on
    normally distributed differences of unknown variance (the generalized
    SPRT with the variance estimated from the data, as fishtest's
    normalized tests): after n observations of mean m and variance s2,

        LLR = n (h1 - h0) (2 m - h0 - h1) / (2 s2),

    H1 is accepted when LLR >= log((1 - beta) / alpha), H0 when
    LLR <= log(beta / (1 - alpha)). Nothing is decided before ``min_n``
    observations, which keeps the variance estimate (and the error rates)
    honest."""

    h0: float
    h1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_n: int = 10

    def __post_init__(self) -> None:
        if not self.h1 > self.h0:
            raise ValueError(f"H1 ({self.h1}) must be above H0 ({self.h0})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must be between 0 and 0.5")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, e: Estimate) -> float:
        var = max(e.sd**2, MIN_VARIANCE)
        return e.n * (self.h1 - self.h0) * (2 * e.mean - self.h0 - self.h1) / (2 * var)

    def decision(self, e: Estimate) -> str | None:
        """ "H1", "H0", or None (go on)."""
        if e.n < self.min_n:
            return None
        llr = self.llr(e)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


class Running:
    """Mean and variance updated one observation at a time (Welford), so a
    sequential test costs O(1) per deal."""

    def __init__(self) -> None:
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def estimate(self) -> Estimate:
        var = self.m2 / (self.n - 1) if self.n > 1 else 0.0
        return Estimate(self.n, self.mean, math.sqrt(max(var, 0.0)))
