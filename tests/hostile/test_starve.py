"""CPU starvation from the sandbox (issue 43, hole 6): a sandbox's CPU
weight is the least there is but while the engine waits on it, so no number
of its processes or sessions takes another seat's time
(benchmarks/starve_bench.py measures the attack before and after)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.conftest import faults_by_bot, sandboxed

HERE = Path(__file__).parent
#: Where a sandbox's CPU group can be made: root, with cgroup v1's cpu hierarchy.
CPU = Path("/sys/fs/cgroup/cpu")
needs_cpu_group = pytest.mark.skipif(
    os.geteuid() != 0 or not (CPU / "cpu.shares").exists(),
    reason="needs root and cgroup v1's cpu hierarchy",
)


def fake_host(tmp_path, monkeypatch, self_lines, files):
    import bohnarena.external.sandbox.cgroups as cgroups

    tmp_path.mkdir()
    (tmp_path / "self").write_text("\n".join(self_lines) + "\n")
    for name, text in files.items():
        (tmp_path / "fs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fs" / name).write_text(text)
    monkeypatch.setattr(cgroups, "ROOT", tmp_path / "fs")
    monkeypatch.setattr(cgroups, "SELF", tmp_path / "self")
    return cgroups


def test_the_cpu_group_goes_where_the_host_offers_cpu_weights(tmp_path, monkeypatch):
    v1 = fake_host(tmp_path / "a", monkeypatch, ["2:cpu,cpuacct:/", "0::/"], {"cpu/cpu.shares": ""})
    assert v1._cpu_parent() == (tmp_path / "a/fs/cpu", v1.V1_CPU)
    # v2 alone: beside this process's group, where the cpu controller is handed down
    v2 = fake_host(
        tmp_path / "b",
        monkeypatch,
        ["0::/work.slice/run.scope"],
        {"cgroup.controllers": "cpu pids", "work.slice/cgroup.subtree_control": "pids cpu"},
    )
    assert v2._cpu_parent() == (tmp_path / "b/fs/work.slice", v2.V2_CPU)
    root = fake_host(
        tmp_path / "r",
        monkeypatch,
        ["0::/"],
        {"cgroup.controllers": "cpu", "cgroup.subtree_control": "cpu"},
    )
    assert root._cpu_parent() == (tmp_path / "r/fs", root.V2_CPU)
    # not handed down (enabling it is the host's choice), or no cgroup fs: none
    none = fake_host(
        tmp_path / "c",
        monkeypatch,
        ["0::/work.slice/run.scope"],
        {"cgroup.controllers": "cpu pids", "work.slice/cgroup.subtree_control": "pids"},
    )
    assert none._cpu_parent() is None
    assert fake_host(tmp_path / "d", monkeypatch, ["0::/"], {})._cpu_parent() is None


@needs_cpu_group
def test_a_sandboxs_cpu_weight_is_the_least_but_on_its_turn():
    from bohnarena.external.sandbox.cgroups import Groups

    groups = Groups(8, 1 << 30)
    try:
        assert groups.weighs_cpu
        shares = next(p for p in groups.paths if p.parent == CPU) / "cpu.shares"
        assert shares.read_text().strip() == "2"
        with groups.turn():
            assert shares.read_text().strip() == "1024"
        assert shares.read_text().strip() == "2"
    finally:
        groups.remove()
    assert not shares.parent.exists()
    with groups.turn():  # removed: nothing to weigh, and no error
        pass


def league(tmp_path, hog=True):
    """An honest in-process bot that thinks 0.1 s of CPU in each of its first
    ten plantings (2 s limit: wide margins), a random bot, and a sandboxed
    hog whose 30 busy processes each have a session of their own."""
    command = ["python3", str(HERE / "hog.py"), "30", "117"]
    path = tmp_path / "league.toml"
    path.write_text(
        'name = "starve"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
        "[limits]\ndecision_seconds = 2\n[bots]\n"
        + (
            f'hog = {{ command = {command!r}, isolation = "sandbox" }}\n'.replace("'", '"')
            if hog
            else 'hog = { spec = "random", isolation = "sandbox" }\n'
        )
        + f'honest = "{HERE / "thinker.py"}:ThinksTenTimes"\nrandom = "random"\n'
    )
    return path


def _hogs():
    found = subprocess.run(["pgrep", "-f", "hog.py 30 117"], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


@needs_cpu_group
@sandboxed
def test_busy_processes_in_sessions_of_their_own_take_no_honest_seats_time(tmp_path):
    from bohnarena.run.dispatch import run_league

    try:
        summary = run_league(league(tmp_path), tmp_path / "out", workers=1, progress=False)
        assert summary.complete and summary.played == 3
        rows = pq.read_table(tmp_path / "out" / "matches").to_pylist()
        assert all(r["seats"].index("honest") >= 0 for r in rows)
        # (before issue 43 the honest bot timed out in nearly every thought: 29 of 30)
        assert faults_by_bot(tmp_path / "out")["honest"] == 0
        assert not _hogs()  # every process of the hog ended with its match
    finally:
        for pid in _hogs():  # a failure leaves nothing busy behind
            os.kill(pid, signal.SIGKILL)


@sandboxed
def test_a_run_warns_where_the_sandboxs_cpu_is_not_contained(tmp_path, monkeypatch):
    import bohnarena.external.sandbox.cgroups as cgroups
    from bohnarena.cli import cli

    monkeypatch.setattr(cgroups, "cpu_contained", lambda: False)
    r = CliRunner().invoke(
        cli, ["run", str(league(tmp_path, hog=False)), "-o", str(tmp_path / "o")]
    )
    assert r.exit_code == 0, r.output
    assert "Warning: this machine gives the sandbox no CPU group" in r.output


@needs_cpu_group
@sandboxed
def test_a_sandbox_killed_beside_a_busy_core_dies_at_once(tmp_path):
    """Its processes die at a session's weight: at the least, beside anything
    busy on their core, their death signals waited for seconds."""
    import bohnarena.external.endpoint as endpoint
    from bohnarena.bohnanza import ruleset
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.remote import remote_seat

    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})  # the sandbox and the busy process share this core
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    command = ("python3", str(HERE / "hog.py"), "30", "117")
    seat = remote_seat("bohnanza", BotEntry("hog", command=command, isolation="sandbox"))
    groups = []
    try:
        assert seat.start(0, ruleset("classic", 3), 1) is None
        zygote = endpoint._ZYGOTES[seat.endpoint.key]
        groups = list(zygote.groups.paths)
        assert len(_hogs()) > 30  # its 31, and the sandbox that shows their command line
        start = time.monotonic()
        zygote.kill()
        assert time.monotonic() - start < 2.0
        assert not _hogs() and not any(g.exists() for g in groups)
    finally:
        busy.kill()
        busy.wait()
        os.sched_setaffinity(0, cpus)
        for group in groups:  # (failing, they would starve for minutes)
            if (group / "cpu.shares").exists():
                (group / "cpu.shares").write_text("1024")
        seat.close()
        endpoint.close_sandboxes()
        for pid in _hogs():
            os.kill(pid, signal.SIGKILL)


@needs_cpu_group
def test_a_killed_workers_sandbox_gets_the_cpu_to_die():
    """A worker killed outright leaves its sandbox's group at the least
    weight, its processes dying of their death signal: the next sandbox
    raises that weight (then removes the group once they are gone)."""
    from bohnarena.external.sandbox.cgroups import PREFIX, Groups

    gone = subprocess.Popen(["true"])
    gone.wait()
    left = CPU / f"{PREFIX}{gone.pid}-0"  # a group whose worker is gone
    left.mkdir()
    (left / "cpu.shares").write_text("2")
    held = subprocess.Popen(["sleep", "4247"])  # a process of it not dead yet
    groups = None
    try:
        (left / "cgroup.procs").write_text(str(held.pid))
        groups = Groups(8, 1 << 30)
        assert (left / "cpu.shares").read_text().strip() == "1024"
    finally:
        (left / "cpu.shares").write_text("1024")
        held.kill()
        held.wait()
        if groups is not None:
            groups.remove()
        time.sleep(0.1)
        left.rmdir()


WIDENS = """import json, os, sys
sys.stdin.readline()
try:
    os.sched_setaffinity(0, range(os.cpu_count()))
except OSError:
    pass
print(json.dumps({"decisions": []}), flush=True)
for _ in sys.stdin:
    pass
"""


@needs_cpu_group
@sandboxed
@pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2 or not Path("/sys/fs/cgroup/cpuset/cpuset.cpus").exists(),
    reason="needs two cores and cgroup v1's cpuset hierarchy",
)
def test_a_command_bot_cannot_leave_its_workers_core(tmp_path):
    """A command bot has no seccomp filter: sched_setaffinity is open to it,
    but its sandbox's cpuset holds it on the worker's core."""
    import bohnarena.external.endpoint as endpoint
    from bohnarena.bohnanza import ruleset
    from bohnarena.core.entry import BotEntry
    from bohnarena.external.remote import remote_seat

    script = tmp_path / "widens.py"
    script.write_text(WIDENS)
    cpus = os.sched_getaffinity(0)
    core = max(cpus)
    os.sched_setaffinity(0, {core})  # as a worker is
    command = ("python3", str(script), "4248")
    seat = remote_seat("bohnanza", BotEntry("widens", command=command, isolation="sandbox"))
    try:
        assert seat.start(0, ruleset("classic", 3), 1) is None
        found = subprocess.run(["pgrep", "-f", "widens.py 4248"], capture_output=True, text=True)
        bots = [
            pid
            for pid in found.stdout.split()
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"python3\0")
        ]
        assert len(bots) == 1
        status = Path(f"/proc/{bots[0]}/status").read_text()
        assert f"Cpus_allowed_list:\t{core}\n" in status
    finally:
        os.sched_setaffinity(0, cpus)
        seat.close()
        endpoint.close_sandboxes()
