"""What the site never gives away: a token in its log or a reply, a run's
live standings unescaped, an error's details; and the run in progress."""

import json
import logging

from bohnarena.ladder.live import Writer
from bohnarena.rating.skill import BotStanding

from .conftest import SITE_MARKS, serve
from .test_api import submit
from .test_forms import Browser
from .test_pages import header

pytestmark = SITE_MARKS


def test_no_token_reaches_the_log(ladder, caplog):
    """Nothing the server logs (uvicorn's access and error logs, the site's)
    holds a token, good or bad."""
    from .conftest import tokens_for

    tokens = tokens_for(ladder, "ann", "bob")
    # (each logger's records taken where they are made: a run in this process, or
    # a server without its access log, may have stopped them propagating)
    loggers = [logging.getLogger(n) for n in ("bohnarena", "uvicorn.access", "uvicorn.error")]
    for logger in loggers:
        logger.addHandler(caplog.handler)
    with serve(ladder, log_level="debug", access_log=True) as site:
        ann = tokens["ann"]
        assert submit(site, ann, "ann").status == 202
        assert submit(site, ann, "bob").status == 403
        assert submit(site, ann + "x", "ann").status == 401
        browser = Browser(site)
        browser.log_in(ann)
        browser.post("/login", {"csrf": browser.csrf(), "token": tokens["bob"] + "y"})
        assert browser.get("/submit").status == 200
    for logger in loggers:
        logger.removeHandler(caplog.handler)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "POST /api/entries/ann/versions" in text  # (the access log was on)
    for token in tokens.values():
        assert token not in text


def test_the_run_in_progress(site):
    writer = Writer(site.ladder)  # (this process: alive, as a run's would be)
    standing = BotStanding("<b>ann</b>.1234abcd", 30.0, 2.0)
    writer.update(3, 8, [standing])
    try:
        page = site.get("/live").content.decode()
        assert "3 of 8 matches played" in page
        assert "&lt;b&gt;ann&lt;/b&gt;.1234abcd" in page and "<b>ann" not in page
        assert "24.00" in page  # its score: mu - 3 sigma
        assert 'href="/live">A run is in progress' in site.get("/").content.decode()
        now = json.loads(site.get("/api/live").content)
        assert now["running"] and now["played"] == 3 and now["planned"] == 8
    finally:
        writer.close()
    assert "No run is in progress" in site.get("/live").content.decode()
    assert json.loads(site.get("/api/live").content) == {"running": False}


def test_a_broken_ladder_says_nothing_of_it(site, caplog):
    (site.ladder / "ladder.toml").write_text("name = [unclosed")
    logger = logging.getLogger("bohnarena.site")  # (a run in this process may stop it propagating)
    logger.addHandler(caplog.handler)
    try:
        r = site.get("/settings")
    finally:
        logger.removeHandler(caplog.handler)
    assert r.status == 503 and b"toml" not in r.content.lower()
    assert header(r, "content-security-policy") is not None
    assert any("ladder.toml" in rec.getMessage() for rec in caplog.records)
