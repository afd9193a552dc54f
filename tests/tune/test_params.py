"""Parameters a bot declares (docs/tuning.md): set by a spec or a league's
``params`` table, checked, part of a bot's identity, and passed to bots out
of process."""

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.bohnanza.bot import Bot
from bohnarena.cli import cli
from bohnarena.core.errors import BotLoadError
from bohnarena.core.params import declared, join_spec, split_spec
from bohnarena.core.plugins import load_bot
from bohnarena.run.dispatch import run_league
from bohnarena_bots.abacus import AbacusBot, AbacusBot03
from bohnarena_bots.searcher import BeanCounterBot
from bohnarena_bots.trader import TraderBot, TraderBot02
from tests.conftest import SANDBOX_MARKS

HERE = Path(__file__).parent
PROBE = f"{HERE / 'probe_bots.py'}:Probe"
RECORDER = HERE.parent / "external" / "recorder.py"


def test_a_spec_sets_declared_parameters():
    cls = load_bot("trader?wants=3,margin=0.25", Bot)
    assert issubclass(cls, TraderBot) and cls is not TraderBot
    assert (cls.wants, cls.margin, cls.share) == (3, 0.25, TraderBot.share)
    assert (TraderBot.wants, TraderBot.margin) == (2, 0.015)  # the class itself is untouched
    assert load_bot("trader", Bot) is TraderBot
    assert split_spec("x.py:B?a=1, b=0.5") == ("x.py:B", {"a": "1", "b": "0.5"})
    assert join_spec("trader", {"wants": 3, "margin": 0.25}) == "trader?margin=0.25,wants=3"


def test_shipped_bots_declare_their_defaults_in_range():
    for cls in (TraderBot, BeanCounterBot, AbacusBot):
        params = declared(cls)
        assert params
        for name, (param, kind) in params.items():
            assert isinstance(getattr(cls, name), kind)
            assert param.low <= getattr(cls, name) <= param.high, (cls, name)
    assert {"playouts", "begs", "margin"} <= set(declared(BeanCounterBot))
    assert "growth" in declared(AbacusBot)


def test_the_trader_before_tuning_keeps_its_name_and_the_searchers_keep_its_defaults():
    """``trader-0.2`` is the trader with 0.2's defaults (the golden playthroughs
    play it, move for move); the bean counter and abacus, whose searches start
    from the trader's heuristics, keep those, not the trader's tuned ones."""
    old = load_bot("trader-0.2", Bot)
    assert old is TraderBot02 and issubclass(old, TraderBot)
    before = {"margin": 0.05, "wants": 2, "share": 1.5, "hope": 0.7, "feed": 0.6}
    for cls in (old, BeanCounterBot, AbacusBot):
        assert {k: getattr(cls, k) for k in before} == before, cls
    assert {k: getattr(TraderBot, k) for k in before} != before


def test_the_abacus_before_tuning_keeps_its_name():
    """``abacus-0.3`` is the abacus with 0.3's growth and stay: a seeded
    match of it is the match ``abacus?growth=0.6,stay=0.5`` plays."""
    old = load_bot("abacus-0.3", Bot)
    assert old is AbacusBot03 and issubclass(old, AbacusBot)
    assert (old.growth, old.stay) == (0.6, 0.5) != (AbacusBot.growth, AbacusBot.stay)
    spelled = load_bot("abacus?growth=0.6,stay=0.5,playouts=20", Bot)
    small = load_bot("abacus-0.3?playouts=20", Bot)
    from bohnarena.bohnanza import play_match, ruleset

    rules = ruleset("classic", 3)
    records = [
        play_match(rules, 11, [cls(), TraderBot(), TraderBot()])[1] for cls in (spelled, small)
    ]
    assert records[0] == records[1] and len(records[0]) > 100


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        ("trader?keep=3", "unknown parameter 'keep' (declared: feed, hope, margin, share, wants)"),
        ("trader?wants=9", "parameter 'wants' = 9 is out of its range [1, 4]"),
        ("trader?wants=2.5", "parameter 'wants' must be int, not '2.5'"),
        ("trader?margin=nan", "parameter 'margin' must be float"),
        ("trader?wants", "parameters are NAME=VALUE separated by commas"),
        ("trader?wants=2,wants=3", "parameter 'wants' is given twice"),
        ("planner?x=1", "unknown parameter 'x' (declared: none)"),
    ],
)
def test_bad_parameters_are_one_line_usage_errors(spec, text):
    result = invoke("play", spec, "planner", "random")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and text in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_a_league_table_checks_its_params(tmp_path):
    path = tmp_path / "l.toml"
    for bot, text in (
        ('{ spec = "trader", params = { wantz = 1 } }', "bot 'a': trader?wantz=1: unknown"),
        ('{ spec = "trader?wants=2", params = { wants = 1 } }', "set in both spec and params"),
        ('{ spec = "trader", params = 3 }', "params must be a table"),
        ('{ spec = "trader", params = { wants = 1.0 } }', "'wants' must be int, not '1.0'"),
        ('{ spec = "http://127.0.0.1:9/", params = { a = 1 } }', "params go with spec or"),
    ):
        path.write_text(
            'name = "p"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 1\n'
            f'[bots]\na = {bot}\nplanner = "planner"\nrandom = "random"\n'
        )
        result = invoke("run", path, "--out", tmp_path / "out")
        assert result.exit_code == 2 and text in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.slow
def test_two_settings_of_one_class_rank_as_two_bots(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "p"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = 7\n[bots]\n'
        'few = { spec = "trader", params = { wants = 1, margin = 0.5 } }\n'
        'many = "trader?wants=4"\nplanner = "planner"\n'
    )
    out = tmp_path / "out"
    assert run_league(path, out, workers=1, progress=False).complete
    meta = json.loads((out / "run.json").read_text())
    assert meta["params"] == {"few": {"margin": 0.5, "wants": 1}, "many": {"wants": 4}}
    assert meta["bots"]["few"] != meta["bots"]["many"]  # two bots, two identities
    result = invoke("rank", out)
    assert result.exit_code == 0
    ranked = [line.split()[1] for line in result.output.splitlines()[1:4]]
    assert sorted(ranked) == ["few", "many", "planner"]
    coins = {}
    for row in pq.read_table(out / "matches").to_pylist():
        for seat, bot in enumerate(row["seats"]):
            coins.setdefault(bot, []).append(row["coins"][seat])
    assert coins["few"] != coins["many"]  # the settings play differently
    assert invoke("report", out).exit_code == 0
    assert "few&#39;s parameters" in (out / "report.html").read_text()


def _league(tmp_path, probe, isolation="sandbox"):
    log = tmp_path / "start.jsonl"
    recorder = json.dumps([sys.executable, str(RECORDER), str(log), "random"])
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "p"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 7\n'
        "[limits]\nmax_faults = 100\n[bots]\n"
        f'probe = {{ spec = "{probe}", isolation = "{isolation}" }}\n'
        f'cmd = {{ command = {recorder}, isolation = "process",'
        " params = { keep = 3, beg = 0.2 } }\n"
        'planner = "planner"\n'
    )
    return path, log


@pytest.mark.parametrize("isolation", ["sandbox", "process"])
@pytest.mark.slow
def test_parameters_reach_bots_out_of_process(tmp_path, isolation):
    if isolation == "sandbox":
        for mark in SANDBOX_MARKS:  # (bubblewrap)
            if mark.name == "skipif" and mark.args and mark.args[0]:
                pytest.skip(mark.kwargs.get("reason", "no sandbox"))
    path, log = _league(tmp_path, PROBE + "?x=0.7,n=3", isolation)
    out = tmp_path / "out"
    assert run_league(path, out, workers=1, progress=False).complete
    for row in pq.read_table(out / "matches").to_pylist():
        assert row["faults"][row["seats"].index("probe")] == 0
    logged = [json.loads(line).get("in", {}) for line in log.read_text().splitlines()]
    starts = [m for m in logged if m.get("type") == "start"]
    assert starts and all(m["params"] == {"beg": 0.2, "keep": 3} for m in starts)
    # ... and a probe left at its defaults fails to start (the test can fail)
    (tmp_path / "x").mkdir()
    path, _ = _league(tmp_path / "x", PROBE, isolation)
    with pytest.raises(BotLoadError, match=r"x=0\.5 n=1"):
        run_league(path, tmp_path / "x" / "out", workers=1, progress=False)
