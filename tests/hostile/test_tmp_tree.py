"""A sandboxed bot's /tmp is emptied after each match by its supervisor:
a tree nested 2,000 deep (far past Python's recursion limit) is removed
like any other, and the supervisor lives on to serve the next match."""

from bohnarena.run.dispatch import run_league
from tests.conftest import SANDBOX_MARKS, faults_by_bot
from tests.hostile.test_sandbox import hostile_league
from tests.support.leagues import bot_log

pytestmark = SANDBOX_MARKS


def test_a_tree_nested_past_the_recursion_limit_is_emptied_and_play_goes_on(tmp_path):
    out = tmp_path / "out"
    summary = run_league(
        hostile_league(tmp_path, "Nests", {"depth": 2000}, deals=2), out, workers=1, progress=False
    )
    assert summary.complete and summary.played == 6
    # nobody is charged: the others never, and the bot's own matches go on
    assert faults_by_bot(out) == {"hostile": 0, "planner": 0, "random": 0}
    log = bot_log(out, "hostile")
    lines = log.splitlines()
    assert "GOT" not in log, log  # each match found its /tmp emptied
    assert lines.count("nested 2000") == 6, log
    # one supervisor served all six matches: it did not die and was not replaced
    assert len({line for line in lines if line.startswith("supervisor started at")}) == 1, log
