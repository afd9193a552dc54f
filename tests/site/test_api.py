"""The participants' API against a real uvicorn: submit, poll, retire and
read one's own logs; a wrong token, someone else's entry, a token revoked
mid-session, a filename with ``../``, submissions at once, the rate limit
kept across a restart."""

import json
import threading

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.check import Verdict
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import validate
from bohnarena.ladder.tokens import TokenBook
from bohnarena.run.verify import reveal
from bohnarena.site.limits import RateLimit
from tests.ladder.builders import BOT, wheel
from tests.support.leagues import bot_log

from .conftest import SITE_MARKS, serve, tokens_for

pytestmark = SITE_MARKS


def body(r):
    return json.loads(r.content)


def bot_file(name="Mine"):
    return (f"{name.lower()}.py", BOT.format(name=name).encode())


def submit(site, token, entry, name="Mine", filename=None):
    file = bot_file(name)
    if filename is not None:
        file = (filename, file[1])
    return site.api("POST", f"/api/entries/{entry}/versions", token, [("bot", name)], file)


def test_submit_poll_retire(site, tmp_path):
    ann = site.tokens["ann"]
    r = submit(site, ann, "ann")
    assert r.status == 202, r.content
    version = body(r)
    assert version["state"] == "pending" and version["entry"] == "ann"
    assert version["source"] == "mine.py" and ann not in r.content.decode()
    poll = site.api("GET", version["poll"], ann)
    assert poll.status == 200 and body(poll)["state"] == "pending"
    assert "pending" in site.get("/entries/ann").content.decode()
    # the player process checks it (here: passed unplayed)
    catalog = Catalog(site.ladder)
    validate(
        site.ladder,
        load_settings(site.ladder),
        catalog,
        catalog.get(version["id"]),
        lambda *_: Verdict(),
    )
    catalog.close()
    assert body(site.api("GET", version["poll"], ann))["state"] == "active"
    r = site.api("POST", "/api/entries/ann/retire", ann)
    assert r.status == 200 and body(r)["state"] == "retired" and body(r)["id"] == version["id"]
    assert "retired by its holder ann" in body(site.api("GET", version["poll"], ann))["reason"]
    assert site.api("POST", "/api/entries/ann/retire", ann).status == 409
    # a wheel, as `curl -F source=@wheelbot-1.0-py3-none-any.whl` sends it
    path = wheel(tmp_path, tmp_path / "marker")
    r = site.api("POST", "/api/entries/ann/versions", ann, file=(path.name, path.read_bytes()))
    assert r.status == 202 and body(r)["kind"] == "wheel" and body(r)["source"] == path.name
    assert not (tmp_path / "marker").exists()


def test_wrong_token_and_someone_elses_entry(site):
    ann, bob = site.tokens["ann"], site.tokens["bob"]
    r = submit(site, None, "ann")
    assert r.status == 401 and b"Bearer" in dict(r.headers)[b"www-authenticate"]
    assert submit(site, "not-a-token", "ann").status == 401
    assert submit(site, ann + "x", "ann").status == 401
    assert submit(site, bob, "ann").status == 403
    assert submit(site, bob, "<script>").status == 400
    version = body(submit(site, ann, "ann"))
    assert site.api("GET", version["poll"], bob).status == 403
    assert site.api("GET", version["poll"], None).status == 401
    assert site.api("GET", "/api/versions/999", ann).status == 404
    assert site.api("POST", "/api/entries/ann/retire", bob).status == 403
    assert site.api("GET", f"/api/versions/{version['id']}/stderr", bob).status == 403
    # a cookie never acts on the API
    assert site.api("POST", "/api/entries/ann/retire", headers={"Cookie": f"x={ann}"}).status == 401
    catalog = Catalog(site.ladder)
    assert [v.state for v in catalog.versions("ann")] == ["active", "pending"]
    catalog.close()


def test_a_token_revoked_mid_session(site):
    ann = site.tokens["ann"]
    assert submit(site, ann, "ann").status == 202
    TokenBook(site.ladder).revoke("ann")
    assert submit(site, ann, "ann", "Other").status == 401
    assert site.api("POST", "/api/entries/ann/retire", ann).status == 401


def test_a_filename_reaches_no_path(site, tmp_path):
    ann = site.tokens["ann"]
    r = submit(site, ann, "ann", filename="../../../evil.py")
    assert r.status == 202 and body(r)["source"] == "evil.py"
    r = submit(site, ann, "ann", "Two", filename="..\\..\\two.py")
    assert r.status == 202 and body(r)["source"] == "two.py"
    for name in ("..", "../", ".hidden.py", "../../etc/passwd", "a b.py", "x.py\x00.whl"):
        assert submit(site, ann, "ann", "Three", filename=name).status == 400, name
    assert not (tmp_path / "evil.py").exists() and not (site.ladder / "evil.py").exists()
    assert not list(site.ladder.parent.glob("*.py"))
    assert not list((site.ladder / "incoming").glob("*.upload"))  # each upload removed


def test_submissions_at_once(ladder):
    holder = tokens_for(ladder, "org")["org"]
    TokenBook(ladder).revoke("org")
    org = TokenBook(ladder).add("org", "*")
    assert holder != org
    with serve(ladder) as site:
        statuses = {}

        def one(i):
            statuses[i] = submit(site, org, f"new{i}", f"New{i}").status

        threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert statuses == dict.fromkeys(range(6), 202)
    catalog = Catalog(ladder)
    pending = catalog.versions(states=("pending",))
    catalog.close()
    assert sorted(v.name for v in pending) == [f"new{i}" for i in range(6)]
    assert len({v.hash for v in pending}) == 6
    assert all((ladder / "bots" / v.hash / f"{v.name}.py").is_file() for v in pending)


def test_the_rate_limit_outlives_a_restart(ladder):
    ann = tokens_for(ladder, "ann")["ann"]
    with serve(ladder, rate=RateLimit(2, 3600)) as site:
        assert submit(site, ann, "ann", "One").status == 202
        assert submit(site, ann, "ann", "Two").status == 202
        r = submit(site, ann, "ann", "Three")
        assert r.status == 429 and int(dict(r.headers)[b"retry-after"]) > 3000
    with serve(ladder, rate=RateLimit(2, 3600)) as site:
        assert submit(site, ann, "ann", "Three").status == 429
    with serve(ladder, rate=RateLimit(3, 3600)) as site:
        assert submit(site, ann, "ann", "Three").status == 202


def test_own_stderr_and_notes_only(site):
    ann, bob = site.tokens["ann"], site.tokens["bob"]
    catalog = Catalog(site.ladder)
    mine = catalog.versions("ann")[0]
    catalog.close()
    path = f"/api/versions/{mine.id}/stderr"
    assert site.api("GET", path, ann).status == 403  # before the reveal: it shows the deck
    assert site.api("GET", "/api/matches/0/notes", ann).status == 403
    reveal(site.ladder / "results")
    r = site.api("GET", path, ann)
    assert r.status == 200
    lines = body(r)["lines"]
    assert "<script>alert('Bot0')</script>\\x1b[31m" in lines  # escaped for a terminal
    assert all(line.isprintable() for line in lines)
    # (its processes may add a line of their own as a match ends; never another bot's)
    assert not any(f"Bot{i}" in line for line in lines for i in (1, 2, 3))
    assert site.api("GET", path, bob).status == 403
    r = site.api("GET", "/api/matches/0/notes", ann)
    assert r.status == 200
    notes = body(r)
    assert len(notes["seats"]) == 1 and notes["notes"]
    assert {n["note"] for n in notes["notes"]} == {"note of Bot0"}
    assert {n["bot"] for n in notes["notes"]} == {mine.bot}
    assert site.api("GET", "/api/matches/0/notes", None).status == 401
    assert site.api("GET", "/api/matches/999/notes", ann).status == 404


def test_own_stderr_of_a_match_only(site):
    """A match's stderr: the caller's own bot's, of that match alone, escaped;
    403 before the reveal and for a token none of whose entries played it."""
    ann = site.tokens["ann"]
    eve = tokens_for(site.ladder, "eve")["eve"]  # an entry that played nothing
    catalog = Catalog(site.ladder)
    mine = catalog.versions("ann")[0]
    catalog.close()
    assert site.api("GET", "/api/matches/0/stderr", ann).status == 403
    reveal(site.ladder / "results")
    counted = 0
    for m in range(8):
        r = site.api("GET", f"/api/matches/{m}/stderr", ann)
        assert r.status == 200
        (found,) = body(r)["stderr"]
        assert found["bot"] == mine.bot and found["logged"] and found["seats"] == body(r)["seats"]
        said = [line for line in found["lines"] if "alert" in line]
        # escaped for a terminal; a line at each of its plants, never another bot's
        assert said and set(said) == {"<script>alert('Bot0')</script>\\x1b[31m"}, said
        assert all(line.isprintable() for line in found["lines"])
        counted += len(said)
    assert counted == bot_log(site.ladder / "results", mine.bot).count("alert")  # each once
    assert site.api("GET", "/api/matches/0/stderr", eve).status == 403
    assert site.api("GET", "/api/matches/0/stderr", None).status == 401
    assert site.api("GET", "/api/matches/999/stderr", ann).status == 404
    # the version's endpoint reads the end of its newest log
    r = site.api("GET", f"/api/versions/{mine.id}/stderr", ann)
    assert r.status == 200 and "<script>alert('Bot0')</script>\\x1b[31m" in body(r)["lines"]


def test_the_api_is_described(site):
    spec = body(site.get("/api/openapi.json"))
    assert spec["openapi"].startswith("3.")
    post = spec["paths"]["/api/entries/{name}/versions"]["post"]
    assert set(post["responses"]) >= {"202", "401", "403", "413", "429"}
    assert "multipart/form-data" in post["requestBody"]["content"]
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
