# The yardstick of benchmarks/engine_vs_bare.py: a minimal pure-Python
# Bohnanza loop with trivial bots (classic rules, no trading), copied verbatim
# below the line from ../shared/bench/bare_loop.py (the bare loop issue 16
# names) so that the project stands alone in a clone. Not part of the engine.
# ---------------------------------------------------------------------------
"""Minimal reference Bohnanza engine (classic rules, 3-5 players) used only to
calibrate what a straightforward pure-Python engine costs per game.
Trivial bots: plant mandatory card, plant second if it matches a field,
no trading (revealed cards planted by self), harvest the field with the
best value when forced."""
import random, sys, time

VARS = {  # name: (count, thresholds for 1..4 coins)
    "blue": (20, (4, 6, 8, 10)), "chili": (18, (3, 6, 8, 9)),
    "stink": (16, (3, 5, 7, 8)), "green": (14, (3, 5, 6, 7)),
    "soy": (12, (2, 4, 6, 7)), "blackeye": (10, (2, 4, 5, 6)),
    "red": (8, (2, 3, 4, 5)), "garden": (6, (None, 2, 3, None)),
}
NAMES = list(VARS)
COUNT = [VARS[n][0] for n in NAMES]
# VALUE[v][k] = coins for k cards
VALUE = []
for n in NAMES:
    th = VARS[n][1]
    row = []
    for k in range(0, 30):
        c = 0
        for coins, t in enumerate(th, 1):
            if t is not None and k >= t:
                c = coins
        row.append(c)
    VALUE.append(row)


def play(seed, nplayers=4, nfields=None):
    rng = random.Random(seed)
    nfields = nfields or (3 if nplayers == 3 else 2)
    deck = [v for v, c in enumerate(COUNT) for _ in range(c)]
    rng.shuffle(deck)
    discard = []
    hands = [[] for _ in range(nplayers)]
    for _ in range(5):
        for p in range(nplayers):
            hands[p].append(deck.pop())
    fields = [[[None, 0] for _ in range(nfields)] for _ in range(nplayers)]
    coins = [0] * nplayers
    exhaust = 0
    moves = 0

    def draw():
        nonlocal deck, discard, exhaust
        if not deck:
            return None
        c = deck.pop()
        if not deck:
            exhaust += 1
            if exhaust < 3:
                deck = discard
                discard = []
                rng.shuffle(deck)
        return c

    def harvest(p, i):
        v, k = fields[p][i]
        val = VALUE[v][k]
        coins[p] += val
        discard.extend([v] * (k - val))
        fields[p][i] = [None, 0]

    def plant(p, v):
        nonlocal moves
        moves += 1
        fs = fields[p]
        for f in fs:
            if f[0] == v:
                f[1] += 1
                return
        for f in fs:
            if f[0] is None:
                f[0] = v
                f[1] = 1
                return
        # forced harvest: pick field with best coins, protection rule
        best = max(range(len(fs)), key=lambda i: (VALUE[fs[i][0]][fs[i][1]], -fs[i][1]))
        harvest(p, best)
        fs[best][0] = v
        fs[best][1] = 1

    p = 0
    while True:
        h = hands[p]
        if h:
            plant(p, h.pop(0))
            if h and any(f[0] == h[0] for f in fields[p]):
                plant(p, h.pop(0))
        revealed = []
        for _ in range(2):
            c = draw()
            if c is None:
                break
            revealed.append(c)
            if exhaust >= 3:
                break
        for c in revealed:
            plant(p, c)
        if exhaust >= 3:
            break
        for _ in range(3):
            c = draw()
            if c is None:
                break
            h.append(c)
            if exhaust >= 3:
                break
        if exhaust >= 3:
            break
        p = (p + 1) % nplayers
    for q in range(nplayers):
        for i in range(nfields):
            if fields[q][i][0] is not None:
                harvest(q, i)
    return coins, moves


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    t = time.perf_counter()
    tot = 0
    for s in range(n):
        c, m = play(s)
        tot += m
    dt = time.perf_counter() - t
    print(f"{n} games in {dt:.2f}s = {n/dt:.0f} games/s, {tot/n:.0f} plants/game, {dt/n*1e6:.0f} us/game")
