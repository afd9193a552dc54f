"""A fault another seat can see carries a type from a fixed set, never text
a bot chose (issue 22, part 2): two colluding bots once passed a whole hand
through the text of a command bot's error answer."""

import json
import textwrap

import pyarrow.parquet as pq
import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.core.faults import OTHER, TYPES, fault_type
from bohnarena.run.dispatch import run_league
from tests.conftest import sandboxed
from tests.support.leagues import bot_log

#: Says its hand in the text of an error answer to every decision.
SENDER = textwrap.dedent("""\
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            print(json.dumps({"decisions": None}), flush=True)
        elif msg["type"] == "decide":
            hand = "-".join(map(str, msg["view"]["hand"]))
            print(json.dumps({"error": f"HAND-{hand}: colluding"}), flush=True)
    """)

#: Plays the default and writes every fault of another seat it is told of to its log.
RECEIVER = textwrap.dedent("""\
    import json, sys
    seat = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            seat = msg["seat"]
            print(json.dumps({"decisions": None}), flush=True)
        elif msg["type"] == "decide":
            for e in msg["events"]:
                if e["kind"] == "fault" and e["seat"] != seat:
                    print("SAW", json.dumps(e), file=sys.stderr, flush=True)
            print(json.dumps({"answer": msg["default"]}), flush=True)
    """)


def league(tmp_path, bots):
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "l"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = "secret"\n'
        "[limits]\nmax_faults = 6\n[bots]\n" + "".join(f"{k} = {v}\n" for k, v in bots.items())
    )
    return path


def fault_texts(out):
    return [r["text"] for r in pq.read_table(out / "moves").to_pylist() if r["kind"] == "fault"]


@sandboxed
def test_two_command_bots_cannot_pass_a_hand_through_faults(tmp_path):
    for name, source in (("sender.py", SENDER), ("receiver.py", RECEIVER)):
        (tmp_path / name).write_text(source)
    path = league(
        tmp_path,
        {
            "sender": '{ command = ["python3", "sender.py"] }',
            "receiver": '{ command = ["python3", "receiver.py"] }',
            "planner": '"planner"',
        },
    )
    out = tmp_path / "out"
    s = run_league(path, out, workers=1, progress=False)
    assert s.complete and s.played == 3
    texts = fault_texts(out)
    # The organiser keeps the bot's text, after a type of ours.
    assert texts and all(t.startswith("raised: HAND-") for t in texts), texts
    seen = [
        json.loads(line[4:])
        for line in bot_log(out, "receiver").splitlines()
        if line.startswith("SAW ")
    ]
    assert seen, "the receiver was told of the sender's faults"
    assert {e["text"] for e in seen} == {"raised"}, seen


#: A Python bot in the sandbox that writes its own error line, with a text
#: of its choosing, straight onto the protocol's socket (which its host
#: keeps off fds 0 and 1), then answers as usual.
SMUGGLER = textwrap.dedent("""\
    import json, os, stat
    from bohnarena.bohnanza import Bot

    class Smuggler(Bot):
        def plant_second(self, view):
            for fd in range(3, 64):
                try:
                    if stat.S_ISSOCK(os.fstat(fd).st_mode):
                        line = {"error": "HAND-" + "-".join(map(str, view.hand))}
                        os.write(fd, json.dumps(line).encode() + b"\\n")
                        break
                except OSError:
                    pass
            return False
    """)

#: In process: writes each fault of another seat its view's history holds.
WATCHER = textwrap.dedent("""\
    from bohnarena.bohnanza import Bot

    class Watcher(Bot):
        def plant_second(self, view):
            with open({seen!r}, "a") as f:
                for rec in view.history:
                    if rec.kind == "fault" and rec.seat != view.seat:
                        f.write(repr(tuple(rec)) + "\\n")
            return False
    """)


@sandboxed
def test_a_sandboxed_python_bot_writing_its_own_error_line_tells_only_a_type(tmp_path):
    seen = tmp_path / "seen.txt"
    (tmp_path / "smuggler.py").write_text(SMUGGLER)
    (tmp_path / "watcher.py").write_text(WATCHER.format(seen=str(seen)))
    path = league(
        tmp_path,
        {
            "smuggler": f'{{ spec = "{tmp_path}/smuggler.py:Smuggler", isolation = "sandbox" }}',
            "watcher": f'"{tmp_path / "watcher.py"}:Watcher"',
            "planner": '"planner"',
        },
    )
    out = tmp_path / "out"
    s = run_league(path, out, workers=1, progress=False)
    assert s.complete and s.played == 3
    assert any(t.startswith("raised: HAND-") for t in fault_texts(out))
    records = [eval(line) for line in seen.read_text().splitlines()]
    assert records, "the watcher saw the smuggler's faults"
    assert all(r[3] in TYPES and "HAND" not in r[3] for r in records), records


@pytest.mark.parametrize(
    "reason,kind",
    [
        ("timeout: no answer within 2 s", "timeout"),
        ("raised HAND-9-8-9-5-2: x", "raised"),
        ("raised: HAND-9-8", "raised"),
        ("HAND-9-8-9-5-2", OTHER),
        ("memory: raised MemoryError", "memory"),
        ("illegal", "illegal"),
        ("\x1b]0;x\x07", OTHER),
        ("", OTHER),
    ],
)
def test_a_fault_type_is_one_of_a_fixed_set(reason, kind):
    assert fault_type(reason) == kind


class Raises(Bot):
    def plant_second(self, view):
        raise type("HAND-1-2", (Exception,), {})("3-4")


class Illegal(Bot):
    def plant_second(self, view):
        return "HAND-1-2"


class Malformed(Bot):
    def decisions(self, rules):
        return {"HAND-1-2"}


class Watcher(Bot):
    def __init__(self):
        self.seen = []

    def plant_second(self, view):
        self.seen += [r for r in view.history if r.kind == "fault" and r.seat != view.seat]
        return False


@pytest.mark.parametrize("bot", [Raises, Illegal, Malformed])
def test_every_fault_the_referee_writes_begins_with_a_type(bot):
    watcher = Watcher()
    _, records = play_match(ruleset("classic", 3), 4, [bot(), watcher, Bot()])
    texts = [r[3] for r in records if r[0] == "fault"]
    assert texts and all(fault_type(t) in TYPES for t in texts), texts
    assert watcher.seen and all(r.text in TYPES for r in watcher.seen), watcher.seen
