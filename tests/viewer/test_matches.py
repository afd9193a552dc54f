"""`bohnarena matches` on a league run for it (issue 27, part 3): each filter
and each sort lists exactly the matches the rows say, in order, with
commands that work when pasted into a shell; the report links the notable
matches to their viewer pages, written beside it.

The selection itself is tested on matches made by hand in
tests/analysis/test_notable.py; here the expectations are worked out from the
league's rows in plain Python."""

import json
import re
import shlex

import pytest
from click.testing import CliRunner

from bohnarena.analysis.notable import MOST_WATCHED
from bohnarena.analysis.results import read_results
from bohnarena.cli import cli
from bohnarena.store.audited import open_run

COLUMNS = ["deal", "seats", "coins", "ranks", "faults", "turns"]


@pytest.fixture(scope="module")
def rows(league_dir):
    return list(open_run(league_dir).matches(COLUMNS))


@pytest.fixture(scope="module")
def score(league_dir):
    return {s.bot: s.score for s in read_results(league_dir).ranking.standings}


def listed(out, *args):
    r = CliRunner().invoke(cli, ["matches", str(out), "--json", "-n", "0", *args])
    assert r.exit_code == 0, r.output
    return [m["match_id"] for m in json.loads(r.output)["matches"]]


def gap(row, score, one=None, other=None):
    """The row's largest upset among the pairs with ``one`` (and ``other``) in them."""
    best = 0.0
    for a, x in enumerate(row["seats"]):
        for b, y in enumerate(row["seats"]):
            pair = {x, y}
            wanted = (one is None or one in pair) and (other is None or pair == {one, other})
            if wanted and row["ranks"][a] < row["ranks"][b]:
                best = max(best, score[y] - score[x])
    return best


def margin(row):
    top = sorted(row["coins"], reverse=True)
    return top[0] - top[1]


@pytest.mark.slow
def test_the_faulter_faults_in_seat_one_only(rows):
    """What the faults tests below rely on."""
    faulted = [r["match_id"] for r in rows if sum(r["faults"])]
    assert faulted == [r["match_id"] for r in rows if r["seats"][1] == "faulter"]
    assert all(r["faults"][1] for r in rows if r["seats"][1] == "faulter")


@pytest.mark.parametrize(
    "args, keep",
    [
        ([], lambda r: True),
        (["--bot", "trader"], lambda r: "trader" in r["seats"]),
        (["--bot", "trader", "--seat", "2"], lambda r: r["seats"][2] == "trader"),
        (
            ["--bot", "planner", "--against", "random"],
            lambda r: {"planner", "random"} <= set(r["seats"]),
        ),
        (["--deal", "1"], lambda r: r["deal"] == 1),
        (["--faults"], lambda r: r["seats"][1] == "faulter"),
        (["--bot", "faulter", "--faults"], lambda r: r["seats"][1] == "faulter"),
        (["--bot", "planner", "--faults"], lambda r: False),
        (
            ["--bot", "random", "--seat", "0", "--deal", "0"],
            lambda r: r["seats"][0] == "random" and r["deal"] == 0,
        ),
    ],
)
def test_each_filter_lists_exactly_its_matches_by_id(league_dir, rows, args, keep):
    expected = [r["match_id"] for r in rows if keep(r)]
    assert listed(league_dir, *args) == expected
    assert 0 < len(expected) < len(rows) or args in ([], ["--bot", "planner", "--faults"])


@pytest.mark.parametrize(
    "args, key",
    [
        (["--sort", "upset"], lambda r, s: gap(r, s)),
        (["--sort", "upset", "--bot", "planner"], lambda r, s: gap(r, s, "planner")),
        (
            ["--sort", "upset", "--bot", "faulter", "--against", "planner"],
            lambda r, s: gap(r, s, "faulter", "planner") if "planner" in r["seats"] else 0,
        ),
        (["--sort", "longest"], lambda r, s: r["turns"]),
        (["--sort", "faults"], lambda r, s: sum(r["faults"])),
        (["--sort", "margin"], lambda r, s: margin(r)),
        (["--sort", "margin", "--bot", "faulter", "--seat", "1"], lambda r, s: margin(r)),
    ],
)
def test_each_sort_lists_the_largest_first_then_by_id(league_dir, rows, score, args, key):
    wanted = [r for r in rows if "--bot" not in args or args[args.index("--bot") + 1] in r["seats"]]
    if "--seat" in args:
        wanted = [r for r in wanted if r["seats"][1] == "faulter"]
    if "upset" in args:
        wanted = [r for r in wanted if key(r, score) > 0]
    expected = [
        r["match_id"] for r in sorted(wanted, key=lambda r: (-key(r, score), r["match_id"]))
    ]
    got = listed(league_dir, *args)
    assert got == expected and len(got) > 1
    if "--against" not in args:  # (one pair's upsets are all of one size)
        assert len({key(r, score) for r in wanted}) > 1  # the order is the sort's, not the ids'


def test_each_match_is_shown_with_its_result_and_commands_that_work_in_a_shell(
    league_dir, tmp_path
):
    r = CliRunner().invoke(cli, ["matches", str(league_dir), "--sort", "upset", "-n", "2"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert re.fullmatch(
        r"\d+ of 24 matches, by upset, largest first \(only matches with one\); the first 2:",
        lines[0],
    )
    assert len(lines) == 1 + 2 * 4
    first = lines[1:5]
    mid = int(
        re.match(
            r"match (\d+), deal \d: upset \d+\.\d\d: \w+ \(seat \d\) ahead of \w+ \(seat \d\)$",
            first[0],
        ).group(1)
    )
    assert re.fullmatch(r"  1\. \w+ \(seat \d\) \d+ coins.*; \d+ turns", first[1])
    quoted = shlex.quote(str(league_dir))
    assert "'" in quoted  # the path has a space
    assert first[2:] == [
        f"  bohnarena view {quoted} --match {mid}",
        f"  bohnarena replay {quoted} --match {mid}",
    ]
    view = shlex.split(first[2])
    assert view[2] == str(league_dir)
    out = tmp_path / "v.html"
    r = CliRunner().invoke(cli, [*view[1:], "-o", str(out)])
    assert r.exit_code == 0 and out.exists(), r.output
    r = CliRunner().invoke(cli, shlex.split(first[3])[1:])
    assert r.exit_code == 0 and r.output.startswith(f"Match {mid}: "), r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--bot", "nobody"],
            "Error: --bot: no bot 'nobody' in this league (it has planner, trader, random, "
            "faulter)",
        ),
        (["--bot", "planner", "--against", "x"], "Error: --against: no bot 'x' in this league"),
        (["--seat", "1"], "Error: --against and --seat go with --bot"),
        (["--bot", "planner", "--seat", "3"], "Error: --seat: the league has seats 0-2"),
        (["--sort", "best"], "Invalid value for '--sort'"),
    ],
)
def test_bad_requests_are_one_line_and_exit_2(league_dir, args, message):
    r = CliRunner().invoke(cli, ["matches", str(league_dir), *args])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def links(page):
    return re.findall(r'<a href="([^"]+)">match (\d+)</a>', page)


@pytest.mark.slow
def test_the_report_links_notable_matches_to_their_viewer_pages_beside_it(
    league_dir, rows, tmp_path
):
    report = tmp_path / "rep" / "league.html"
    r = CliRunner().invoke(cli, ["report", str(league_dir), "-o", str(report), "--resamples", "0"])
    assert r.exit_code == 0, r.output
    page = report.read_text()
    assert "<h2>Matches to watch</h2>" in page
    found = links(page)
    assert 1 < len(found) <= MOST_WATCHED
    assert len({mid for _, mid in found}) == len(found)
    for href, mid in found:
        assert href == f"watch/match-{mid}.html"
        again = tmp_path / f"view-{mid}.html"
        r = CliRunner().invoke(cli, ["view", str(league_dir), "-m", mid, "-o", str(again)])
        assert r.exit_code == 0, r.output
        assert (report.parent / href).read_text() == again.read_text()
    assert sorted(p.name for p in (report.parent / "watch").iterdir()) == sorted(
        f"match-{mid}.html" for _, mid in found
    )
    # the faulter's worst match is there, said so
    most = max(rows, key=lambda r: (r["faults"][1], -r["match_id"]))
    why = re.search(rf">match {most['match_id']}</a></td><td>\d</td><td>(.*?)</td>", page).group(1)
    assert f"faulter faulted most ({most['faults'][1]} faults)" in why
    # the run wrote its own beside its report
    assert links((league_dir / "report.html").read_text()) == found
    assert (league_dir / "watch" / f"match-{found[0][1]}.html").exists()


def test_the_report_without_matches_writes_no_pages(league_dir, tmp_path):
    report = tmp_path / "report.html"
    r = CliRunner().invoke(
        cli, ["report", str(league_dir), "-o", str(report), "--resamples", "0", "--no-matches"]
    )
    assert r.exit_code == 0, r.output
    assert "Matches to watch" not in report.read_text() and not (tmp_path / "watch").exists()


@pytest.mark.slow
def test_a_league_without_moves_lists_its_matches_and_says_why_no_pages(tmp_path):
    league = tmp_path / "n.toml"
    league.write_text(
        'name = "n"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 2\n'
        '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\n'
    )
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(league), "--out", str(out), "-j", "1", "--no-moves"])
    assert r.exit_code == 0, r.output
    page = (out / "report.html").read_text()
    assert "<h2>Matches to watch</h2>" in page and not links(page)
    assert "No viewer pages: the league logs no moves" in page
    assert not (out / "watch").exists()
    assert listed(out, "--sort", "longest")[:1]


def test_json_says_each_match_with_what_it_was_sorted_by(league_dir, rows, score):
    r = CliRunner().invoke(
        cli, ["matches", str(league_dir), "--sort", "upset", "-n", "1", "--json"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    (m,) = doc["matches"]
    row = next(x for x in rows if x["match_id"] == m["match_id"])
    assert doc["sort"] == "upset" and doc["total"] == sum(gap(x, score) > 0 for x in rows)
    assert m["seats"] == row["seats"] and m["coins"] == row["coins"]
    assert m["places"] == row["ranks"] and m["faults"] == row["faults"]
    assert m["upset"] == pytest.approx(gap(row, score))
    ahead, behind = row["seats"][m["ahead_seat"]], row["seats"][m["behind_seat"]]
    assert m["upset"] == pytest.approx(score[behind] - score[ahead])
    quoted = shlex.quote(str(league_dir))
    assert m["view"] == f"bohnarena view {quoted} --match {m['match_id']}"
    assert m["replay"] == f"bohnarena replay {quoted} --match {m['match_id']}"


@pytest.mark.slow
def test_a_match_the_rules_do_not_replay_gets_no_page_and_says_why(run_dir, tmp_path):
    from bohnarena.run.replay import write_pages_all
    from tests.run.test_replay import edit, tamper

    out = tamper(run_dir, tmp_path, lambda t: edit(t, 1, "harvested", 0, "coins", lambda c: c + 1))
    pages = [(mid, str(tmp_path / f"{mid}.html")) for mid in (0, 1, 2)]
    written = write_pages_all(out, pages, workers=2)
    assert written[0] is None and written[2] is None
    assert written[1].startswith("match 1 does not replay: move ")
    assert sorted(p.name for p in tmp_path.glob("*.html")) == ["0.html", "2.html"]


@pytest.mark.slow
def test_a_reports_few_pages_are_written_in_its_own_process(run_dir, tmp_path, monkeypatch):
    """No pool for a report's pages (issue 23, part 2): its processes cost
    more to start and to read the directory than a few pages cost to write;
    the rows are read from the matches without the datasets library."""
    import sys

    from bohnarena.run import replay

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(replay, "LocalPool", no_pool)
    monkeypatch.delitem(sys.modules, "pyarrow.dataset", raising=False)
    pages = [(mid, str(tmp_path / f"{mid}.html")) for mid in (2, 0)]
    written = replay.write_pages_all(run_dir, pages)
    assert written == {2: None, 0: None}
    assert sorted(p.name for p in tmp_path.glob("*.html")) == ["0.html", "2.html"]
    assert "pyarrow.dataset" not in sys.modules
