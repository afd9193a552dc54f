"""`bohnarena replay`: transcripts, table states, verification, tampering,
reruns and bad input."""

import json
import shutil

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from tests.support.leagues import reseal


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("replay")
    league = base / "r.toml"
    league.write_text(
        'name = "r"\nedition = "anniversary"\nplayers = 3\ndeals = 3\nseed = 4\n'
        '[rules]\nextra_bean = "jumping"\n'
        '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\n'
    )
    out = base / "out"
    assert run_league(league, out, workers=2, progress=False).complete
    return out


def ids_in(part):
    return set(pq.read_table(part, columns=["match_id"])["match_id"].to_pylist())


def replay(*args):
    return CliRunner().invoke(cli, ["replay", *map(str, args)])


@pytest.mark.slow
def test_transcript_shows_every_turn_and_the_table(run_dir):
    r = replay(run_dir, "--match", 4)
    assert r.exit_code == 0, r.output
    for text in (
        "== Turn 1: seat 0",
        "[draw pile",
        "hand ",
        "fields",
        "plants",
        "reveals",
        "harvests field",
        "Final coins",
    ):
        assert text in r.output, text


def test_lines_carry_move_numbers_and_turn_jumps_to_a_turn(run_dir):
    full = replay(run_dir, "--match", 4).output.splitlines()
    # every record's line starts with its move number, in order
    numbers = [int(line.split()[0]) for line in full if line[:5].strip().isdigit()]
    assert numbers == sorted(numbers) and len(numbers) > 50
    (turn3,) = [line for line in full if "== Turn 3:" in line]
    r = replay(run_dir, "--match", 4, "--turn", 3)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    start = lines.index(turn3)  # from turn 3's start on, after the header
    assert lines[start - 1] == "" and lines[: start - 1] == full[: start - 1]  # the header
    assert "== Turn 2:" not in r.output and "== Turn 4:" in r.output
    assert "\n".join(lines[start:]) in "\n".join(full)
    # --at takes the move number shown
    move = int(turn3.split()[0])
    assert f"After move {move}" in replay(run_dir, "-m", 4, "--at", move).output
    bad = replay(run_dir, "--match", 4, "--turn", 9999)
    assert bad.exit_code == 2 and "not turn 9999" in bad.output
    both = replay(run_dir, "--match", 4, "--turn", 3, "--at", move)
    assert both.exit_code == 2 and "give one" in both.output


def test_a_replay_starts_with_a_header_naming_the_match_its_seats_and_result(run_dir):
    lines = replay(run_dir, "--match", 4).output.splitlines()
    row = pq.read_table(run_dir / "matches").to_pylist()[4]
    seats = row["seats"]
    assert lines[0] == "Match 4: Bohnanza, anniversary edition, 3 players, extra_bean=jumping"
    assert lines[1].startswith(f"  deal {row['deal']}, table 0, rotation {row['rotation']}; seed ")
    assert lines[2] == f"Seats: 0 {seats[0]}, 1 {seats[1]}, 2 {seats[2]}"
    assert lines[3].startswith(f"Result ({row['turns']} turns, ")
    first = row["ranks"].index(1)
    assert lines[4].split()[:4] == ["1.", "seat", str(first), seats[first]]
    assert lines[4].split()[4] == str(row["coins"][first])
    # JSON lines stay records only
    assert replay(run_dir, "--match", 4, "--json").output.startswith('{"move": 0')


def turns_shown(output):
    return [
        int(line.split("Turn ")[1].split(":")[0])
        for line in output.splitlines()
        if "== Turn" in line
    ]


@pytest.mark.parametrize(
    "args,shown",
    [
        (["--turn", 3, "--turns", 2], [3, 4]),
        (["--turn", 3, "--to-turn", 3], [3]),
        (["--turn", 3, "--to-turn", 5], [3, 4, 5]),
        (["--turns", 2], [1, 2]),
        (["--to-turn", 1], [1]),
    ],
)
def test_turn_stops_after_turns_or_at_to_turn(run_dir, args, shown):
    r = replay(run_dir, "--match", 4, *args)
    assert r.exit_code == 0, r.output
    assert turns_shown(r.output) == shown
    full = replay(run_dir, "--match", 4).output.splitlines()
    after = [x for x in full[full.index(r.output.splitlines()[-1]) + 1 :] if x]
    assert f"== Turn {shown[-1] + 1}:" in after[0]  # it stops right before the next turn
    assert "Final coins" not in r.output
    rows = [json.loads(x) for x in replay(run_dir, "-m", 4, "--json", *args).output.splitlines()]
    assert [x["n"] for x in rows if x["kind"] == "turn"] == shown


@pytest.mark.parametrize(
    "args,message",
    [
        (["--turn", 5, "--to-turn", 3], "--to-turn 3 comes before --turn 5"),
        (["--turn", 5, "--turns", 1, "--to-turn", 9], "give one"),
        (["--at", 10, "--turns", 2], "give one"),
    ],
)
def test_bad_turn_ranges(run_dir, args, message):
    r = replay(run_dir, "--match", 4, *args)
    assert r.exit_code == 2 and message in r.output, r.output


def test_at_shows_the_whole_table_and_seat_shows_only_that_seats_view(run_dir):
    whole = replay(run_dir, "-m", 2, "--at", 60)
    assert whole.exit_code == 0 and "After move 60" in whole.output
    assert whole.output.count("hand ") == 3 and "(top:" in whole.output
    seat = replay(run_dir, "-m", 2, "--at", 60, "--seat", 1)
    assert seat.output.count("hand ") == 1 and "cards in hand" in seat.output
    assert "(top:" not in seat.output  # the draw pile's top is hidden from seats


def test_seat_transcript_hides_other_hands_and_decisions(run_dir):
    r = replay(run_dir, "-m", 2, "--seat", 0, "--json")
    rows = [json.loads(line) for line in r.output.splitlines()]
    for row in rows:
        if row["kind"] == "drew" and row["seat"] != 0:
            assert row["card"] == -1
        if row["kind"] in ("plant", "respond", "propose", "offer", "make_room"):
            assert row["seat"] == 0
        if row["kind"] == "table":
            assert all(s["hand"] is None for s in row["state"]["seats"] if s["seat"] != 0)


def test_json_lines(run_dir):
    r = replay(run_dir, "-m", 1, "--json")
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert rows[0]["kind"] == "seat" and rows[-1]["kind"] == "ended"
    at = json.loads(replay(run_dir, "-m", 1, "--at", 10, "--json").output)
    assert at["move"] == 10 and len(at["state"]["seats"]) == 3


def test_verify_and_rerun_hold_for_an_honest_log(run_dir):
    for flag in ("--verify", "--rerun"):
        r = replay(run_dir, "-m", 5, flag)
        assert r.exit_code == 0 and "OK" in r.output


def test_verify_all(run_dir):
    r = replay(run_dir, "--verify-all", "-j", "2")
    assert r.exit_code == 0, r.output
    assert "verified 9 matches: every one replays" in r.output


def tamper(run_dir, tmp_path, change):
    """A copy of the run whose moves log ``change`` edited, its manifest
    rewritten to match (what replay alone must catch)."""
    out = tmp_path / "tampered"
    shutil.copytree(run_dir, out)
    table = pq.read_table(out / "moves")  # (each batch's moves file: one file for the forger)
    for part in (out / "moves").glob("*.parquet"):
        part.unlink()
    (part,) = (out / "matches").glob("*.parquet")
    pq.write_table(change(table), out / "moves" / part.name)
    reseal(out)
    return out


def edit(table, match_id, kind, nth, column, value):
    """Set ``column`` of the nth record of ``kind`` in a match."""
    rows = table.to_pylist()
    hits = [i for i, r in enumerate(rows) if r["match_id"] == match_id and r["kind"] == kind]
    rows[hits[nth]][column] = value(rows[hits[nth]][column])
    return type(table).from_pylist(rows, schema=table.schema)


@pytest.mark.parametrize(
    "name,change",
    [
        ("a changed card", lambda t: edit(t, 3, "drew", 4, "card", lambda c: (c + 1) % 7)),
        ("a changed dealt hand", lambda t: edit(t, 3, "dealt", 1, "cards", lambda c: c[::-1])),
        ("an edited coin count", lambda t: edit(t, 3, "harvested", 0, "coins", lambda c: c + 1)),
        (
            "edited final coins",
            lambda t: edit(t, 3, "ended", 0, "values", lambda v: [v[0] + 1, *v[1:]]),
        ),
        ("an illegal decision", lambda t: edit(t, 3, "plant_second", 0, "n", lambda n: 7)),
        (
            "a dropped move",
            lambda t: t.filter(
                pc.invert(pc.and_(pc.equal(t["match_id"], 3), pc.equal(t["seq"], 40)))
            ),
        ),
    ],
)
@pytest.mark.slow
def test_verify_catches_tampering(run_dir, tmp_path, name, change):
    out = tamper(run_dir, tmp_path, change)
    r = replay(out, "-m", 3, "--verify")
    assert r.exit_code == 1, (name, r.output)
    assert r.output.startswith("match 3: move ") and "the log has" in r.output
    assert "('" not in r.output, r.output  # in words, not a raw tuple
    others = replay(out, "-m", 4, "--verify")
    assert others.exit_code == 0
    r = replay(out, "--verify-all", "-j", "1")
    assert r.exit_code == 1 and "1 do not" in r.output


@pytest.mark.slow
def test_verify_says_in_words_what_differs_and_where(run_dir, tmp_path):
    log = [json.loads(x) for x in replay(run_dir, "-m", 3, "--json").output.splitlines()]
    harvest = next(x for x in log if x["kind"] == "harvested" and x["n"] >= 2)
    change = lambda t: edit(t, 3, "harvested", 0, "coins", lambda c: c + 1)  # noqa: E731
    first = next(x for x in log if x["kind"] == "harvested")
    out = tamper(run_dir, tmp_path, change)
    r = replay(out, "-m", 3, "--verify")
    assert r.exit_code == 1
    coins = first["coins"]
    assert r.output.startswith(f'match 3: move {first["move"]}: the log has "seat {first["seat"]} ')
    assert f"harvests field {first['field']}: {first['n']} " in r.output
    assert f"-> {coins + 1} coin(s)" in r.output and f"-> {coins} coin(s)" in r.output
    assert f"(coins {coins + 1} in the log, {coins} by the rules)" in r.output
    assert harvest  # (a harvest of two cards or more exists to edit)


def test_edited_result_row_is_caught(run_dir, tmp_path):
    out = tmp_path / "t"
    shutil.copytree(run_dir, out)
    (part,) = (out / "matches").glob("*.parquet")
    rows = pq.read_table(part).to_pylist()
    rows[2]["coins"] = [99, 0, 0]
    pq.write_table(type(pq.read_table(part)).from_pylist(rows, schema=pq.read_schema(part)), part)
    reseal(out)
    r = replay(out, "-m", 2, "--verify")
    assert r.exit_code == 1 and "the matches table has coins [99, 0, 0]" in r.output


def test_rerun_reports_a_bot_that_changed(run_dir, tmp_path):
    out = tmp_path / "t"
    shutil.copytree(run_dir, out)
    league = (out / "league.toml").read_text().replace('random = "random"', 'random = "planner"')
    (out / "league.toml").write_text(league)
    r = replay(out, "-m", 0, "--rerun")
    assert r.exit_code == 1 and "the bots now play" in r.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["--match", "999"], "no finished match 999"),
        ([], "give --match"),
        (["-m", "1", "--seat", "5"], "--seat must be"),
        (["-m", "1", "--at", "999999"], "moves (0-"),
    ],
)
def test_bad_replay_requests(run_dir, args, message):
    r = replay(run_dir, *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_not_a_run_and_corrupt_files(run_dir, tmp_path):
    r = replay(tmp_path, "-m", 1)
    assert r.exit_code == 2 and "not a bohnarena results directory" in r.output
    out = tmp_path / "corrupt"
    shutil.copytree(run_dir, out)
    (part,) = (p for p in (out / "moves").glob("*.parquet") if 1 in ids_in(p))
    part.write_bytes(part.read_bytes()[:200])  # truncated
    r = replay(out, "-m", 1)
    assert r.exit_code == 2 and "corrupt or truncated" in r.output and "Traceback" not in r.output


def test_other_log_format_or_rules_version_is_refused(run_dir, tmp_path):
    for key, value, message in (
        ("log_format", 99, "log format 99"),
        ("rules_version", 99, "rules version 99"),
    ):
        out = tmp_path / key
        shutil.copytree(run_dir, out)
        meta = json.loads((out / "run.json").read_text())
        meta[key] = value
        (out / "run.json").write_text(json.dumps(meta))
        r = replay(out, "-m", 1)
        assert r.exit_code == 2 and message in r.output
