"""The site's forms: log in with a token (a session id in an HttpOnly
SameSite=Strict cookie), submit a file and retire one's entry; every form
refused without its CSRF field, a login ended at once by a revoke or a
logout (a copy of its cookie included)."""

import base64
import re
from urllib.parse import urlencode

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.tokens import TokenBook
from bohnarena.run.verify import reveal
from tests.ladder.builders import BOT

from .conftest import SITE_MARKS, multipart, tokens_for

pytestmark = SITE_MARKS

FORM = "application/x-www-form-urlencoded"


def headers_of(r):
    return [(k.decode().lower(), v.decode()) for k, v in r.headers]


def cookies_set(r):
    return {v.split("=", 1)[0]: v for k, v in headers_of(r) if k == "set-cookie" and "=" in v}


class Browser:
    """Cookies kept as a browser keeps them for one site; the CSRF field read off a page."""

    def __init__(self, site):
        self.site, self.cookies = site, {}

    def _headers(self, extra=None):
        h = dict(extra or {})
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return h

    def _keep(self, r):
        for name, line in cookies_set(r).items():
            value = line.split(";", 1)[0].split("=", 1)[1]
            if "expires=Thu, 01 Jan 1970" in line or "Max-Age=0" in line or not value.strip('"'):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return r

    def get(self, path):
        return self._keep(self.site.get(path, self._headers()))

    def csrf(self, path="/login"):
        page = self.get(path).content.decode()
        return re.search(r'name="csrf" value="([^"]+)"', page).group(1)

    def post(self, path, fields):
        body = urlencode(fields).encode()
        r = self.site.request("POST", path, self._headers({"Content-Type": FORM}), body)
        return self._keep(r)

    def upload(self, path, fields, file):
        content_type, body = multipart(fields, file)
        r = self.site.request("POST", path, self._headers({"Content-Type": content_type}), body)
        return self._keep(r)

    def log_in(self, token):
        r = self.post("/login", {"csrf": self.csrf(), "token": token})
        assert r.status == 303, r.content
        return r


def location(r):
    return dict(headers_of(r)).get("location")


def test_log_in_and_the_cookies(site):
    ann = site.tokens["ann"]
    browser = Browser(site)
    csrf = browser.csrf()
    line = cookies_set(browser.get("/login")) or {}
    assert not line  # the CSRF cookie is set once
    r = browser.post("/login", {"csrf": csrf, "token": "wrong"})
    assert r.status == 401 and b"wrong" not in r.content
    r = browser.log_in(ann)
    session = cookies_set(r)["bohnarena_session"]
    assert "HttpOnly" in session and "SameSite=strict" in session
    for shown in (ann, base64.urlsafe_b64encode(ann.encode()).decode()[:20]):
        assert shown not in session  # a session id, not the token
    assert ann not in r.content.decode()
    page = browser.get("/").content.decode()
    assert "log out ann" in page and ann not in page
    assert browser.get("/submit").status == 200


def test_forms_without_their_csrf_field_are_refused(site, ladder):
    ann = site.tokens["ann"]
    browser = Browser(site)
    assert browser.post("/login", {"token": ann}).status == 403
    stranger = Browser(site)  # a page elsewhere: the field of another browser's cookie
    assert stranger.post("/login", {"csrf": browser.csrf(), "token": ann}).status == 403
    browser.log_in(ann)
    file = ("mine.py", BOT.format(name="Mine").encode())
    r = browser.upload("/submit", [("entry", "ann"), ("bot", "Mine")], file)
    assert r.status == 403 and b"did not come from this site" in r.content
    assert browser.post("/entries/ann/retire", {}).status == 403
    assert browser.post("/logout", {}).status == 403
    catalog = Catalog(ladder)
    assert [v.state for v in catalog.versions("ann")] == ["active"]
    catalog.close()
    assert not list((ladder / "incoming").glob("*.upload"))


def test_submit_and_retire_through_the_forms(site, ladder):
    browser = Browser(site)
    browser.log_in(site.tokens["ann"])
    csrf = browser.csrf("/submit")
    file = ("mine.py", BOT.format(name="Mine").encode())
    r = browser.upload("/submit", [("csrf", csrf), ("entry", "bob"), ("bot", "Mine")], file)
    assert r.status == 403 and b"may not touch the entry" in r.content
    r = browser.upload("/submit", [("csrf", csrf), ("entry", "ann"), ("bot", "Mine")], file)
    assert r.status == 303 and location(r).startswith("/entries/ann#v")
    page = browser.get("/entries/ann").content.decode()
    assert "pending" in page and "mine.py" in page and "Retire ann" in page
    assert "Retire bob" not in browser.get("/entries/bob").content.decode()
    assert browser.post("/entries/bob/retire", {"csrf": csrf}).status == 403
    r = browser.post("/entries/ann/retire", {"csrf": csrf})
    assert r.status == 303
    catalog = Catalog(ladder)
    assert [v.state for v in catalog.versions("ann")] == ["retired", "pending"]
    catalog.close()
    assert browser.post("/logout", {"csrf": csrf}).status == 303
    assert location(browser.get("/submit")) == "/login"


def test_a_revoke_ends_a_login_at_once(site):
    browser = Browser(site)
    browser.log_in(site.tokens["ann"])
    assert browser.get("/submit").status == 200
    TokenBook(site.ladder).revoke("ann")
    r = browser.get("/submit")
    assert r.status == 303 and location(r) == "/login"
    assert "log in" in browser.get("/").content.decode()


def test_a_logout_ends_a_copied_cookie_too(site):
    browser = Browser(site)
    browser.log_in(site.tokens["ann"])
    thief = Browser(site)
    thief.cookies = dict(browser.cookies)
    assert thief.get("/submit").status == 200
    assert browser.post("/logout", {"csrf": browser.csrf("/submit")}).status == 303
    assert location(thief.get("/submit")) == "/login"
    assert "log out ann" not in thief.get("/").content.decode()


def test_logging_in_again_ends_a_copied_cookie(site):
    """A browser that logs in again (its login replaced) leaves no copy of
    its old cookie working, which its holder's logout could no longer end."""
    browser = Browser(site)
    browser.log_in(site.tokens["ann"])
    thief = Browser(site)
    thief.cookies = dict(browser.cookies)
    browser.log_in(site.tokens["ann"])
    assert location(thief.get("/submit")) == "/login"
    assert browser.get("/submit").status == 200


def test_ones_own_stderr_on_a_page(site):
    """A logged-in participant reads its own bots' stderr of a match on a
    page, escaped; never another's, nor before the match may be shown."""
    assert location(Browser(site).get("/matches/0/stderr")) == "/login"
    ann = Browser(site)
    ann.log_in(site.tokens["ann"])
    assert ann.get("/matches/0/stderr").status == 403  # (no reveal yet)
    assert "/stderr" not in ann.get("/entries/ann").content.decode()
    reveal(site.ladder / "results")
    assert 'href="/matches/0/stderr"' in ann.get("/entries/ann").content.decode()
    assert "/stderr" not in ann.get("/entries/bob").content.decode()
    for m in range(8):
        page = ann.get(f"/matches/{m}/stderr").content.decode()
        assert "&lt;script&gt;alert(&#39;Bot0&#39;)&lt;/script&gt;\\x1b[31m" in page
        assert "<script>" not in page and "Bot1" not in page and "Bot2" not in page
    eve = Browser(site)
    eve.log_in(tokens_for(site.ladder, "eve")["eve"])  # an entry that played nothing
    r = eve.get("/matches/0/stderr")
    assert r.status == 403 and b"none of this token" in r.content
    assert ann.get("/matches/999/stderr").status == 404
