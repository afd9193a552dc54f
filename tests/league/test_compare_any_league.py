"""`compare X Y --results DIR` on any league (issue 25, part 2): every pair
of bots of a rotations round-robin and of a permutations league is paired
where the design allows (same deal and seats, X and Y swapped, with the
other away or at the same table), the count equal to a brute-force search
of the recorded matches; where the design allows none, the refusal says
why and names the setting that gives pairs, and that setting does."""

import itertools
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli

BOTS = ["r0", "r1", "r2", "r3"]


@pytest.fixture(scope="module")
def leagues(tmp_path_factory):
    """(bots, seatings) -> results directory: 3 seats, 2 deals, random bots."""
    d = tmp_path_factory.mktemp("any")
    made = {}
    for n, seatings in itertools.product((3, 4), ("rotations", "permutations")):
        path = d / f"l{n}{seatings}.toml"
        bots = "\n".join(f'{b} = "random"' for b in BOTS[:n])
        path.write_text(
            f'name = "l"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = 3\n'
            f'seatings = "{seatings}"\n[run]\nmoves = false\n[bots]\n{bots}\n'
        )
        out = d / f"o{n}{seatings}"
        r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "-j", "1"])
        assert r.exit_code == 0, r.output
        made[n, seatings] = str(out)
    return made


def brute_force_pairs(out, x, y):
    """Pairs in the recorded matches, searched the slow way: two matches of a
    deal whose seats are equal with x and y exchanged."""
    rows = []
    for part in sorted((Path(out) / "matches").glob("part-*.parquet")):
        rows += pq.read_table(part, columns=["deal", "seats"]).to_pylist()
    swap = {x: y, y: x}
    count = 0
    for m1, m2 in itertools.combinations(rows, 2):
        if m1["deal"] == m2["deal"] and [swap.get(s, s) for s in m1["seats"]] == m2["seats"]:
            count += x in m1["seats"] or x in m2["seats"]
    return count


def compare(out, x, y):
    return CliRunner().invoke(cli, ["compare", x, y, "--results", out])


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.slow
def test_every_pair_of_a_permutations_league_is_paired(leagues, n):
    out = leagues[n, "permutations"]
    for x, y in itertools.permutations(BOTS[:n], 2):
        r = compare(out, x, y)
        assert r.exit_code == 0, r.output
        pairs = int(re.search(r"(\d+) pairs of matches \(0 unpaired", r.output)[1])
        assert pairs == brute_force_pairs(out, x, y) > 0


@pytest.mark.slow
def test_every_pair_of_a_rotations_round_robin_is_paired_or_told_why(leagues):
    # four bots, three seats: a table of one without the other keeps its order
    # under a swap when no opponent stands between them in the league file
    out = leagues[4, "rotations"]
    refused = set()
    for x, y in itertools.permutations(BOTS, 2):
        r = compare(out, x, y)
        found = brute_force_pairs(out, x, y)
        if r.exit_code == 0:
            assert f"{found} pairs of matches" in r.output and found > 0
            continue
        assert r.exit_code == 2 and found == 0, r.output
        assert "stand apart in the league file's order" in r.output
        assert 'seatings = "permutations" gives 12 pairs of matches a deal' in r.output
        assert len(r.output.strip().splitlines()) == 1
        refused.add(frozenset((x, y)))
    assert refused == {frozenset(("r0", "r2")), frozenset(("r1", "r3"))}


@pytest.mark.slow
def test_as_many_bots_as_seats_with_rotations_says_so_and_permutations_pair(leagues):
    out = leagues[3, "rotations"]
    for x, y in itertools.permutations(BOTS[:3], 2):
        r = compare(out, x, y)
        assert r.exit_code == 2 and brute_force_pairs(out, x, y) == 0
        assert f"{x} and {y} sit at the same table in every match" in r.output
        assert "(round-robin, 3 bots for 3 seats)" in r.output
        assert 'seatings = "permutations" gives 3 pairs of matches a deal' in r.output
    # and the setting it names does give them: 3 swaps of the one table, 2 deals
    r = compare(leagues[3, "permutations"], "r0", "r2")
    assert r.exit_code == 0 and "2 deals, 6 pairs of matches" in r.output
