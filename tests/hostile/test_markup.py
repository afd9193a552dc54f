"""Markup a bot or an organiser slips into a name, a note, a fault text or a
league's name is text on every page (issue 44): the report, a match's
viewer page, a ladder's history. Checked in the HTML, then in Debian's
chromium driven by Playwright (slow): no dialog fires, no image is made,
and the text is there to read."""

import dataclasses
import json
from html import unescape as html_unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bohnarena.analysis.notable import Pick
from bohnarena.analysis.results import read_results
from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot
from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.standings import history_page
from bohnarena.rating.skill import BotStanding
from bohnarena.report.html import build
from bohnarena.report.watch import Watched
from bohnarena.run.dispatch import run_league
from bohnarena.viewer.info import MatchInfo
from bohnarena.viewer.match import viewer_page
from tests.report.test_report import CHROMIUM

from .markup_bots import EVIL

HERE = Path(__file__).parent
BOT = f"{HERE / 'markup_bots.py'}:MarkupBot"


#: A terminal's escape and a right-to-left override.
CONTROL = "\x1b]0;pwned\x07\u202e"


def renamed(bot: str) -> str:
    return f"{bot} {EVIL}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each page, built from what the attacks reach: {name: path}."""
    d = tmp_path_factory.mktemp("markup")
    league = d / "l.toml"
    league.write_text(
        'name = "l"\ngame = "wuerfel"\nplayers = 3\ndeals = 1\nseed = 4\n'
        '[bots]\ngreedy = "wuerfel-greedy"\nrandom = "wuerfel-random"\n'
        'random2 = "wuerfel-random"\n'
    )
    run_league(league, d / "out", workers=1, progress=False)
    # The league file refuses such names: the pages must not rely on it.
    r = read_results(d / "out")
    r.matches.bots = [renamed(b) for b in r.matches.bots]
    for standing in r.ranking.standings:
        standing.bot = renamed(standing.bot)
    r.league = dataclasses.replace(r.league, name=EVIL + CONTROL)
    watched = Watched([Pick(0, [f"why {EVIL}"])], {}, f"missing {EVIL}")
    (d / "report.html").write_text(build(r, resamples=20, watched=watched))

    game = get_game("bohnanza")
    rules = game.rules("classic", 3, {})
    bots = [load_bot(s, game.bot_base)() for s in (BOT, BOT, "planner")]
    result, log = game.play(rules, 3, bots)
    names = [renamed(n) for n in ("first", "second", "planner")]
    info = MatchInfo.of_result(game, "classic", {}, names, 3, result, len(log))
    (d / "viewer.html").write_text(viewer_page(game, rules, log, info))

    (d / "ladder").mkdir()
    c = Catalog(d / "ladder", create=True)
    vid = c.add(renamed("ann"), "a" * 32, "file", {}, "ann.py", "a")
    c.activate(vid)
    c.record_run(0.0, 8, 8, [(vid, BotStanding("", 20, 1))])
    (d / "history.html").write_text(history_page(c.history(), EVIL))
    return {p.stem: p for p in d.glob("*.html")}


#: What reaches each page, as the page's reader should see it.
SHOWN = {
    "report": ["League " + EVIL, renamed("greedy"), f"why {EVIL}", f"missing {EVIL}"],
    "viewer": [renamed("first"), "note " + EVIL, "fault " + EVIL],
    "history": [EVIL, renamed("ann")],
}


class Read(HTMLParser):
    """A page as a browser's parser reads it: its elements, their
    attributes' names and its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.data: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}

    def handle_data(self, data):
        self.data.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.data).split())


@pytest.mark.slow  # (the pages cost a league and a match: seconds)
@pytest.mark.parametrize("name", ["report", "history"])
def test_every_attack_is_text_in_the_html(pages, name):
    read = Read(pages[name].read_text())
    assert "img" not in read.tags and "script" not in read.tags and "onerror" not in read.attributes
    assert read.tags.count("style") == 1
    for text in SHOWN[name]:
        assert " ".join(text.split()) in read.text, text
    assert "{{7*7}}" in read.text and "49" not in read.text


@pytest.mark.slow
def test_the_viewer_page_holds_every_attack_as_data(pages):
    html = pages["viewer"].read_text()
    read = Read(html)
    assert read.tags.count("script") == 2 and read.tags.count("style") == 1  # its own
    assert "img" not in read.tags and "onerror" not in read.attributes
    assert renamed("first") in html_unescape(html.split("<title>")[1].split("</title>")[0])
    film = json.loads(html.split('id="film">')[1].split("</script>")[0])
    texts = json.dumps(film)
    for text in SHOWN["viewer"]:
        assert json.dumps(text)[1:-1] in texts, text


@pytest.mark.slow
def test_a_character_that_is_not_printable_is_written_as_its_escape(pages):
    html = pages["report"].read_text()
    assert CONTROL not in html and CONTROL.encode("unicode_escape").decode() in html


# -- in the browser --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package chromium)")
@pytest.mark.parametrize("name", ["report", "viewer", "history"])
def test_every_attack_is_text_in_the_browser(pages, name):
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            dialogs, errors = [], []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(pages[name].as_uri())
            if name == "viewer":
                page.wait_for_selector("body[data-ready]")
                page.check("#all-moves")  # notes and faults are listed as moves
            shown = page.inner_text("body")
            for text in SHOWN[name]:
                assert " ".join(text.split()) in " ".join(shown.split()), text
            assert EVIL in page.title() or name == "report"
            assert page.locator("img").count() == 0
            assert dialogs == [] and errors == []
        finally:
            browser.close()


def test_markup_is_written_structure_with_escaped_fields():
    from bohnarena.core.pages import Markup, join, markup, render

    cell = markup('<b style="color:{}">■</b> {} {:.1f}', "#4269d0", EVIL + CONTROL, 2.25)
    assert cell.startswith('<b style="color:#4269d0">■</b> &lt;script&gt;') and "2.2" in cell
    assert "\x1b" not in cell and "\\x1b" in cell
    assert markup("<td>{}</td>", cell).count("<b ") == 1  # markup is kept as it is
    assert join(["<i>", Markup("<br>")], "<br>") == "&lt;i&gt;<br><br>"
    page = render("bohnarena.ladder", "base.html")  # every folder's pages share the layout
    assert "default-src 'none'" in page and page.startswith("<!DOCTYPE html>")
