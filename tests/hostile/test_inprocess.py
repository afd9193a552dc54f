"""In process, bots are trusted but have bugs: whatever a bot raises
(BaseException included), however long it takes (constructor and hooks
included), the league finishes, every match is played, and the faults land
on that bot only."""

import pyarrow.parquet as pq
import pytest

from bohnarena.runner import run_league

from .test_hostile import HERE, faults_by_bot

LIMITS = "[limits]\ndecision_seconds = 0.5\nmatch_seconds = {bank}\nmax_faults = 3\n"


def run(tmp_path, hostile, bank=5):
    spec = f"{HERE / 'bots.py'}:{hostile}"
    path = tmp_path / "h.toml"
    path.write_text(f'name = "h"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
                    f'[run]\nbatch_size = 1\n{LIMITS.format(bank=bank)}'
                    f'[bots]\nhostile = {{ spec = "{spec}", isolation = "inprocess" }}\n'
                    f'planner = "planner"\nrandom = "random"\n')
    out = tmp_path / "out"
    summary = run_league(path, out, workers=2, progress=False)
    assert summary.complete and summary.played == 3 and not summary.errors
    rows = pq.read_table(out / "matches").to_pylist()
    assert sorted(r["match_id"] for r in rows) == [0, 1, 2]  # every match present
    faults = faults_by_bot(out)  # (faults in `end` come after the result: moves only)
    assert faults["planner"] == 0 and faults["random"] == 0
    moves = pq.read_table(out / "moves").to_pylist()
    texts = [(r["decision"], r["text"]) for r in moves if r["kind"] == "fault"]
    hostile_seats = {(r["match_id"], r["seats"].index("hostile")) for r in rows}
    assert texts and {(r["match_id"], r["seat"]) for r in moves if r["kind"] == "fault"} <= hostile_seats
    forfeits = {(r["match_id"], r["seat"]) for r in moves if r["kind"] == "forfeit"}
    assert forfeits <= hostile_seats
    for r in rows:  # a forfeiting bot is ranked last
        seat = r["seats"].index("hostile")
        if (r["match_id"], seat) in forfeits:
            assert r["ranks"][seat] == 3
    return texts, forfeits == hostile_seats


@pytest.mark.parametrize("hostile,reason", [
    ("ExitsZero", "raised SystemExit: 0"),
    ("RaisesKeyboardInterrupt", "raised KeyboardInterrupt"),
    ("RaisesGeneratorExit", "raised GeneratorExit"),
    ("RaisesBaseException", "raised Bare"),
])
def test_base_exceptions_are_faults(tmp_path, hostile, reason):
    texts, _ = run(tmp_path, hostile)
    assert texts and all(d == "plant_second" and t.startswith(reason) for d, t in texts), texts


@pytest.mark.parametrize("hostile,reason", [
    ("InitRaises", "raised SystemExit: 3 (in the constructor)"),
    ("InitSleeps", "timeout: no answer within 0.5 s (in the constructor)"),
])
def test_a_broken_constructor_forfeits_the_match(tmp_path, hostile, reason):
    texts, all_forfeit = run(tmp_path, hostile)
    assert texts == [("start", reason)] * 3 and all_forfeit


@pytest.mark.parametrize("hostile,decision", [
    ("StartSleeps", "start"), ("DecisionsSleep", "start"), ("EndExits", "end"),
])
def test_hooks_are_timed_and_guarded(tmp_path, hostile, decision):
    texts, _ = run(tmp_path, hostile)
    assert len(texts) == 3 and all(d == decision for d, _ in texts), texts


@pytest.mark.parametrize("hostile", ["SwallowsTimeout", "SwallowsTimeoutBusy"])
def test_a_bot_that_swallows_the_timeout_is_given_up_on(tmp_path, hostile):
    texts, all_forfeit = run(tmp_path, hostile)
    assert all_forfeit
    assert texts == [("plant_second", "timeout: ignored the timeout for 1 s more;"
                                      " given up for this match")] * 3


def test_a_spent_time_bank_forfeits(tmp_path):
    texts, all_forfeit = run(tmp_path, "SpendsBank", bank=1)
    assert all_forfeit
    assert texts == [("plant_second", "timeout: time bank of 1 s spent")] * 3
