"""A sandboxed bot seated twice at one table (two bots at four seats play
A B A B) plays each seat in a sandbox of its own. The two seats once shared
one sandbox, so one seat read the other's hand from the shared /tmp."""

import pyarrow.parquet as pq

from bohnarena.run.dispatch import run_league
from tests.conftest import sandboxed

#: Each seat writes its hand to /tmp and notes any other seat's it finds there.
TWIN = """\
import os
from bohnarena.bohnanza import Bot

class Twin(Bot):
    def plant_second(self, view):
        with open(f"/tmp/hand-{view.match_id}-{view.seat}", "w") as f:
            f.write(repr(view.hand))
        seen = [n for n in os.listdir("/tmp") if n.startswith("hand-") and not
                n.endswith(f"-{view.seat}")]
        if seen:
            self.note("SAW " + " ".join(seen))
        return False
"""


@sandboxed
def test_a_bot_seated_twice_sees_neither_seats_hand_from_the_other(tmp_path):
    (tmp_path / "twin.py").write_text(TWIN)
    league = tmp_path / "l.toml"
    league.write_text(
        'name = "t"\nedition = "classic"\nplayers = 4\ndeals = 1\nseed = 3\n'
        f'[bots]\ntwin = {{ spec = "{tmp_path / "twin.py"}:Twin", isolation = "sandbox" }}\n'
        'random = "random"\n'
    )
    out = tmp_path / "out"
    summary = run_league(league, out, workers=1, progress=False)
    assert summary.complete and summary.played == 4 and not summary.errors
    moves = pq.read_table(out / "moves").to_pylist()
    assert any(r["kind"] == "plant_second" and r["how"] == "bot" for r in moves)
    assert [r["note"] for r in moves if r["note"]] == []
