"""The site in a real browser (Playwright driving Debian's chromium, no
browser download), as a participant uses it: log in with a token through
the form, submit a file through the form, see it pending, then active and
playing once the player has checked it and run; the entry's rating history
drawn, a match opened in the viewer once the season is revealed. No page
logs a console error (a CSP violation is one) or raises, and no request
leaves the loopback server: every request is routed, and any other host
is refused and counted."""

from urllib.parse import urlsplit

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.player import Player
from bohnarena.ladder.settings import load_settings
from bohnarena.run.verify import reveal
from tests.ladder.builders import BOT
from tests.report.test_report import CHROMIUM

from .conftest import SITE_MARKS, serve, tokens_for

pytestmark = [
    *SITE_MARKS,
    pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package chromium)"),
]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="needs playwright (pip install -e '.[test]')"
)


class Watched:
    """A browser page on the site: what it logged and every request it
    tried, any to a host other than the site's refused."""

    def __init__(self, browser, site) -> None:
        self.page = browser.new_page()
        self.site = site
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self.route)

    def route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).netloc == f"127.0.0.1:{self.site.port}":
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def goto(self, path: str) -> None:
        r = self.page.goto(self.site.url + path)
        assert r is not None and r.status == 200, (path, r and r.status)

    def state_of(self, version: int) -> str:
        return self.page.inner_text(f"#v{version} td:nth-child(3)")

    def left_alone(self) -> None:
        assert self.errors == [], self.errors
        assert self.outside == [], self.outside


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


def test_a_participant_logs_in_submits_and_watches_the_version_play(browser, ladder, tmp_path):
    token = tokens_for(ladder, "ann")["ann"]
    source = tmp_path / "next.py"
    source.write_text(BOT.format(name="Next"))
    with serve(ladder) as site:
        w = Watched(browser, site)
        w.goto("/login")
        w.page.fill("input[name=token]", token)
        w.page.click("form[action='/login'] button")
        assert w.page.url == site.url + "/"
        assert "log out ann" in w.page.inner_text("nav")

        w.goto("/submit")
        assert w.page.input_value("input[name=entry]") == "ann"
        w.page.fill("input[name=bot]", "Next")
        w.page.set_input_files("input[name=source]", str(source))
        w.page.click("form[action='/submit'] button")
        path, _, anchor = w.page.url.removeprefix(site.url).partition("#v")
        assert path == "/entries/ann", w.page.url
        new = int(anchor)
        assert w.state_of(new) == "pending"
        assert "waiting for its check" in w.page.inner_text(f"#v{new}")

        # The player checks it (a real check: its bot plays in a process) and runs.
        lines: list[str] = []
        player = Player(ladder, lambda: load_settings(ladder), lines.append, workers=1)
        summary = player.step()
        assert summary is not None and not summary.interrupted, lines
        catalog = Catalog(ladder)
        try:
            (version,) = [v for v in catalog.versions("ann") if v.id == new]
        finally:
            catalog.close()
        assert version.state == "active", lines

        w.goto("/entries/ann")
        assert w.state_of(new) == "active"
        assert w.page.locator("svg").count() >= 1  # the rating history, drawn
        assert w.page.locator(f"select[name=version] option:text-is('{version.bot}')").count()
        shown = w.page.inner_text("main")
        assert "Moves and viewer pages are" in shown and version.bot in shown
        assert w.page.locator("a[href^='/matches/']").count() == 0  # hidden until the reveal

        reveal(ladder / "results")
        w.goto(f"/entries/ann?version={version.bot}")
        link = w.page.locator("a[href^='/matches/']").first
        href = link.get_attribute("href")
        link.click()
        w.page.wait_for_selector("body[data-ready]")
        assert w.page.url.partition("#")[0] == site.url + href
        assert version.bot in w.page.inner_text("body")
        w.page.keyboard.press("End")  # the viewer's script runs under its own policy
        w.left_alone()
