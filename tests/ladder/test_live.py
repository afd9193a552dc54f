"""The live file of a ladder's run in progress: written as the run rates
its matches (public counts and standings), gone when the run ends, and
not believed when the run that wrote it is gone."""

import json
import os
import subprocess
import sys

import pytest

from bohnarena.ladder import live
from bohnarena.ladder.season import run_ladder
from bohnarena.ladder.settings import load_settings


def test_no_run_no_live(ladder):
    assert live.read(ladder) is None
    (ladder / live.LIVE).write_text("{not json")
    assert live.read(ladder) is None


def test_a_file_left_by_a_killed_run_is_not_believed(ladder):
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = {"played": 3, "planned": 8, "started": 1.0, "standings": [["a.1", 25.0, 8.0]]}
    (ladder / live.LIVE).write_text(json.dumps({**data, "pid": int(gone.stdout)}))
    assert live.read(ladder) is None
    (ladder / live.LIVE).write_text(json.dumps({**data, "pid": os.getpid()}))
    assert live.read(ladder) == live.Live(3, 8, 1.0, [("a.1", 25.0, 8.0)])


@pytest.mark.slow
def test_a_run_shows_its_standings_while_it_plays_and_removes_them(processes, monkeypatch):
    seen = []
    update = live.Writer.update

    def watched(self, played, planned, standings):
        update(self, played, planned, standings)
        seen.append(live.read(processes))

    monkeypatch.setattr(live.Writer, "update", watched)
    summary = run_ladder(processes, load_settings(processes), workers=1, progress=False)
    assert summary.played == 8
    first = seen[0]
    assert first is not None and (first.played, first.planned) == (0, 8)
    assert [sigma for _, _, sigma in first.standings] == [25 / 3] * 4  # no match rated yet
    last = seen[-1]
    assert last is not None and (last.played, last.planned) == (8, 8)
    assert sorted(b.partition(".")[0] for b, _, _ in last.standings) == ["ann", "bob", "cy", "dee"]
    assert all(sigma < 25 / 3 for _, _, sigma in last.standings)
    text = (processes / live.LIVE).read_text() if (processes / live.LIVE).exists() else ""
    assert text == "" and live.read(processes) is None
    public = {"played", "planned", "started", "standings", "pid"}
    assert all(set(json.loads(json.dumps(s.__dict__))) <= public for s in seen if s)
