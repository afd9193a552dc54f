"""A command bot that starves the other seats of CPU (issue 43, hole 6):
at its match's start it forks COUNT busy processes, each in a session of
its own (Linux gives each session an equal share of a core), then asks for
no decision at all, so the engine never waits on it. Standard library only.

    python3 hog.py [COUNT [SECONDS]]

Each busy process ends by itself after SECONDS (a belt: the sandbox kills
them all when the match ends)."""

import json
import os
import sys
import time


def busy(seconds: float) -> None:
    os.setsid()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        sum(range(1000))
    os._exit(0)


def main(count: int, seconds: float) -> None:
    if not sys.stdin.readline():
        return
    for _ in range(count):
        if os.fork() == 0:
            busy(seconds)
    print(json.dumps({"decisions": []}), flush=True)
    for _ in sys.stdin:  # the match's end, then the sandbox reaps us
        pass


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 30,
        float(sys.argv[2]) if len(sys.argv) > 2 else 60,
    )
