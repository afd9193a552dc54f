"""CPU starvation from the sandbox (issue 43, hole 6): a sandbox's CPU
weight is the least there is but while the engine waits on it, so no number
of its processes or sessions takes another seat's time
(benchmarks/starve_bench.py measures the attack before and after)."""

import os
import signal
import subprocess
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
    import bohnarena.sandbox.cgroups as cgroups

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
    # v2 alone: this process's group, if it hands the cpu controller down
    v2 = fake_host(
        tmp_path / "b",
        monkeypatch,
        ["0::/work.slice"],
        {"cgroup.controllers": "cpu pids", "work.slice/cgroup.subtree_control": "pids cpu"},
    )
    assert v2._cpu_parent() == (tmp_path / "b/fs/work.slice", v2.V2_CPU)
    # not delegated (enabling it is the host's choice), or no cgroup fs: none
    none = fake_host(
        tmp_path / "c",
        monkeypatch,
        ["0::/work.slice"],
        {"cgroup.controllers": "cpu pids", "work.slice/cgroup.subtree_control": "pids"},
    )
    assert none._cpu_parent() is None
    assert fake_host(tmp_path / "d", monkeypatch, ["0::/"], {})._cpu_parent() is None


@needs_cpu_group
def test_a_sandboxs_cpu_weight_is_the_least_but_on_its_turn():
    from bohnarena.sandbox.cgroups import Groups

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
    import bohnarena.sandbox.cgroups as cgroups
    from bohnarena.cli import cli

    monkeypatch.setattr(cgroups, "cpu_contained", lambda: False)
    r = CliRunner().invoke(
        cli, ["run", str(league(tmp_path, hog=False)), "-o", str(tmp_path / "o")]
    )
    assert r.exit_code == 0, r.output
    assert "Warning: this machine gives the sandbox no CPU group" in r.output
