"""The table's written-out shuffle is ``random.Random.shuffle``, draw for draw."""

import random

from bohnarena.bohnanza.table import shuffle


def test_shuffle_is_random_shuffle() -> None:
    for seed in range(200):
        n = seed % 130  # every deck size, empty and one card included
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(n)), list(range(n))
        shuffle(a, ours)
        theirs.shuffle(b)
        assert a == b
        assert ours.getstate() == theirs.getstate()  # the stream goes on alike
