"""Hostile bots: the league finishes, the fault lands on the hostile bot
only, other bots' matches are unaffected, nothing is lost, and a sandboxed
bot learns nothing beyond its seat's view."""

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.core.entry import BotEntry
from bohnarena.external.remote import remote_seat
from bohnarena.run.dispatch import run_league
from bohnarena_bots.planner import PlannerBot
from tests.conftest import SANDBOX_MARKS, faults_by_bot, sandboxed
from tests.support.leagues import bot_log

HERE = Path(__file__).parent
SLOW = pytest.mark.slow
LIMITS = (
    "[limits]\ndecision_seconds = 0.5\nmatch_seconds = 5\nmemory_mb = 512\noutput_kb = 64\n"
    "max_faults = 3\n"
)


def league(tmp_path, hostile, isolation):
    spec = f"{HERE / 'bots.py'}:{hostile}"
    path = tmp_path / "h.toml"
    path.write_text(
        f'name = "h"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
        f"[run]\nbatch_size = 1\n{LIMITS}"
        f'[bots]\nhostile = {{ spec = "{spec}", isolation = "{isolation}" }}\n'
        f'planner = "planner"\nrandom = "random"\n'
    )
    return path


def kinds_of_faults(out):
    moves = pq.read_table(out / "moves").to_pylist()
    return {r["text"].split(":")[0] for r in moves if r["kind"] == "fault"}


SANDBOXED = [
    ("Raises", "raised RuntimeError"),
    ("SleepsForever", "timeout"),
    ("BusyLoop", "timeout"),
    ("Garbage", "illegal"),
    ("Exits", "crash"),
    ("Hoards", ("memory", "timeout", "crash")),  # which comes first depends on load
    ("Floods", "output"),
]


@pytest.mark.parametrize(
    "isolation", [pytest.param("process", marks=SLOW), pytest.param("sandbox", marks=SANDBOX_MARKS)]
)
@pytest.mark.parametrize("hostile,fault", SANDBOXED)
def test_sandboxed_hostile_bots(tmp_path, hostile, fault, isolation):
    out = tmp_path / "out"
    s = run_league(league(tmp_path, hostile, isolation), out, workers=2, progress=False)
    assert s.complete and s.played == 3  # the league finished; nothing lost
    faults = faults_by_bot(out)
    assert faults["hostile"] > 0 and faults["planner"] == 0 and faults["random"] == 0
    texts = {r["text"] for r in pq.read_table(out / "moves").to_pylist() if r["kind"] == "fault"}
    assert any(t.startswith(fault) for t in texts), texts  # str.startswith takes a tuple too
    ranks = pq.read_table(out / "matches").to_pylist()
    for row in ranks:  # a forfeiting bot is ranked last
        seat = row["seats"].index("hostile")
        if fault in ("timeout", "crash", "output"):  # the process is lost: forfeit
            assert row["ranks"][seat] == 3


@pytest.mark.parametrize(
    "hostile,fault",
    [
        ("Raises", "raised"),
        pytest.param("SleepsForever", "timeout", marks=SLOW),
        pytest.param("BusyLoop", "timeout", marks=SLOW),
        ("Garbage", "illegal"),
    ],
)
def test_in_process_hostile_bots(tmp_path, hostile, fault):
    out = tmp_path / "out"
    s = run_league(league(tmp_path, hostile, "inprocess"), out, workers=2, progress=False)
    assert s.complete and s.played == 3
    faults = faults_by_bot(out)
    assert faults["hostile"] > 0 and faults["planner"] == 0 and faults["random"] == 0
    assert any(k.startswith(fault) for k in kinds_of_faults(out))


@pytest.mark.parametrize(
    "isolation",
    [
        "inprocess",
        pytest.param("process", marks=SLOW),
        pytest.param("sandbox", marks=SANDBOX_MARKS),
    ],
)
@pytest.mark.slow
def test_reseeding_global_random_changes_nothing(tmp_path, isolation):
    out = tmp_path / "out"
    run_league(league(tmp_path, "Reseeds", isolation), out, workers=1, progress=False)
    plain = tmp_path / "plain"
    path = league(tmp_path, "Reseeds", isolation)
    path.write_text(
        path.read_text().replace(
            f'{{ spec = "{HERE / "bots.py"}:Reseeds", isolation = "{isolation}" }}',
            '"bohnarena.bohnanza:Bot"',
        )
    )
    run_league(path, plain, workers=1, progress=False)

    def chance(o):
        return [
            {**r, "seq": None}
            for r in pq.read_table(o / "moves").to_pylist()
            if r["kind"] in ("dealt", "reshuffled", "drew", "harvested", "ended")
        ]

    assert chance(out) == chance(plain)
    assert faults_by_bot(out)["hostile"] == 0


@sandboxed
def test_a_sandboxed_snoop_finds_no_engine_state(tmp_path):
    out = tmp_path / "out"
    run_league(league(tmp_path, "Snoops", "sandbox"), out, workers=1, progress=False)
    log = bot_log(out, "hostile")
    assert "snoop: found 0 engine tables" in log and "found 1" not in log


@pytest.mark.slow
def test_in_process_snoop_can_see_the_table_which_is_why_the_sandbox_exists():
    import sys

    sys.path.insert(0, str(HERE))
    import contextlib
    import gc
    import io

    from tests.hostile.bots import Snoops

    gc.collect()  # earlier tests' tables, held in cycles until collected
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        play_match(ruleset("classic", 3), 1, [Snoops(), Bot(), Bot()])
    assert "found 1 engine tables" in err.getvalue()


@pytest.mark.parametrize("spec", ["planner", "trader", "random"])
@pytest.mark.slow
def test_well_behaved_bots_play_identically_in_every_mode(spec):
    from bohnarena.core.plugins import load_bot

    rules = ruleset("riogrande", 4)
    cls = load_bot(spec, Bot)
    inproc = play_match(rules, 9, [cls(), PlannerBot(), cls(), PlannerBot()])
    for isolation in ("process", "sandbox") if shutil.which("bwrap") else ("process",):
        seats = [
            remote_seat("bohnanza", BotEntry("b", spec=spec, isolation=isolation)),
            PlannerBot(),
            cls(),
            PlannerBot(),
        ]
        assert play_match(rules, 9, seats) == inproc


@sandboxed
@pytest.mark.slow
def test_a_bot_in_bash_plays_a_league(tmp_path):
    path = tmp_path / "sh.toml"
    script = Path(__file__).parents[2] / "bots" / "first_choice.sh"
    path.write_text(
        'name = "sh"\nedition = "classic"\nplayers = 3\ndeals = 2\n'
        f'[bots]\nshell = {{ command = ["bash", "{script}"] }}\n'
        'planner = "planner"\nrandom = "random"\n'
    )
    s = run_league(path, tmp_path / "out", workers=2, progress=False)
    assert s.complete and s.played == 6
    assert faults_by_bot(tmp_path / "out")["shell"] == 0
    moves = pq.read_table(tmp_path / "out" / "moves").to_pylist()
    shell_seats = {
        (r["match_id"], r["seat"])
        for r in moves
        if r["kind"] == "seat" and r["text"] == "make_room,plant,plant_second"
    }
    assert len(shell_seats) == 6  # it answered for itself in every match


#: Answers decisions with JSON the engine must take as the bot's fault only:
#: numbers Python reads but no answer is (NaN, inf), a huge offer, lone
#: surrogates in an error and a note, and last a deep answer (not JSON: its
#: process is lost); then the default.
JUNK_ANSWERS = """\
import json, sys
junk = [
    '{"answer": NaN, "note": NaN}',
    '{"answer": 1e999}',
    '{"answer": {"give": [' + ",".join(["0"] * 20000) + '], "want": [1], "to": null}}',
    '{"error": "\\\\ud800\\\\udfff", "note": "\\\\ud800"}',
    '{"answer": ' + "[" * 50000 + "]" * 50000 + '}',
]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"decisions": ["propose"]}), flush=True)
    elif msg["type"] == "decide":
        print(junk.pop(0) if junk else json.dumps({"answer": msg["default"]}), flush=True)
"""


def test_junk_json_answers_are_the_bots_faults_only(tmp_path):
    """A red team's answers (issue 22): each is a fault of the bot's own, of
    a type, and the match ends with every other seat uncharged."""
    script = tmp_path / "junk.py"
    script.write_text(JUNK_ANSWERS)
    entry = BotEntry("junk", command=("python3", str(script)), isolation="process")
    seat = remote_seat("bohnanza", entry)
    result, records = play_match(ruleset("classic", 3), 4, [seat, PlannerBot(), PlannerBot()])
    assert list(result.faults) == [5, 0, 0]
    faults = [r for r in records if r[0] == "fault"]
    assert [r[1] for r in faults] == [0] * 5
    kinds = [r[3].split(":")[0] for r in faults]
    assert kinds == ["protocol", "protocol", "illegal", "raised", "protocol"], faults
