"""A bot that turns bad after its check: it passes ``ladder submit``'s
conformance check, then faults at every decision of the league. After the
run it is suspended with the reason (``ladder list``, ``ladder rank``), the
next run does not seat it, and ``ladder reinstate`` puts it back; honest
bots are never suspended."""

import pytest

from bohnarena.ladder.catalog import Catalog

from .conftest import run, run_ok

TURNCOAT = """\
from bohnarena_bots.random_bot import RandomBot


class Turncoat(RandomBot):
    # check-bot plays no league match (match_id None): it behaves there.
    def plant(self, view, card):
        if view.match_id is not None:
            raise RuntimeError("bad from now on")
        return super().plant(view, card)

    def plant_second(self, view):
        if view.match_id is not None:
            raise RuntimeError("bad from now on")
        return super().plant_second(view)
"""


def states(ladder):
    catalog = Catalog(ladder)
    try:
        return {v.name: (v.state, v.reason) for v in catalog.versions()}
    finally:
        catalog.close()


@pytest.mark.slow
def test_a_bot_that_faults_after_its_check_is_suspended_until_reinstated(processes, tmp_path):
    run_ok(processes, 8, 0)
    assert {s for s, _ in states(processes).values()} == {"active"}  # honest: never suspended
    (tmp_path / "turncoat.py").write_text(TURNCOAT)
    r = run("ladder", "submit", processes, "eve", f"{tmp_path / 'turncoat.py'}:Turncoat")
    assert r.exit_code == 0, r.output  # its check passed
    run_ok(processes, 32, 8)  # eve's 4 tables
    found = states(processes)
    assert found["eve"] == ("suspended", found["eve"][1])
    assert found["eve"][1].startswith("faulted in 32 of its 32 matches in the run of ")
    assert all(found[n] == ("active", "") for n in ("ann", "bob", "cy", "dee"))
    listed = run("ladder", "list", processes).output
    assert "suspended" in listed and "faulted in 32 of its 32 matches" in listed
    table = run("ladder", "rank", processes).output
    assert "Suspended until reinstated" in table.split("Retired")[0]
    # The next run does not seat it: its matches leave the standings.
    run_ok(processes, 0, 8)
    league = (processes / "league.toml").read_text()
    assert '"eve.' not in league and '"ann.' in league
    r = run("ladder", "reinstate", processes, "eve")
    assert r.exit_code == 0 and "is active again" in r.output
    assert states(processes)["eve"] == ("active", "")
    run_ok(processes, 0, 40)  # its matches were played: none again
    assert '"eve.' in (processes / "league.toml").read_text()
    assert states(processes)["eve"] == ("active", "")  # no new match: nothing to judge
    again = run("ladder", "reinstate", processes, "eve")
    assert again.exit_code == 2 and "no suspended version" in again.output


@pytest.mark.parametrize(
    "where",
    [{"token_env": "LADDER_TOKEN"}, {"token_file": "/home/organiser/.ssh/token"}],
)
def test_a_served_version_from_before_the_secrets_rule_is_suspended_not_played(processes, where):
    from bohnarena.ladder.season import write_league
    from bohnarena.ladder.settings import load_settings

    catalog = Catalog(processes)
    try:
        old = catalog.add("old", "f" * 32, "url", {"url": "http://127.0.0.1:1/", **where}, "u", "")
        catalog.activate(old)
        write_league(processes, load_settings(processes), catalog)
        version = catalog.get(old)
    finally:
        catalog.close()
    assert version.state == "suspended"
    assert (
        "is refused" in version.reason and "resubmit it with its token by a key" in version.reason
    )
    league = (processes / "league.toml").read_text()
    assert '"old.' not in league and '"ann.' in league  # the others play on


def test_a_suspended_versions_files_stay_when_the_same_files_are_rejected(processes, tmp_path):
    from bohnarena.ladder.check import Verdict
    from bohnarena.ladder.settings import load_settings
    from bohnarena.ladder.submission import Rejected, bot_dir, submit

    from .builders import file_bot

    catalog = Catalog(processes)
    try:
        (ann,) = catalog.versions("ann")
        catalog.suspend(ann.id, "faulted")
        with pytest.raises(Rejected):  # the same file, another entry, its check failed
            submit(
                processes,
                load_settings(processes),
                catalog,
                "zed",
                file_bot(tmp_path, "Bot0"),
                None,
                None,
                lambda *_: Verdict("it fails"),
            )
        assert catalog.versions("zed")[0].hash == ann.hash
    finally:
        catalog.close()
    assert bot_dir(processes, ann.hash).is_dir()  # kept for its reinstatement


def test_the_share_is_of_this_runs_matches_and_unreadable_results_judge_no_one(tmp_path):
    from bohnarena.ladder.season import Conduct, _played

    conduct = Conduct({0, 1})
    rows = [(0, [9, 9]), (1, [9, 0]), (2, [1, 0]), (3, [0, 0]), (4, [0, 0]), (5, [0, 2])]
    for match_id, faults in rows:  # matches 0 and 1 were played by an earlier run
        conduct.follow({"match_id": match_id, "seats": ["bad", "fair"], "faults": faults})
    assert conduct.matches == {"bad": 4, "fair": 4}
    assert conduct.faulted == {"bad": 1, "fair": 1}
    assert conduct.suspended(0.25) == {}  # 1 of 4 is not over a quarter
    assert set(conduct.suspended(0.2)) == {"bad", "fair"}
    assert "faulted in 1 of its 4 matches" in conduct.suspended(0.2)["bad"]
    results = tmp_path / "results"
    assert _played(results) == set()  # no run yet
    results.mkdir()
    (results / "run.json").write_text("{}")
    (results / "manifest.jsonl").write_text("garbage\n")
    assert _played(results) is None
    blind = Conduct(None)
    blind.follow({"match_id": 7, "seats": ["bad"], "faults": [5]})
    assert blind.suspended(0.0) == {}
