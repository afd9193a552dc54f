"""A ladder's ratings keep the season's history (issue 45, item 3): every
match it played counts, retired versions' included, so retiring an entry
moves no other version's rating; only new matches do."""

from __future__ import annotations

import pytest

from bohnarena.ladder.catalog import Catalog

from .builders import file_bot
from .conftest import join, run, run_ok

pytestmark = pytest.mark.slow  # leagues of bots in processes of their own


def _ratings(ladder):
    c = Catalog(ladder)
    try:
        return {v.bot: c.last_ratings()[v.id] for v in c.versions() if v.id in c.last_ratings()}
    finally:
        c.close()


def test_retiring_an_entry_moves_no_other_rating(processes, tmp_path):
    ladder = processes
    join(ladder, "eve", file_bot(tmp_path, "Bot4"))
    run_ok(ladder, 40, 0)  # five entries, four seats: 5 tables x 2 deals x 4 rotations
    before = _ratings(ladder)
    assert len(before) == 5 and all(m == 32 for _, _, _, m, _ in before.values())
    out = run("ladder", "retire", ladder, "eve")
    assert out.exit_code == 0, out.output
    after = run_ok(ladder, 0, 8)  # (its league: the 8 matches among the four)
    assert _ratings(ladder) == before  # the same floats: the same 40 matches, rated alike
    standings = run("ladder", "rank", ladder).output
    active, _, retired = standings.partition("Retired")
    assert "eve." in retired and "eve." not in active
    assert all(f"{n}." in active for n in ("ann", "bob", "cy", "dee"))
    # the run's own table lists who plays on, rated on the whole season
    assert "eve." not in after.output and " 32 " in after.output


def test_a_new_match_moves_the_ratings_on_from_the_season(processes, tmp_path):
    ladder = processes
    run_ok(ladder, 8, 0)
    first = _ratings(ladder)
    join(ladder, "ann", file_bot(tmp_path, "Ann2"))  # ann's second version
    run_ok(ladder, 8, 0)  # its 2 deals, 4 rotations (the old version's 8 are not its league's)
    second = _ratings(ladder)
    old_ann = next(b for b in first if b.startswith("ann."))
    assert second[old_ann] == first[old_ann]  # retired: its matches are all in already
    assert all(second[b][3] == 16 for b in second if b[:3] in ("bob", "dee") or b[:2] == "cy")
