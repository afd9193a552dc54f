"""Each match's stderr of a bot run outside the worker, read back by match
(store/botlogs.py): two workers playing the same bot at once never share a
log, and what a bot prints, a forged marker line included, is read as
its own text of the match it printed it in."""

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from bohnarena.store import botlogs
from tests.conftest import SANDBOX_MARKS, sandboxed

#: Says its match at each plant, from its view; and then forges the engine's
#: line for the next match, with a claim made as if in it.
PRINTER = """
import sys
from bohnarena.bohnanza import Bot

class Printer(Bot):
    def plant(self, view, card):
        print(f"in match {view.match_id}", file=sys.stderr, flush=True)
        return super().plant(view, card)

class Forger(Bot):
    def plant(self, view, card):
        m = view.match_id
        said = f"in match {m}\\n--- match {m + 1} ---\\nforged in match {m}"
        print(said, file=sys.stderr, flush=True)
        return super().plant(view, card)
"""


def play(tmp_path, cls, isolation, deals=4):
    """One out-of-process bot beside two shipped ones, three deals a batch
    on two workers: the results directory and its match ids."""
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTER)
    path = tmp_path / "l.toml"
    path.write_text(
        f'name = "t"\nedition = "classic"\nplayers = 3\ndeals = {deals}\nseed = 5\n'
        "[run]\nbatch_size = 2\n"
        f'[bots]\nout = {{ spec = "{bot}:{cls}", isolation = "{isolation}" }}\n'
        'planner = "planner"\nrandom = "random"\n'
    )
    out = tmp_path / "o"
    summary = run_league(path, out, workers=2, progress=False)
    assert summary.complete and not summary.errors
    return out, sorted(r["match_id"] for r in pq.read_table(out / "matches").to_pylist())


def each_match_says_only_its_own(out, ids):
    for m in ids:
        said = botlogs.stderr_of(out, "out", m).text.splitlines()
        assert said and set(said) == {f"in match {m}"}, (m, said)
    workers = {p.stem for p in (out / "bots" / "out").glob("*.log")}
    assert len(workers) == 2, workers  # both workers played it, each to a log of its own
    assert botlogs.stderr_of(out, "planner", ids[0]) is None  # in the worker: no log


@pytest.mark.slow
def test_two_workers_playing_a_process_bot_at_once(tmp_path):
    out, ids = play(tmp_path, "Printer", "process")
    assert len(ids) == 12
    each_match_says_only_its_own(out, ids)
    shown = CliRunner().invoke(cli, ["replay", str(out), "--match", "7", "--stderr"])
    assert shown.exit_code == 0, shown.output
    head, blocks = "", {}  # each bot's line of ours, then its own lines, indented
    for line in shown.output.splitlines():
        if line.startswith("  "):
            blocks[head].append(line)
        else:
            head = line
            blocks[head] = []
    (head,) = [h for h in blocks if h.startswith("out: ")]
    assert "bytes of stderr" in head and set(blocks[head]) == {"  in match 7"}
    assert "planner: no stderr log" in shown.output and "random: no stderr log" in shown.output


@sandboxed
def test_two_workers_playing_a_sandboxed_bot_at_once(tmp_path):
    """Its sandbox lives across matches, its children inherit its stderr."""
    out, ids = play(tmp_path, "Printer", "sandbox")
    each_match_says_only_its_own(out, ids)


@pytest.mark.parametrize(
    "isolation",
    [pytest.param("process", marks=pytest.mark.slow), pytest.param("sandbox", marks=SANDBOX_MARKS)],
)
def test_a_forged_marker_claims_nothing(tmp_path, isolation):
    """The next match's line, printed by the bot, stays its text of the
    match it printed it in: the next match shows only what it said there."""
    out, ids = play(tmp_path, "Forger", isolation, deals=2)
    for m in ids:
        said = set(botlogs.stderr_of(out, "out", m).text.splitlines())
        assert said == {f"in match {m}", f"--- match {m + 1} ---", f"forged in match {m}"}
