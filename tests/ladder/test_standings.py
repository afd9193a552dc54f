"""The standing table (active versions by score, unplayed ones last,
retired apart), the history table and its plot."""

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.standings import history_page, history_table, standing_table
from bohnarena.rating.skill import BotStanding


def test_the_standings_and_the_history(tmp_path):
    c = Catalog(tmp_path, create=True)
    ids = {}
    for name, digest in [("ann", "a"), ("bob", "b"), ("ann", "c"), ("cy", "d")]:
        ids[digest] = c.add(name, digest * 32, "file", {}, f"{name}.py", digest)
        if digest != "c":
            c.activate(ids[digest])
    c.record_run(
        0.0, 8, 8, [(ids["a"], BotStanding("", 20, 1)), (ids["b"], BotStanding("", 30, 1))]
    )
    c.activate(ids["c"])  # ann's second version: no run has played it yet
    c.record_run(
        0.0, 8, 8, [(ids["b"], BotStanding("", 31, 1)), (ids["d"], BotStanding("", 25, 2))]
    )
    table = standing_table(c).splitlines()
    assert [line.split()[1] for line in table[1:4]] == [
        "bob.bbbbbbbb",
        "cy.dddddddd",
        "ann.cccccccc",
    ]
    assert "not played yet" in table[3]
    assert (
        "Retired" in table[5] and "ann.aaaaaaaa" in table[6] and "replaced by cccccccc" in table[6]
    )
    assert len(history_table(c.history()).splitlines()) == 1 + 4
    page = history_page(c.history(), "<spring>")
    assert page.count('class="mark"') == 3  # a line for each version a run rated...
    assert page.count("<circle") == 4  # ...and a dot for each rating: one alone shows too
    assert "&lt;spring&gt;" in page and "<spring>" not in page
    assert "Suspended" not in page
    c.suspend(ids["b"], "faulted in 8 of its 8 matches <b>")
    table = standing_table(c).splitlines()
    assert table[3:5] == [
        "",
        "Suspended until reinstated (ladder reinstate NAME) (their last rating; "
        "their matches stay in the results):",
    ]
    assert "bob.bbbbbbbb" in table[5] and "faulted in 8 of its 8 matches" in table[5]
    assert "bob.bbbbbbbb" not in "".join(table[:3])
    page = history_page(c.history(), "spring", c.versions(states=("suspended",)))
    assert "<li>bob.bbbbbbbb: faulted in 8 of its 8 matches &lt;b&gt;</li>" in page


def test_a_run_prints_the_figures_its_ladder_keeps(tmp_path):
    """``ladder run`` prints the run's ranking; ``ladder rank`` the ratings
    kept from it: the same figures (a figure rounded to 3 places and then
    to 2 once read 35.52 in one and 35.51 in the other)."""
    from bohnarena.rating.skill import Ranking

    c = Catalog(tmp_path, create=True)
    vid = c.add("fay", "f" * 32, "file", {}, "fay.py", "f")
    c.activate(vid)
    fay = BotStanding("fay.ffffffff", mu=35.514987, sigma=2.116666, matches=12, wins=8)
    c.record_run(0.0, 12, 12, [(vid, fay)])
    printed = Ranking([fay], [0, 0, 0, 0], 0).to_text().splitlines()[1].split()
    kept = standing_table(c).splitlines()[1].split()
    assert printed[2:5] == kept[2:5] == ["29.16", "35.51", "2.12"]
