"""TrueSkill for one table of one-seat teams (a free-for-all), float for float
what ``trueskill.TrueSkill.rate`` gives, in a fraction of its time.

The library builds a factor graph of objects for every match it rates
(0.35-0.67 ms a 4-seat match on a shared 2-core VM, by its load), and a run
rates each match as it finishes, in the process that also takes the
workers' results. This is the library's
message schedule on flat lists of (precision, precision-adjusted mean) pairs,
with the library's own draw margin and V and W functions: every sum, product
and quotient is the library's, in its order, so no rating moves.
tests/rating/test_freeforall.py holds it to the library over thousands of
tables, ties included.

Variables, by seat in rank order: a seat's skill (``r``), its performance
(``p``) and its team's performance (``t``, one seat a team); between
neighbours in rank order, the performance difference (``d``). A message is
named for the variable it reaches and the factor it comes from."""

from __future__ import annotations

import math
from collections.abc import Sequence

import trueskill

INF = math.inf
Pair = tuple[float, float]  # (pi, tau) of a Gaussian, as the library keeps it
_NONE: Pair = (0, 0)  # the library's empty message: int zeros, kept for its arithmetic


def _divide(value: Pair, message: Pair) -> Pair:
    return value[0] - message[0], value[1] - message[1]


def _delta(old: Pair, new: Pair) -> float:
    pi_delta = abs(old[0] - new[0])
    if pi_delta == INF:
        return 0.0
    return max(abs(old[1] - new[1]), math.sqrt(pi_delta))


def _sum(terms: Sequence[tuple[Pair, Pair, float]]) -> Pair:
    """``SumFactor.update``: the message to a sum's variable from its terms
    (each a value, the message it sent, a coefficient)."""
    pi_inv: float = 0
    mu: float = 0
    for value, message, coeff in terms:
        div_pi, div_tau = value[0] - message[0], value[1] - message[1]
        mu += coeff * (div_pi and div_tau / div_pi)
        if pi_inv == INF:
            continue
        try:
            pi_inv += coeff**2 / float(div_pi)
        except ZeroDivisionError:
            pi_inv = INF
    pi = 1.0 / pi_inv
    return pi, pi * mu


def _receive(value: Pair, old: Pair, new: Pair) -> Pair:
    """``Variable.update_message``: a variable's value once ``old`` is
    replaced by ``new``."""
    return (value[0] - old[0]) + new[0], (value[1] - old[1]) + new[1]


class FreeForAll:
    """Rates a table whose seats are one-player teams, as ``env.rate`` would
    (``env``'s draw probability must be a number, not a function)."""

    def __init__(self, env: trueskill.TrueSkill, min_delta: float = trueskill.DELTA) -> None:
        if callable(env.draw_probability) or min_delta <= 0:
            raise ValueError("a fixed draw probability and a positive min_delta are needed")
        self.env = env
        self.min_delta = min_delta
        self.variance = env.beta**2
        self.cdf, self.pdf = env.cdf, env.pdf
        self.draw_margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)

    def rate(
        self, ratings: Sequence[trueskill.Rating], ranks: Sequence[int]
    ) -> list[trueskill.Rating]:
        """The seats' new ratings, in seat order; ``ranks``: 0 is first,
        equal ranks a draw."""
        n = len(ratings)
        if n < 2 or len(ranks) != n:
            raise ValueError("a table needs two seats or more, each with a rank")
        order = sorted(range(n), key=ranks.__getitem__)
        r = [self._prior(ratings[i]) for i in order]
        r_from_like: list[Pair] = [_NONE] * n
        p: list[Pair] = [_NONE] * n
        p_from_like: list[Pair] = [_NONE] * n
        p_from_team: list[Pair] = [_NONE] * n
        t: list[Pair] = [_NONE] * n
        t_from_team: list[Pair] = [_NONE] * n
        for i in range(n):
            msg = _divide(r[i], r_from_like[i])
            a = 1.0 / (1.0 + self.variance * msg[0])
            new = (a * msg[0], a * msg[1])
            p[i], p_from_like[i] = _receive(p[i], p_from_like[i], new), new
        for i in range(n):
            new = _sum([(p[i], p_from_team[i], 1)])
            t[i], t_from_team[i] = _receive(t[i], t_from_team[i], new), new
        self._differences(ranks, order, t)
        for i in range(n):
            new = _sum([(t[i], t_from_team[i], 1.0)])
            p[i], p_from_team[i] = _receive(p[i], p_from_team[i], new), new
        for i in range(n):
            msg = _divide(p[i], p_from_like[i])
            a = 1.0 / (1.0 + self.variance * msg[0])
            new = (a * msg[0], a * msg[1])
            r[i], r_from_like[i] = _receive(r[i], r_from_like[i], new), new
        by_seat = {}
        for (pi, tau), seat in zip(r, order, strict=True):
            mu = pi and tau / pi
            sigma = math.sqrt(1 / pi) if pi else INF
            by_seat[seat] = trueskill.Rating(float(mu), float(sigma))
        return [by_seat[seat] for seat in range(n)]

    def _prior(self, rating: trueskill.Rating) -> Pair:
        """``PriorFactor.down``: the skill, widened by the dynamic factor."""
        sigma = math.sqrt(rating.sigma**2 + self.env.tau**2)
        pi = sigma**-2
        return pi, pi * rating.mu

    def _differences(self, ranks: Sequence[int], order: list[int], t: list[Pair]) -> None:
        """The schedule's loop over the performance differences (``t`` is
        updated in place): down and up the chain until the truncation
        factors move less than ``min_delta``, at most ten times."""
        n = len(t)
        links = n - 1
        d: list[Pair] = [_NONE] * links
        d_from_sum: list[Pair] = [_NONE] * links
        d_from_trunc: list[Pair] = [_NONE] * links
        left: list[Pair] = [_NONE] * links  # to t[k] from difference k
        right: list[Pair] = [_NONE] * links  # to t[k + 1] from difference k
        draws = [ranks[order[k]] == ranks[order[k + 1]] for k in range(links)]

        def down(k: int) -> None:
            new = _sum([(t[k], left[k], 1), (t[k + 1], right[k], -1)])
            d[k], d_from_sum[k] = _receive(d[k], d_from_sum[k], new), new

        def truncate(k: int) -> float:
            div_pi, div_tau = _divide(d[k], d_from_trunc[k])
            sqrt_pi = math.sqrt(div_pi)
            args = (div_tau / sqrt_pi, self.draw_margin * sqrt_pi)
            v, w = self._draw(*args) if draws[k] else self._win(*args)
            denom = 1.0 - w
            value = (div_pi / denom, (div_tau + sqrt_pi * v) / denom)
            old = d[k]
            msg = d_from_trunc[k]
            d_from_trunc[k] = ((value[0] + msg[0]) - old[0], (value[1] + msg[1]) - old[1])
            d[k] = value
            return _delta(old, value)

        def up_right(k: int) -> None:
            new = _sum([(t[k], left[k], 1.0), (d[k], d_from_sum[k], -1.0)])
            t[k + 1], right[k] = _receive(t[k + 1], right[k], new), new

        def up_left(k: int) -> None:
            new = _sum([(d[k], d_from_sum[k], 1.0), (t[k + 1], right[k], 1.0)])
            t[k], left[k] = _receive(t[k], left[k], new), new

        for _ in range(10):
            if links == 1:
                down(0)
                delta = truncate(0)
            else:
                delta = 0
                for k in range(links - 1):
                    down(k)
                    delta = max(delta, truncate(k))
                    up_right(k)
                for k in range(links - 1, 0, -1):
                    down(k)
                    delta = max(delta, truncate(k))
                    up_left(k)
            if delta <= self.min_delta:
                break
        up_left(0)
        up_right(links - 1)

    def _win(self, diff: float, draw_margin: float) -> tuple[float, float]:
        """``v_win`` and ``w_win`` (which computes ``v_win`` again, to the
        same float: here once)."""
        x = diff - draw_margin
        denom = self.cdf(x)
        v = (self.pdf(x) / denom) if denom else -x
        w = v * (v + x)
        if 0 < w < 1:
            return v, w
        raise FloatingPointError("a win too unlikely for float precision to rate")

    def _draw(self, diff: float, draw_margin: float) -> tuple[float, float]:
        return self.env.v_draw(diff, draw_margin), self.env.w_draw(diff, draw_margin)
