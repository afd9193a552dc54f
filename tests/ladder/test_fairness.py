"""A ladder season anyone can verify (docs/fairness.md): its secret seed
committed before its first match, played with a version added and one
retired mid-season, revealed by ``season end``, verified from a copy of
the published files alone; ``season new`` closes it and commits to the
next one's seed."""

import json
import shutil

import pytest

from .builders import file_bot
from .conftest import join, run, run_ok

#: What an organiser publishes of a season: the results without their private file.
PRIVATE = shutil.ignore_patterns("secret.json")


def commitment_of(output):
    (line,) = [x for x in output.splitlines() if x.startswith("seed commitment: ")]
    return line.removeprefix("seed commitment: ").split()[0]


@pytest.mark.slow
def test_a_season_committed_played_revealed_and_verified(processes, tmp_path):
    ladder = processes
    first = run_ok(ladder, 8, 0)
    committed = commitment_of(first.output)
    noted = first.output.split("chain head: ")[1].split()[0]  # a participant notes it
    public = json.loads((ladder / "results" / "run.json").read_text())
    assert public["seed_commitment"] == committed and "seed" not in public
    join(ladder, "eve", file_bot(tmp_path, "Eve"))  # a version added mid-season
    assert run("ladder", "retire", ladder, "ann").exit_code == 0  # and one retired
    second = run("ladder", "run", ladder)  # eve's table with the three left
    assert second.exit_code == 0 and "8 matches played now" in second.output, second.output
    assert commitment_of(second.output) == committed
    ranked = run("ladder", "rank", ladder)
    assert f"seed commitment: {committed}" in ranked.output
    head = json.loads((ladder / "results" / "run.json").read_text())["chain_head"]
    assert f"chain head: {head}" in ranked.output

    ended = run("ladder", "season", "end", ladder)
    assert ended.exit_code == 0, ended.output
    assert f"commitment: {committed}" in ended.output
    copy = tmp_path / "published"
    shutil.copytree(ladder / "results", copy, ignore=PRIVATE)
    r = run("verify", copy, "-j", "1", "--head", noted)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1].startswith("verified: the seed is the one committed to")
    assert "16 matches replayed" in r.output
    again = run("ladder", "run", ladder)
    assert again.exit_code == 2 and "the season has ended" in again.output

    new = run("ladder", "season", "new", ladder)
    assert new.exit_code == 0, new.output
    assert (ladder / "seasons" / "1" / "reveal.json").is_file()
    fresh = commitment_of(new.output)
    assert fresh != committed
    assert f"seed commitment: {fresh}" in run("ladder", "rank", ladder).output
    third = run_ok(ladder, 8, 0)  # the active four afresh, under the new seed
    assert commitment_of(third.output) == fresh
    assert not (ladder / "next-season.json").exists()
    kept = json.loads((ladder / "results" / "secret.json").read_text())
    assert (
        kept["seed"] != json.loads((ladder / "seasons" / "1" / "reveal.json").read_text())["seed"]
    )


@pytest.mark.slow
def test_matches_play_again_from_the_bots_files_and_a_changed_file_is_caught(processes, tmp_path):
    ladder = processes
    run_ok(ladder, 8, 0)
    assert run("ladder", "season", "end", ladder).exit_code == 0
    copy = tmp_path / "published"
    shutil.copytree(ladder / "results", copy, ignore=PRIVATE)
    r = run("verify", copy, "-j", "1", "--bots", ladder, "--replay", "all")
    assert r.exit_code == 0, r.output
    assert "; 8 played again from the bots' files" in r.output.splitlines()[-1]
    (bot,) = [p for p in ladder.rglob("bot1.py") if "results" not in p.parts]
    bot.write_text(bot.read_text() + "\n# changed after its matches\n")
    r = run("verify", copy, "-j", "1", "--bots", ladder, "--replay", "3")
    assert r.exit_code == 1
    (line,) = [x for x in r.output.splitlines() if x.startswith("bot bob.")]
    assert "run.json published" in line and "its matches are not played again" in line
    r = run("verify", copy, "--bots", ladder, "--replay", "none")
    assert r.exit_code == 2 and "--replay" in r.output
