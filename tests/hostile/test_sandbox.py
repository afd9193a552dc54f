"""The sandbox against a hostile bot author (issue 10): each attack in
tests/hostile/attacks.py runs in a real league; the league finishes with
every match, the bot gets nothing (its log says "sealed", never "GOT"),
nothing is written outside its private /tmp and nothing of it is left
running."""

import json
import os
import platform
import resource
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bohnarena.external.channel import BotFault, Channel
from bohnarena.run.dispatch import run_league
from tests.conftest import SANDBOX_MARKS
from tests.support.leagues import bot_log

HERE = Path(__file__).parent
pytestmark = SANDBOX_MARKS


def hostile_league(tmp_path, bot, targets, command=None, isolation="sandbox", deals=1):
    botdir = tmp_path / "bot"
    botdir.mkdir(exist_ok=True)
    (botdir / "attacks.py").write_text(
        (HERE / "attacks.py").read_text() + f"\nTARGETS = {json.dumps(targets)}\n"
    )
    (botdir / "league-secret.txt").write_text("the sandbox shows a file bot its file alone")
    entry = (
        f'{{ command = {json.dumps(command)}, isolation = "{isolation}" }}'
        if command
        else f'{{ spec = "{botdir / "attacks.py"}:{bot}", isolation = "{isolation}" }}'
    )
    path = tmp_path / "league.toml"
    path.write_text(
        f'name = "h"\nedition = "classic"\nplayers = 3\ndeals = {deals}\nseed = 5\n'
        "[limits]\ndecision_seconds = 1\nmax_faults = 5\ndisk_mb = 4\n"
        f'[bots]\nhostile = {entry}\nplanner = "planner"\nrandom = "random"\n'
    )
    return path


def play(tmp_path, bot, targets=None, **kw):
    out = tmp_path / "out"
    summary = run_league(
        hostile_league(tmp_path, bot, targets or {}, **kw), out, workers=2, progress=False
    )
    assert summary.complete and summary.played == 3 * kw.get("deals", 1)
    rows = pq.read_table(out / "matches").to_pylist()
    for row in rows:  # the honest bots are never charged
        for seat, name in enumerate(row["seats"]):
            if name != "hostile":
                assert row["faults"][seat] == 0, row
    log = bot_log(out, "hostile")
    return out, log


def test_reads_nothing_of_the_organisers(tmp_path):
    secrets = [
        str(tmp_path / "league.toml"),
        str(tmp_path / "out"),
        "/arena/bot/league-secret.txt",
        str(tmp_path / "bot" / "league-secret.txt"),
        str(tmp_path / "out" / "league.toml"),
        str(HERE / "bots.py"),
        f"/proc/{os.getpid()}/mem",
        f"/proc/{os.getpid()}/environ",
    ]
    site = sysconfig.get_paths()["purelib"]
    _out, log = play(tmp_path, "Reads", {"secrets": secrets, "listed": [site, str(Path.home())]})
    got = [line for line in log.splitlines() if line.startswith("GOT")]
    assert not got, got
    # Installed packages (other bots among them) are hidden; of the home
    # directory only the way to the interpreter shows, if it lives there.
    listed = dict(line[7:].split(": ", 1) for line in log.splitlines() if line.startswith("listed"))
    assert listed[site] == "[]"
    home = eval(listed[str(Path.home())])
    assert home == [] or Path(sys.base_prefix).is_relative_to(Path.home() / home[0])
    assert f"sealed {tmp_path / 'league.toml'}" in log
    env = next(line for line in log.splitlines() if line.startswith("env "))
    assert (
        "HOME" in env
        and "PYTHONPATH" in env
        and "SEED" not in env.upper().replace("PYTHONHASHSEED", "")
    )
    # its own PID namespace: bubblewrap's init, the zygote and the match's process
    pids = next(line for line in log.splitlines() if line.startswith("pids "))
    assert eval(pids[5:]) == ["1", "2", "3"] or len(eval(pids[5:])) <= 4


def test_signals_reach_nothing_outside(tmp_path):
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        _out, log = play(tmp_path, "Signals", {"pids": [os.getpid(), os.getppid(), sleeper.pid]})
        assert sleeper.poll() is None  # the organiser's process was not touched
    finally:
        sleeper.kill()
    assert "signalled" not in log or all(
        f"signalled {p} " not in log for p in (os.getpid(), sleeper.pid)
    )


def test_writes_stay_in_its_private_tmp(tmp_path):
    site = Path(sysconfig.get_paths()["purelib"])
    _out, log = play(tmp_path, "Writes", {"writable": [str(site), str(tmp_path), str(HERE)]})
    assert "GOT" not in log, log
    assert not (site / "evil.pth").exists() and not (tmp_path / "evil.pth").exists()
    counts = [int(line.split()[-1]) for line in log.splitlines() if line.startswith("tmp files")]
    assert counts and max(counts) <= 4 * 1024 // 64  # disk_mb = 4 of 64 KB files


def _leftovers(pattern):
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()


def still_running(pattern, seconds=10.0):
    """The processes matching ``pattern`` that outlive ``seconds``: a kill
    takes a moment to land on a loaded machine, so wait for it (not a
    fixed sleep) and fail only on what stays."""
    deadline = time.monotonic() + seconds
    while (left := _leftovers(pattern)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_no_child_process_and_nothing_outlives_the_match(tmp_path):
    _out, log = play(tmp_path, "Spawns")
    assert "GOT" not in log, log
    assert "no child" in log and "no fork" in log
    assert not still_running("sleep 424[23]")


def test_a_command_bot_that_detaches_children_leaves_nothing_behind(tmp_path):
    script = tmp_path / "detach.sh"
    shutil.copy(Path(__file__).parents[2] / "bots" / "first_choice.sh", tmp_path)
    script.write_text('setsid sleep 4244 &\nexec bash "$1"\n')
    _out, _log = play(tmp_path, None, command=["bash", str(script), "first_choice.sh"])
    assert not still_running("sleep 4244")
    # the sandboxes end with their workers (this test's: others may be playing beside it)
    assert not still_running("bohnarena.external.sandbox.zygote.*detach.sh")


def test_no_network(tmp_path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        _out, log = play(tmp_path, "Connects", {"port": server.getsockname()[1]})
    assert "GOT" not in log and "no network" in log


def test_every_match_starts_fresh(tmp_path):
    _out, log = play(tmp_path, "Remembers", deals=2)
    assert "GOT" not in log, log


@pytest.mark.parametrize(
    "answer",
    [
        "[" * 100_000 + "]" * 100_000,  # deep JSON: a RecursionError in the parser
        '{"decisions": 5}',  # a wrong-typed start reply
        '{"decisions": [{"x": 1}]}',
        '"just a string"',
    ],
    ids=["deep", "int", "dicts", "string"],
)
def test_malformed_start_replies_are_the_bots_fault(tmp_path, answer):
    script = tmp_path / "bad.sh"
    (tmp_path / "reply").write_text(answer + "\n")
    script.write_text('read line\ncat "$1"\nwhile read line; do :; done\n')
    from bohnarena.bohnanza import ruleset
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.remote import remote_seat

    seat = remote_seat(
        "bohnanza",
        BotEntry(
            "bad", command=("bash", str(script), str(tmp_path / "reply")), isolation="sandbox"
        ),
    )
    fault = seat.start(0, ruleset("classic", 3), 1)
    assert fault is not None and fault.startswith("protocol"), fault
    assert seat.channel is None and seat.forfeits(1)  # the process is gone; it forfeits


def test_a_bot_that_never_reads_cannot_block_the_engine():
    reader, writer = os.pipe()  # nobody reads `reader`
    channel = Channel(os.open(os.devnull, os.O_RDONLY), writer, 1024)
    start = time.perf_counter()
    with pytest.raises(BotFault) as fault:
        channel.send({"x": "y" * (8 * 1024 * 1024)}, time.perf_counter() + 0.3)
    assert fault.value.kind == "timeout" and time.perf_counter() - start < 2
    channel.close()
    os.close(reader)


def test_fault_details_reach_only_the_organiser(tmp_path):
    """Other seats learn "fault of type T", never the text."""
    from bohnarena.bohnanza import Bot, play_match, ruleset

    seen = []

    class Watcher(Bot):
        def plant_second(self, view):
            seen.extend(r for r in view.history if r[0] == "fault")
            return False

    class Leaks(Bot):
        def plant_second(self, view):
            raise RuntimeError("secret message to my friend")

    _, records = play_match(ruleset("classic", 3), 4, [Leaks(), Watcher(), Bot()])
    assert any("secret message" in r[3] for r in records if r[0] == "fault")
    assert seen and all(r[3] == "raised" for r in seen if r[1] == 0)


def test_missing_bubblewrap_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from bohnarena.cli import cli

    monkeypatch.setattr(shutil, "which", lambda name: None)
    path = hostile_league(tmp_path, "Reads", {})
    r = CliRunner().invoke(cli, ["run", str(path), "-o", str(tmp_path / "out")])
    assert r.exit_code == 2 and "bubblewrap" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "counted"])
def test_a_command_bot_has_a_process_cap(tmp_path, monkeypatch, cgroup):
    import bohnarena.external.endpoint as sandbox
    import bohnarena.external.sandbox.cgroups as cgroups
    from bohnarena.bohnanza import ruleset
    from bohnarena.bohnanza.state import State
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.remote import remote_seat
    from bohnarena.referee.limits import Limits

    if not cgroup:
        monkeypatch.setattr(cgroups, "_own", lambda controller: None)
    else:
        probe = cgroups.Groups(10, 1 << 30)
        probe.remove()
        if not probe.caps_processes:
            pytest.skip("no pids cgroup may be made here (the counted cap is tested)")
    script = tmp_path / "many.sh"
    script.write_text(
        "read line\necho '{\"decisions\":[]}'\n"
        "for i in $(seq 40); do sleep 4245 & done\nwhile read line; do :; done\n"
    )
    seat = remote_seat(
        "bohnanza",
        BotEntry("many", command=("bash", str(script)), isolation="sandbox"),
        Limits(max_processes=8, decision_seconds=10),  # (a kill ends the wait sooner)
    )
    try:
        assert seat.start(0, ruleset("classic", 3), 1) is None
        if cgroup:  # the cgroup refuses the ninth: the cap holds throughout
            deadline, seen = time.monotonic() + 10, [0]
            while not seen[-1] and time.monotonic() < deadline:
                time.sleep(0.05)
                seen = [len(_leftovers("sleep 4245"))]
            assert seen[-1], "the bot started no process: the cap was not tried"
            for _ in range(10):
                time.sleep(0.05)
                seen.append(len(_leftovers("sleep 4245")))
            assert max(seen) <= 8, seen
        else:  # counted every 10 ms: a burst may pass the cap, then the bot is killed
            state = State(ruleset("classic", 3), 1)
            state.start()
            _, fault = seat.decide("plant_second", state.view(0), ())
            assert fault is not None and "killed: more than 8 processes" in fault, fault
    finally:
        seat.close()
        sandbox.close_sandboxes()
    assert not still_running("sleep 4245")


REUSED = r"""n=0
while IFS= read -r line; do
  case "$line" in
    *'"type":"new_match"'*) echo "new match" >&2 ;;
    *'"type":"start"'*) n=$((n+1)); echo "match $n in $$" >&2
                        echo '{"decisions":[],"reuse":true}' ;;
    *'"type":"end"'*) ;;
    *) echo '{"error":"asked nothing"}' ;;
  esac
done
"""


def test_a_command_bot_may_ask_to_serve_match_after_match(tmp_path):
    script = tmp_path / "reused.sh"
    script.write_text(REUSED)
    path = hostile_league(tmp_path, None, {}, command=["bash", str(script)], deals=2)
    s = run_league(path, tmp_path / "out", workers=1, progress=False)
    assert s.complete and s.played == 6
    log = bot_log(tmp_path / "out", "hostile")
    pids = {line.split()[-1] for line in log.splitlines() if line.startswith("match ")}
    assert "match 6 in" in log and len(pids) == 1  # one process played all six
    assert log.splitlines().count("new match") == 5


def test_a_command_bot_that_never_reads_nor_answers_is_charged_alone(tmp_path):
    script = tmp_path / "deaf.sh"
    script.write_text("read line\necho '{\"decisions\": null}'\nexec sleep 1000\n")
    out, _log = play(tmp_path, None, command=["bash", str(script)])
    rows = pq.read_table(out / "matches").to_pylist()
    assert all(r["ranks"][r["seats"].index("hostile")] == 3 for r in rows)  # it forfeits
    texts = {r["text"] for r in pq.read_table(out / "moves").to_pylist() if r["kind"] == "fault"}
    assert texts and all(t.startswith("timeout") for t in texts)
    assert not still_running("sleep 1000")


def run_one_file_bot(tmp_path, source, cls, deals=1):
    """A league of a sandboxed bot written from ``source`` and two shipped bots."""
    bot = tmp_path / "bot" / "hostile.py"
    bot.parent.mkdir()
    bot.write_text(source)
    path = tmp_path / "l.toml"
    path.write_text(
        f'name = "t"\nedition = "classic"\nplayers = 3\ndeals = {deals}\nseed = 5\n'
        f'[bots]\nhostile = {{ spec = "{bot}:{cls}", isolation = "sandbox" }}\n'
        'planner = "planner"\nrandom = "random"\n'
    )
    return run_league(path, tmp_path / "out", workers=1, progress=False)


TAMPERS_AT_IMPORT = """
import os, signal, socket, stat
import bohnarena.external.sandbox.nochild as nochild
nochild.prepare = lambda: None  # the filter off in every child
nochild.forbid_new_processes = lambda: False
from bohnarena.bohnanza import Bot
SEEN = []
for fd in range(64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            s = socket.socket(fileno=fd)
            SEEN.append((fd, int(s.type)))
            s.detach()
    except OSError:
        pass

class Tamper(Bot):
    def plant_second(self, view):
        print("sockets at import", SEEN, file=__import__("sys").stderr, flush=True)
        if os.fork() == 0:
            os.setsid()
            os.execvp("sleep", ["sleep", "4246"])
        return False
"""


def test_code_run_at_import_cannot_keep_processes_or_reach_the_control_socket(tmp_path):
    s = run_one_file_bot(tmp_path, TAMPERS_AT_IMPORT, "Tamper", deals=2)
    assert s.complete and s.played == 6
    assert not still_running("sleep 4246")  # killed at every match's end, filter or not
    log = bot_log(tmp_path / "out", "hostile")
    seen = eval(
        next(line for line in log.splitlines() if line.startswith("sockets at import"))[
            len("sockets at import ") :
        ]
    )
    # one socket: its own channel to the supervisor, never the engine's control socket
    assert len([fd for fd, kind in seen if kind == int(socket.SOCK_SEQPACKET)]) <= 1


def honest_bots_uncharged(out):
    rows = pq.read_table(out / "matches").to_pylist()
    for row in rows:
        for seat, name in enumerate(row["seats"]):
            if name != "hostile":
                assert row["faults"][seat] == 0, row
    return rows


#: What a thread of the bot's sees of its confinement, and whether it can fork.
CONFINEMENT = """
import os, resource, sys, threading, time

def report(what):
    print(what, file=sys.stderr, flush=True)

def confinement(who):
    status = open("/proc/thread-self/status").read()
    seccomp = next(l.split()[1] for l in status.splitlines() if l.startswith("Seccomp:"))
    cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
    report(f"{who}: seccomp {seccomp}, cpu limit {cpu}")
    for _ in range(3):
        try:
            pid = os.fork()
        except OSError as e:
            report(f"no fork: {e}")
        else:
            if pid == 0:
                os.execvp("sleep", ["sleep", "4248"])
            report("GOT a fork")
        time.sleep(0.02)
"""

THREAD_AT_IMPORT = (
    CONFINEMENT
    + """
from bohnarena.bohnanza import Bot
done = threading.Event()

def spawn():
    try:
        confinement("thread")
    finally:
        done.set()

threading.Thread(target=spawn, daemon=True).start()

class Threads(Bot):
    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        done.wait(5)  # the thread has tried (nothing timed hangs on it)
"""
)


def assert_confined(log):
    """Every report of the bot's: filtered (x86-64, ARM64), CPU-limited, no fork."""
    assert "GOT" not in log, log
    seen = [line for line in log.splitlines() if ": seccomp " in line]
    assert seen and "no fork" in log, log
    for line in seen:
        if platform.machine() in ("x86_64", "aarch64"):
            assert "seccomp 2," in line, line
        assert not line.endswith(f"cpu limit {resource.RLIM_INFINITY}"), line
    assert not still_running("sleep 4248")


def test_a_thread_started_at_import_runs_filtered_and_limited(tmp_path):
    """Issue 22: the bot's import-time code ran in the template, which had
    neither the seccomp filter nor the CPU limit: its thread forked for the
    whole league. Now nothing of the bot runs before the filter and limits."""
    s = run_one_file_bot(tmp_path, THREAD_AT_IMPORT, "Threads", deals=2)
    assert s.complete and s.played == 6 and not s.errors
    honest_bots_uncharged(tmp_path / "out")
    assert_confined(bot_log(tmp_path / "out", "hostile"))


REWRITES_BOHNARENA = (
    CONFINEMENT
    + """
import resource, sys
import bohnarena.external.sandbox.nochild as nochild

def off(*args, **kwargs):
    return False

# The filter, the limits and the template's own functions, all made harmless.
nochild.forbid_new_processes.__code__ = off.__code__
resource.setrlimit = off
main = sys.modules["__main__"]  # the zygote

def _fork(sock, template, limits, run, cpus):  # a match child without limits
    pid = os.fork()
    if pid:
        os.close(sock)
        return pid
    try:
        template.close()
        run(sock)
    finally:
        os._exit(0)

main._fork = _fork
if hasattr(main, "_confine"):
    main._confine.__code__ = off.__code__

from bohnarena.bohnanza import Bot

class Rewrites(Bot):
    def plant_second(self, view):
        confinement("decision")
        return False
"""
)


def test_a_bot_that_rewrites_bohnarena_at_import_still_cannot_fork(tmp_path):
    """Issue 22: import-time code in the template could rewrite the
    template's own functions (the filter, _fork, the rlimit calls), so that
    match children ran unconfined."""
    s = run_one_file_bot(tmp_path, REWRITES_BOHNARENA, "Rewrites")
    assert s.complete and s.played == 3 and not s.errors
    honest_bots_uncharged(tmp_path / "out")
    assert_confined(bot_log(tmp_path / "out", "hostile"))


COMPILED_ONCE = """
import os, sys
from bohnarena.bohnanza import Bot

def cached():
    found = []
    for root, _dirs, files in os.walk("/tmp/.pycache"):
        found += [f for f in files if f.startswith("hostile.")]
    return found

print(f"imported: cached {cached()}, writes {not sys.dont_write_bytecode}", file=sys.stderr)

class Compiled(Bot):
    pass
"""


def test_a_bot_is_compiled_once_per_sandbox_not_every_match(tmp_path):
    """Every match imports the bot afresh; its children keep what they
    compiled in a cache of their own, so later matches read bytecode."""
    s = run_one_file_bot(tmp_path, COMPILED_ONCE, "Compiled", deals=2)
    assert s.complete and s.played == 6
    said = [
        ln for ln in bot_log(tmp_path / "out", "hostile").splitlines() if ln.startswith("imported")
    ]
    # the probe and the first match may compile; from then on it is read from the cache
    assert len(said) == 7, said
    assert all(ln.endswith("writes True") for ln in said), said
    assert "cached ['hostile.cpython" in said[-1], said


REACHES_THE_TEMPLATE = """
import ctypes, os, sys
from bohnarena.bohnanza import Bot

libc = ctypes.CDLL(None, use_errno=True)

def report(what):
    print(what, file=sys.stderr, flush=True)

class Reaches(Bot):
    def plant_second(self, view):
        for pid in (2, 3):  # the supervisor, the template
            try:
                with open(f"/proc/{pid}/mem", "r+b"):
                    report(f"GOT the memory of {pid}")
            except OSError as e:
                report(f"sealed {pid}: {e.strerror}")
            if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                report(f"GOT a trace of {pid}")
        return False
"""


def test_a_match_cannot_rewrite_the_template_that_makes_the_next_match(tmp_path):
    """The template is bohnarena's alone: a child may not write its memory
    or trace it (nor the supervisor's), so the next match is confined too."""
    s = run_one_file_bot(tmp_path, REACHES_THE_TEMPLATE, "Reaches", deals=2)
    assert s.complete and s.played == 6 and not s.errors
    honest_bots_uncharged(tmp_path / "out")
    log = bot_log(tmp_path / "out", "hostile")
    assert "GOT" not in log and "sealed 3" in log, log


def start_file_bot(tmp_path, source, cls="B"):
    """A sandboxed seat of the bot written from ``source``: its start's fault, and its log."""
    from bohnarena.bohnanza import ruleset
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.endpoint import close_sandboxes
    from bohnarena.external.remote import remote_seat

    bot = tmp_path / "b.py"
    bot.write_text(source)
    log = tmp_path / "b.log"
    seat = remote_seat(
        "bohnanza", BotEntry("b", spec=f"{bot}:{cls}", isolation="sandbox"), None, log
    )
    try:
        return seat.start(0, ruleset("classic", 3), 1), log.read_text()
    finally:
        seat.close()
        close_sandboxes()


def test_a_bot_that_imports_slower_than_a_match_allows_is_refused_at_once(tmp_path):
    fault, _log = start_file_bot(tmp_path, "import time\ntime.sleep(3600)\n")
    assert fault is not None and "does not load in the sandbox" in fault, fault
    assert "takes more than 10 s to import" in fault, fault


def test_a_bot_that_loads_in_the_probe_but_not_in_a_match_is_a_start_fault(tmp_path):
    source = (
        "import os\n"
        "if os.path.exists('/tmp/probed'):\n    raise SystemExit(4)\n"
        "open('/tmp/probed', 'w').close()\n"
        "from bohnarena.bohnanza import Bot\nclass B(Bot):\n    pass\n"
    )
    fault, log = start_file_bot(tmp_path, source)
    assert fault is not None and fault.startswith("start"), fault  # its first match's start
    assert "does not load: loading /arena/bot/b.py raised SystemExit: 4" in fault, fault
    assert "SystemExit: 4" in log and "BotLoadError" not in log  # the bot's own traceback


STOPS_ITS_SUPERVISOR = """
import os, signal
from bohnarena.bohnanza import Bot

class Stopper(Bot):
    def plant_second(self, view):
        for pid in (1, 2):  # the supervisor (pid 1 of its namespace: it ignores this), the template
            os.kill(pid, signal.SIGSTOP)
        return False
"""


@pytest.mark.slow
def test_a_bot_that_stops_its_supervisor_is_charged_and_the_league_goes_on(tmp_path):
    s = run_one_file_bot(tmp_path, STOPS_ITS_SUPERVISOR, "Stopper")
    assert s.complete and s.played == 3 and not s.errors
    moves = pq.read_table(tmp_path / "out" / "moves").to_pylist()
    rows = pq.read_table(tmp_path / "out" / "matches").to_pylist()
    for r in moves:
        if r["kind"] == "fault":  # only ever the hostile seat
            row = next(x for x in rows if x["match_id"] == r["match_id"])
            assert row["seats"][r["seat"]] == "hostile"
    assert any("sandbox did not answer" in r["text"] for r in moves if r["kind"] == "fault")


TRACES_THE_UNFILTERED = """
import ctypes, os, sys
from bohnarena.bohnanza import Bot

def unfiltered():
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            with open(f"/proc/{name}/status") as f:
                if "Seccomp:\\t0" in f.read():
                    yield int(name)

class Tracer(Bot):
    # Every process of its sandbox that runs without the filter (bubblewrap's
    # init was one, with no limits either): trace it, write its memory.
    def plant_second(self, view):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        for pid in unfiltered():
            if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                print("GOT a trace of", pid, file=sys.stderr, flush=True)
                libc.ptrace(17, pid, None, None)
            try:
                open(f"/proc/{pid}/mem", "r+b").close()
                print("GOT the memory of", pid, file=sys.stderr, flush=True)
            except OSError:
                print("sealed", pid, file=sys.stderr, flush=True)
        return False
"""


def test_no_process_outside_the_filter_can_be_traced_or_written_by_the_bot(tmp_path):
    """bubblewrap's own init (pid 1) ran in the sandbox with neither filter nor
    limits, and the bot's processes could trace it: a bot made it spin for the
    rest of the league, a process that no match's end killed (red team, issue 22)."""
    s = run_one_file_bot(tmp_path, TRACES_THE_UNFILTERED, "Tracer")
    assert s.complete and s.played == 3 and not s.errors
    log = bot_log(tmp_path / "out", "hostile")
    assert "sealed 1" in log and "GOT" not in log, log


def test_the_sandbox_is_never_the_hosts_root_and_proc_sys_is_read_only(tmp_path):
    from bohnarena.bohnanza import ruleset
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.endpoint import close_sandboxes
    from bohnarena.external.remote import remote_seat

    script = tmp_path / "who4247.sh"
    script.write_text(
        "read line\n(echo x > /proc/sys/kernel/core_pattern) 2>/dev/null "
        '&& echo "GOT sysctl" >&2\necho \'{"decisions": []}\'\n'
        "while read line; do :; done\n"
    )
    log = tmp_path / "who.log"
    seat = remote_seat(
        "bohnanza", BotEntry("who", command=("bash", str(script)), isolation="sandbox"), None, log
    )
    try:
        assert seat.start(0, ruleset("classic", 3), 1) is None
        pids = _leftovers("who4247.sh")
        assert pids
        for pid in pids:  # seen from the host: an unprivileged user, never root
            uid = next(
                line
                for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("Uid:")
            ).split()[1]
            assert uid != "0" or os.geteuid() != 0
    finally:
        seat.close()
        close_sandboxes()
    assert "GOT" not in log.read_text()
    assert Path("/proc/sys/kernel/core_pattern").read_text().strip() != "x"


def test_a_lone_surrogate_is_a_fault_not_a_lost_batch(tmp_path):
    source = (
        "from bohnarena.bohnanza import Bot\n"
        "class S(Bot):\n    def plant_second(self, view):\n"
        "        raise ValueError('\\ud800')\n"
    )
    s = run_one_file_bot(tmp_path, source, "S")
    assert s.complete and s.played == 3 and not s.errors
