"""``bohnarena tune`` (docs/tuning.md): bad input, a known peak found, a
study killed and resumed ending where one run through does."""

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.errors import UsageError
from bohnarena.core.seeding import derive_seed

pytest.importorskip("optuna", reason="tune needs the tune extra (Optuna)")

HERE = Path(__file__).parent
PEAK = f"{HERE / 'probe_bots.py'}:Peak"
SMALL = ("--against", "random", "--players", "3", "--confirm-deals", "0")


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (
            ("--param", "keep=1:3"),
            "the bot declares no 'keep' (declared: feed, hope, margin, share, wants)",
        ),
        (("--param", "wants=0:3"), "outside wants's declared range [1, 4]"),
        (("--param", "wants=3:2"), "LOW must be below HIGH"),
        (("--param", "wants=1.5:3"), "wants is an int parameter: LOW and HIGH are ints"),
        (("--param", "margin=0:1:int"), "margin is a float parameter"),
        (("--param", "margin=0:1:cube"), "the scale is int or log, not 'cube'"),
        (("--param", "margin=0:1:log"), "a log scale needs LOW above 0"),
        (("--param", "margin"), "write NAME=LOW:HIGH"),
        (("--param", "margin=0:1", "--param", "margin=0:0.5"), "a parameter is given twice"),
        (("--param", "x=0:1", "--baseline", "nobot"), "unknown bot 'nobot'"),
        (
            ("--param", "margin=0:1", "--against", "random", "--opponents", "planner"),
            "--opponents is the old spelling of --against: give one of them",
        ),
    ],
)
def test_bad_ranges_and_unknown_parameters_are_one_line_errors(tmp_path, args, text):
    result = invoke("tune", "trader", *args, "--out", tmp_path)
    if "nobot" in args:
        result = invoke("tune", PEAK, *args, "--out", tmp_path)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and text in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "study.db").exists()  # nothing started


def test_opponents_are_given_as_compare_gives_them():
    """--against, repeatable, as compare's; the old --opponents a,b still works, unlisted."""
    for command in ("tune", "compare"):
        shown = invoke(command, "--help").output
        assert "--against [NAME=]SPEC" in shown and "--opponents" not in shown, shown


@pytest.mark.slow
def test_a_known_peak_is_found(tmp_path):
    """Peak plants like the planner only near x = 0.7: 14 trials of 3 deals
    (3 players, against the random bot) find x within 0.15 of it."""
    result = invoke(
        "tune", PEAK, "--param", "x=0:1", *SMALL, "--deals", 3, "--trials", 14,
        "--seed", 5, "--out", tmp_path, "-j", 2, "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert abs(found["best"]["params"]["x"] - 0.7) <= 0.15, found
    assert found["best"]["objective"] > 1  # above Peak at its default, x = 0.2
    page = (tmp_path / "tune.html").read_text()
    assert page.count("<svg") == 2 and "Tuning" in page


def _trials(db):
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT t.number, t.state, p.param_value, v.value FROM trials t "
            "JOIN trial_params p USING (trial_id) LEFT JOIN trial_values v USING (trial_id) "
            "ORDER BY t.number"
        ).fetchall()
    return rows


def _tune(out, trials):
    args = [sys.executable, "-m", "bohnarena", "tune", PEAK, "--param", "x=0:1", *SMALL]
    args += ["--deals", "2", "--trials", str(trials), "--seed", "9", "--out", str(out)]
    return [*args, "-j", "1", "--format", "json"]


@pytest.mark.slow
def test_a_study_killed_and_resumed_ends_where_one_run_through_does(tmp_path):
    through = subprocess.run(_tune(tmp_path / "a", 5), capture_output=True, text=True)
    assert through.returncode == 0, through.stderr
    db = tmp_path / "b" / "study.db"
    proc = subprocess.Popen(_tune(tmp_path / "b", 5), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # killed while its third trial plays
        states = [s for _, s, _, _ in _trials_safe(db)]
        if states.count("COMPLETE") >= 2 and "RUNNING" in states:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    states = [s for _, s, _, _ in _trials(db)]
    assert "RUNNING" in states and states.count("COMPLETE") < 5, states
    resumed = subprocess.run(_tune(tmp_path / "b", 5), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    a, b = json.loads(through.stdout), json.loads(resumed.stdout)
    assert a["best"] == b["best"] and a["effects"] == b["effects"]
    done = [(x, v) for _, s, x, v in _trials(tmp_path / "a" / "study.db") if s == "COMPLETE"]
    again = [(x, v) for _, s, x, v in _trials(db) if s == "COMPLETE"]
    assert done == again and len(done) == 5


def _trials_safe(db):
    try:
        return _trials(db)
    except sqlite3.Error:  # (being created)
        return []


def test_the_page_shows_a_study_escaped():
    from bohnarena.rating.paired import Estimate
    from bohnarena.tune.effects import effect
    from bohnarena.tune.page import page
    from bohnarena.tune.study import Dimension, Setup, Trial

    dims = (Dimension("x", 0.0, 1.0, "float"), Dimension("n", 1, 100, "log", integer=True))
    setup = Setup("b<script>.py:B", dims, "b<script>.py:B", (("o", "<i>o"),), "bohnanza",
                  "classic", 3, 4, 1)  # fmt: skip
    done = [
        Trial(i, {"x": i / 5, "n": 1 + 10 * i}, Estimate(4, 1 - abs(i / 5 - 0.6), 0.5))
        for i in range(6)
    ]
    html = page(setup, done, [effect(d, done) for d in dims], {"x": 0.75}, ["H1 <accepted>"])
    assert "<script>" not in html and "b&lt;script&gt;.py:B?n=31,x=0.6" in html
    assert "&lt;i&gt;o" in html and "H1 &lt;accepted&gt;" in html
    assert html.count("<svg") == 3  # the objective over trials, a plot each
    assert "0.75" in html  # x's importance


@pytest.mark.slow
def test_rounds_stop_early_below_the_median(tmp_path, monkeypatch):
    """--rungs: a trial below the median of the trials before it stops after
    a round (its deals fewer), and is never the best. The objective here is
    a stand-in, no match played: 1 - 4|x - 0.7|, the same every round."""
    from bohnarena.rating.paired import Estimate
    from bohnarena.tune import study as st

    rounds = []

    def fake(setup, values, slot, workers, rung=0):
        rounds.append((slot, rung))
        return Estimate(setup.deals, 1 - 4 * abs(values["x"] - 0.7), 0.5)

    monkeypatch.setattr(st, "play_trial", fake)
    dims = (st.Dimension("x", 0.0, 1.0, "float"),)
    setup = st.Setup("p.py:P", dims, "p.py:P", (), "bohnanza", "classic", 3, 2, 4, rungs=3)
    done, interrupted = st.run_study(setup, tmp_path / "s.db", 16, None)
    assert not interrupted and len(done) == 16
    pruned = [t for t in done if t.pruned]
    assert pruned and all(t.estimate.n < 6 for t in pruned)
    assert all(t.estimate.n == 6 for t in done if not t.pruned)
    assert len(rounds) == sum(t.estimate.n for t in done) // 2
    top = st.best(done)
    assert not top.pruned and abs(top.values["x"] - 0.7) < 0.1
    assert max(t.objective for t in pruned) < max(t.objective for t in done)
    # the same study again: the same trials
    again, _ = st.run_study(setup, tmp_path / "t.db", 16, None)
    assert [(t.values, t.pruned) for t in again] == [(t.values, t.pruned) for t in done]
    # ... and a study file holds one study: other settings are refused
    other = st.Setup("p.py:P", dims, "p.py:P", (), "bohnanza", "classic", 3, 2, 5, rungs=3)
    with pytest.raises(UsageError, match="holds a study of other settings"):
        st.run_study(other, tmp_path / "s.db", 16, None)


@pytest.mark.slow
def test_the_confirmation_on_fresh_deals_is_the_exit_code(tmp_path):
    """Against Peak at its default (x = 0.2) a best near 0.7 is confirmed:
    H1, exit 0; against Peak at 0.7 itself nothing is better: H0, exit 3."""
    base = ("--deals", 2, "--trials", 3, "--confirm-deals", 30, "-j", 2, "--format", "json")
    small = ("--opponents", "random", "--players", 3, *base)  # the old spelling
    for baseline, code, decision in ((PEAK, 0, "H1"), (f"{PEAK}?x=0.7", 3, "H0")):
        out = tmp_path / decision
        result = invoke("tune", PEAK, "--param", "x=0:1", "--baseline", baseline, *small,
                        "--out", out)  # fmt: skip
        assert result.exit_code == code, result.output
        found = json.loads(result.output)
        assert found["confirmation"]["sprt"]["decision"] == decision
        assert found["exit_code"] == code
        played = [p for p in out.iterdir() if p.name.startswith("confirm-")]
        assert len(played) == 1
        seed = tomllib.loads((played[0] / "league.toml").read_text())["seed"]
        trials = {derive_seed(1, "trial", slot) for slot in range(3)}
        assert seed == derive_seed(1, "confirm") and seed not in trials  # fresh deals


def test_each_parameter_s_effect_and_fitted_best():
    from bohnarena.rating.paired import Estimate
    from bohnarena.tune.effects import effect
    from bohnarena.tune.study import Dimension, Trial

    x = Dimension("x", 0.0, 2.0, "float")
    n = Dimension("n", 1, 100, "log", integer=True)
    done = [
        Trial(i, {"x": 2 * i / 8, "n": round(100 ** (i / 8))}, Estimate(4, v, 1.0))
        for i, v in enumerate(1 - (i / 8 - 0.6) ** 2 for i in range(9))
    ]
    ex, en = effect(x, done), effect(n, done)
    assert ex.fitted_best == pytest.approx(1.2)  # the parabola's top, on x's scale
    assert en.fitted_best == 16  # the same top on n's log scale: 100 ** 0.6, an int
    assert ex.change == pytest.approx(0.2) and ex.low < 0.2 < ex.high
    rising = [Trial(i, {"x": i / 4}, Estimate(4, i / 4, 1.0)) for i in range(9)]
    assert effect(x, rising).fitted_best == 2.0  # no top inside: the better end
    assert effect(x, rising).clear
    assert math.isnan(effect(x, rising[:3]).fitted_best)  # too few trials
