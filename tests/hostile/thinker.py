"""An honest bot that thinks: ``THINK`` seconds of its own CPU time in each
of its first ``TIMES`` plantings of a match (tests/hostile/hog.py starves it;
benchmarks/starve_bench.py sets ``THINK`` through ``THINKER_SECONDS``)."""

import os
import time

from bohnarena.bohnanza import Bot


class Thinks(Bot):
    THINK = float(os.environ.get("THINKER_SECONDS", "0.1"))
    TIMES = 10**9

    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        self.thoughts = 0

    def plant_second(self, view):
        if self.thoughts < self.TIMES:
            self.thoughts += 1
            until = time.thread_time() + self.THINK
            while time.thread_time() < until:
                pass
        return super().plant_second(view)


class ThinksTenTimes(Thinks):
    TIMES = 10
