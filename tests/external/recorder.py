"""A command bot for the protocol tests: a Python bot behind bohnarena's
host, speaking plain JSON lines, that records every message both ways.

    python recorder.py LOG SPEC [WIRE]

(WIRE: the game's wire module; the card game's by default.)
"""

import json
import sys

from bohnarena.core.plugins import load_bot
from bohnarena.external.host import Host, wire_of


def main() -> None:
    log_path, spec = sys.argv[1], sys.argv[2]
    wire = wire_of(sys.argv[3] if len(sys.argv) > 3 else "bohnarena.bohnanza.wire")
    host = Host(load_bot(spec, wire.BASE), wire)
    # Line-buffered: the process may be ended at any time after the match,
    # and a half-written line (a view with a state is long) would not parse.
    with open(log_path, "a", encoding="utf-8", buffering=1) as log:
        while line := sys.stdin.readline():
            msg = json.loads(line)
            log.write(json.dumps({"in": msg}) + "\n")
            reply = host.handle(msg)
            if reply is not None:
                log.write(json.dumps({"out": reply, "to": msg}) + "\n")
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
