"""The site's pages against a real uvicorn: standings, an entry, settings,
downloads, the viewer (once the season's seed is revealed, never before),
the strict policy on every response, bot text escaped."""

import json

import pytest

from bohnarena.run.verify import reveal

from .conftest import SITE_MARKS

pytestmark = SITE_MARKS

PATHS = [
    "/",
    "/entries/ann",
    "/entries/ann?sort=longest&limit=3",
    "/entries/nobody",
    "/entries/ann?seat=9",
    "/settings",
    "/downloads",
    "/downloads/run.json",
    "/live",
    "/login",
    "/submit",
    "/api",
    "/api/openapi.json",
    "/api/standings",
    "/api/live",
    "/matches/0",
    "/no/such/page",
    "/static/site.css",
    "/static/icon.svg",
    "/favicon.ico",
    "/static/..%2Fapp.py",
    "/api/entries/ann/matches",
]


def header(r, name):
    return {k.decode().lower(): v.decode() for k, v in r.headers}.get(name)


def text(r):
    return r.content.decode()


def test_every_response_has_a_strict_policy(site):
    for path in PATHS:
        r = site.get(path)
        policy = header(r, "content-security-policy")
        assert policy is not None, path
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, path
        assert "script-src" not in policy, path  # the site's own pages run no script
        assert header(r, "x-content-type-options") == "nosniff", path
    reveal(site.ladder / "results")
    r = site.get("/matches/0")
    assert r.status == 200
    policy = header(r, "content-security-policy")
    assert "script-src 'sha256-" in policy and "frame-ancestors 'none'" in policy
    # the page's own meta policy is the header's (both apply: they must agree)
    assert policy.removesuffix("; frame-ancestors 'none'") in text(r)


def test_standings_and_an_entry(site):
    r = site.get("/")
    assert r.status == 200
    page = text(r)
    for name in ("ann", "bob", "cy", "dee"):
        assert f'href="/entries/{name}"' in page
    r = site.get("/entries/ann")
    page = text(r)
    assert r.status == 200
    assert "<svg" in page and "passed" in page and "active" in page
    assert page.count("<tr><td>") >= 8  # its version, and its 8 matches
    r = site.get("/entries/ann?sort=longest&limit=3")
    assert "the first 3" in text(r)
    assert site.get("/entries/ann?seat=9").status == 400
    assert site.get("/entries/nobody").status == 404
    standings = json.loads(site.get("/api/standings").content)
    assert [row["entry"] for row in standings["standings"]] != []
    assert all(row["matches"] == 8 for row in standings["standings"])


def test_retired_apart(site, ladder):
    from bohnarena.ladder.catalog import Catalog

    catalog = Catalog(ladder)
    catalog.retire("dee", "retired by the organiser")
    catalog.close()
    page = text(site.get("/"))
    retired = page.index("Retired and suspended")
    assert page.index("dee.") > retired > page.index("ann.")
    assert "retired by the organiser" in page


def test_matches_hidden_until_the_seed_is_revealed(site):
    """Every match of a deal is dealt from one deck all season: nothing of a
    finished match (moves, seed, viewer) is served before the reveal."""
    assert site.get("/matches/0").status == 403
    page = text(site.get("/downloads"))
    assert "run.json" in page and 'href="/downloads/matches/' not in page
    names = json.loads(site.get("/downloads/run.json").content)
    assert "seed" not in names and "seed_salt" not in names and "seed_commitment" in names
    assert site.get("/downloads/matches/part-000000000-000000007.parquet").status == 403
    assert 'href="/matches/' not in text(site.get("/entries/ann"))
    reveal(site.ladder / "results")
    r = site.get("/matches/0")
    assert r.status == 200 and "bohnarena viewer" in text(r)
    assert 'href="/matches/0"' in text(site.get("/entries/ann"))
    r = site.get("/downloads/matches/part-000000000-000000007.parquet")
    assert r.status == 200 and r.content[:4] == b"PAR1"
    assert site.get("/matches/999").status == 404


def test_downloads_take_no_path(site):
    reveal(site.ladder / "results")
    for path in (
        "/downloads/matches/..%2F..%2Fladder.toml",
        "/downloads/files/..%2Fsite.key",
        "/downloads/files/site.key",
        "/downloads/..%2F..%2Fcatalog.sqlite/x",
        "/downloads/matches/%2Fetc%2Fpasswd",
    ):
        r = site.get(path)
        assert r.status == 404, path
        assert b"sqlite" not in r.content.lower() or path.endswith("/x")


def test_the_settings_show_no_seed(site):
    page = text(site.get("/settings"))
    assert "deals" in page and "sha256:" in page
    assert "seed</th>" not in page


def test_the_settings_show_the_commitment_and_chain_head(site):
    """What ``ladder rank`` says of fairness: the head a participant notes
    for ``verify --head`` later, as run.json publishes it."""
    meta = json.loads((site.ladder / "results" / "run.json").read_text())
    page = text(site.get("/settings"))
    assert meta["seed_commitment"].startswith("sha256:") and len(meta["chain_head"]) == 64
    assert f"<code>{meta['seed_commitment']}</code>" in page
    assert f"<th>chain head</th><td><code>{meta['chain_head']}</code>" in page


def test_bot_text_is_escaped(site, ladder):
    """A reason quoting a bot's stderr, and a name in the path, show as text."""
    from bohnarena.ladder.catalog import Catalog

    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b[31m"
    catalog = Catalog(ladder)
    vid = catalog.add("ann", "f" * 32, "file", {"file": "x.py", "attr": "X"}, "x.py", "t")
    catalog.set_state(vid, "rejected", evil)
    catalog.close()
    page = text(site.get("/entries/ann"))
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "\\x1b[31m" in page
    r = site.get("/entries/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert r.status == 404 and b"<script>alert" not in r.content


@pytest.mark.parametrize(
    "query, options",
    [
        ("", ()),
        ("sort=longest&limit=3", ("--sort", "longest", "-n", "3")),
        ("sort=margin&deal=1", ("--sort", "margin", "--deal", "1")),
        ("sort=upset", ("--sort", "upset")),
        ("seat=2&against={bob}", ("--seat", "2", "--against", "{bob}")),
        ("faults=1", ("--faults",)),
    ],
)
def test_an_entrys_matches_are_those_matches_finds(site, query, options):
    from bohnarena.ladder.catalog import Catalog
    from tests.ladder.conftest import run

    catalog = Catalog(site.ladder)
    ann, bob = (catalog.versions(n)[0].bot for n in ("ann", "bob"))
    catalog.close()
    options = [o.format(bob=bob) for o in options]
    found = json.loads(site.get(f"/api/entries/ann/matches?{query.format(bob=bob)}").content)
    r = run("matches", site.ladder / "results", "--bot", ann, "--json", "-n", "50", *options)
    assert r.exit_code == 0, r.output
    expected = json.loads(r.output)
    assert found["version"] == ann and found["total"] == expected["total"]
    assert [m["match_id"] for m in found["matches"]] == [m["match_id"] for m in expected["matches"]]
    page = text(site.get(f"/entries/ann?{query.format(bob=bob)}"))
    assert f"<p>{expected['total']} matches" in page


def test_with_fresh_decks_a_finished_runs_matches_are_shown_and_a_playing_ones_not(tmp_path):
    """``fresh_decks`` (as ``ladder init`` writes it): each run deals its new
    matches from decks of their own, so a finished run's matches are shown
    before any reveal, and the matches of a run still to finish are not."""
    from bohnarena.ladder import player
    from bohnarena.ladder.catalog import Catalog
    from bohnarena.ladder.check import Verdict
    from bohnarena.ladder.settings import load_settings
    from bohnarena.ladder.submission import submit
    from tests.ladder.builders import file_bot

    from .conftest import run, serve, small_ladder, tokens_for

    ladder = small_ladder(tmp_path / "fresh", tmp_path, fresh_decks=True)
    assert run("ladder", "run", ladder, "--no-progress").exit_code == 0
    ann = tokens_for(ladder, "ann")["ann"]
    with serve(ladder) as site:
        assert site.get("/matches/0").status == 200  # no reveal: its decks are dealt no more
        assert site.api("GET", "/api/matches/0/stderr", ann).status == 200
        assert 'href="/matches/0"' in text(site.get("/entries/ann"))
        (ladder / player.DUE).write_text("a run cut short\n")  # its run may go on
        assert site.get("/matches/0").status == 403
        assert site.api("GET", "/api/matches/0/stderr", ann).status == 403
        (ladder / player.DUE).unlink()
        # a newcomer's run: a generation of its own, on decks of its own
        settings, catalog = load_settings(ladder), Catalog(ladder)
        submit(
            ladder,
            settings,
            catalog,
            "eve",
            file_bot(tmp_path, "Eve"),
            None,
            None,
            lambda *_: Verdict(),
        )
        catalog.close()
        assert run("ladder", "run", ladder, "--no-progress").exit_code == 0
        assert site.get("/matches/8").status == 200
        (ladder / player.DUE).write_text("the next run is due\n")
        assert site.get("/matches/0").status == 200  # earlier runs' decks: dealt no more
        assert site.get("/matches/8").status == 403  # the last run's: it may go on
        assert site.api("GET", "/api/matches/0/stderr", ann).status == 200
        assert site.api("GET", "/api/matches/8/stderr", ann).status == 403
        page = text(site.get("/entries/eve"))
        assert "from 8 on" in page and 'href="/matches/8"' not in page
        assert site.get("/downloads/matches/part-000000000-000000007.parquet").status == 403
