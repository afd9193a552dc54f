"""The viewer page in a real browser: Playwright for Python driving Debian's
chromium (no browser download). Stepping with the keys, the page shows at
each move what ``replay --at N`` says of the table; it logs no console
error and makes no request.

Screenshots are kept under pytest's base temporary directory, in
``viewer-screenshots/`` (``pytest --basetemp=DIR`` puts them in
``DIR/viewer-screenshots``).
"""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.report.test_report import CHROMIUM

from .hostile_notes import ESCAPE
from .test_film import cards

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package chromium)"),
]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="needs playwright (pip install -e '.[test]')"
)

HERE = Path(__file__).parent

#: What the page shows of each seat, read as a user sees it: only elements
#: that are drawn (a face-down hand shows its count, not its cards).
READ_SEATS = """() => [...document.querySelectorAll("section.seat")].map((sec) => {
  const zone = (k) => sec.querySelector(`[data-zone="${k}"]`);
  const seen = (e) => e !== null && e.checkVisibility();
  const cards = (z, which = "li.card:not(.down)") =>
    [...z.querySelectorAll(which)].filter(seen).map((li) => li.innerText);
  const back = zone("hand").querySelector(".back .count");
  return {
    coins: zone("coins").querySelector(".value").innerText,
    fields: [...zone("fields").querySelectorAll("li.slot")].map((li) => [
      li.querySelector(".t").innerText, li.querySelector(".n")?.innerText ?? null]),
    face_down: seen(back) ? back.innerText : null,
    hand: cards(zone("hand")),
    backs: cards(zone("hand"), "li.card.down").length,
    trade_area: cards(zone("trade_area")),
  };
})"""


def invoke(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def league(run_dir, tmp_path_factory):
    """A league's results and one match's viewer page."""
    html = tmp_path_factory.mktemp("browser") / "m1.html"
    invoke("view", run_dir, "--match", 1, "-o", html)
    return run_dir, html


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.getbasetemp() / "viewer-screenshots"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


class Watched:
    """A page opened in the browser, with what it logged and requested."""

    def __init__(self, browser, html: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = html.as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready]")

    @property
    def move(self) -> int:
        shown = int(self.page.inner_text("#move-no"))
        assert shown == int(self.page.get_attribute("body", "data-move"))
        return shown

    def press(self, key: str, until=lambda: True, most: int = 3000) -> int:
        for _ in range(most):
            self.page.keyboard.press(key)
            if until():
                break
        return self.move

    def left_alone(self) -> None:
        assert self.errors == []
        assert {r.split("#")[0] for r in self.requests} <= {self.url}, self.requests


def names_of(out: Path) -> dict[int, str]:
    from bohnarena.run.replay import Run

    return {v.id: v.name for v in Run.open(out).rules.varieties}


def table_at(out: Path, match: int, move: int) -> dict:
    """``replay --at N``'s table (its JSON form: the same command)."""
    (line,) = invoke("replay", out, "-m", match, "--at", move, "--json").splitlines()
    return json.loads(line)["state"]


def agrees(watched: Watched, state: dict, names: dict[int, str], hands_shown: bool) -> None:
    seats = watched.page.evaluate(READ_SEATS)
    assert len(seats) == len(state["seats"])
    for shown, seat in zip(seats, state["seats"], strict=True):
        assert shown["coins"] == str(seat["coins"])
        assert [int(n) if n else 0 for _, n in shown["fields"]] == [n for _, n in seat["fields"]]
        assert [t for t, n in shown["fields"] if n] == [names[v] for v, n in seat["fields"] if n]
        hand = [names[c] for c in seat["hand"]]
        if hands_shown:
            assert shown["hand"] == hand and shown["face_down"] is None and not shown["backs"]
        else:
            assert shown["hand"] == [] and shown["face_down"] == cards(len(hand))
            assert shown["backs"] == len(hand)
        assert shown["trade_area"] == [names[c] for c in seat["trade_area"]]
    pile = watched.page.inner_text('#table-zones [data-zone="draw_pile"] .value')
    assert pile == cards(state["draw_pile"])


def test_stepping_with_the_keys_the_page_shows_what_replay_at_says(league, browser, shots):
    out, html = league
    lines = [json.loads(x) for x in invoke("replay", out, "-m", 1, "--json").splitlines()]
    log = [r for r in lines if r["kind"] != "table"]  # (the table at each turn's start)
    assert [r["move"] for r in log] == list(range(len(log)))
    turns = [r["move"] for r in log if r["kind"] == "turn"]
    trade = next(r["move"] for r in log if r["kind"] == "traded")
    harvest = next(r["move"] for r in log if r["kind"] == "harvested" and r["coins"] > 0)
    names = names_of(out)
    w = Watched(browser, html)
    assert w.press("Home") == min(r["move"] for r in log if r["kind"] == "dealt")
    # the next turn, the one before, a turn down again and a move back
    assert w.press("ArrowDown") == turns[0]
    assert w.press("ArrowDown") == turns[1]
    assert w.press("ArrowUp") == turns[0]
    assert w.press("ArrowDown") == turns[1]
    assert w.press("ArrowLeft") < turns[1]
    seen = []
    for target, what in sorted([(trade, "trade"), (harvest, "harvest")]):
        # a turn at a time to the target's turn, then a move at a time
        start = max(t for t in turns if t <= target)
        if w.move > target:
            w.press("ArrowUp", lambda s=start: w.move <= s)
        if w.move < start:
            w.press("ArrowDown", lambda s=start: w.move >= s)
        assert w.press("ArrowRight", lambda t=target: w.move >= t) == target
        state = table_at(out, 1, target)
        agrees(w, state, names, hands_shown=False)
        assert re.search(r"\bTRADE\b|harvests", w.page.inner_text("#move-text"))
        w.page.screenshot(path=shots / f"move-{target}-{what}.png", full_page=True)
        seen.append(target)
        w.page.check("#hands")  # every hand turned up, then down again
        agrees(w, state, names, hands_shown=True)
        w.page.uncheck("#hands")
        w.page.evaluate("document.activeElement.blur()")  # the keys to the page again
    # the middle of the match, a move back, and the end
    w.press("ArrowDown", lambda: w.move >= turns[len(turns) // 2])
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        w.press(key)
        agrees(w, table_at(out, 1, w.move), names, hands_shown=False)
    assert w.press("End") == len(log) - 1
    agrees(w, table_at(out, 1, len(log) - 1), names, hands_shown=False)
    w.page.screenshot(path=shots / f"move-{len(log) - 1}-end.png", full_page=True)
    assert all(
        (shots / f"move-{m}-{k}.png").stat().st_size > 10_000
        for m, k in [(trade, "trade"), (harvest, "harvest")]
    )
    w.left_alone()


def test_a_bots_markup_stays_text_and_calls_nowhere(browser, tmp_path, shots):
    html = tmp_path / "hostile.html"
    bot = f"{HERE / 'hostile_notes.py'}:MarkupNoter"
    invoke("play", "-s", 3, "-q", bot, "planner", "random", "--html", html)
    w = Watched(browser, html)
    title = w.page.title()
    w.press("ArrowRight", lambda: w.page.locator('[data-zone="note"]').count() > 0)  # at its move
    note = w.page.inner_text('section.seat[data-seat="0"] [data-zone="note"] li')
    assert ESCAPE.split(" \u2028")[0] in note  # the markup, as text
    assert w.page.locator("img").count() == 0 and w.page.title() == title
    w.page.screenshot(path=shots / "hostile-note.png")
    w.left_alone()


def test_what_a_bot_says_with_an_offer_stays_text(browser, tmp_path, shots):
    html = tmp_path / "talk.html"
    bot = f"{HERE / 'hostile_notes.py'}:MarkupTalker"
    invoke("play", "-s", 3, "-q", bot, "planner", "trader", "--html", html)
    w = Watched(browser, html)
    title = w.page.title()
    w.press("ArrowRight", lambda: "says:" in w.page.inner_text("#move-text"))
    said = w.page.inner_text("#move-text")
    assert ESCAPE.split(" \u2028")[0] in said  # the markup, as text
    assert w.page.inner_text("#move-tag") == "talk"
    assert ESCAPE.split(" \u2028")[0] in w.page.inner_text('[data-zone="trading"]')
    assert w.page.locator("img").count() == 0 and w.page.title() == title
    w.page.screenshot(path=shots / "hostile-talk.png")
    w.left_alone()


def test_the_dice_game_steps_too(browser, tmp_path):
    html = tmp_path / "dice.html"
    invoke(
        "play",
        "--game",
        "wuerfel",
        "-s",
        5,
        "-q",
        "wuerfel-greedy",
        "wuerfel-random",
        "wuerfel-greedy",
        "--html",
        html,
    )
    w = Watched(browser, html)
    first = w.move
    assert w.press("ArrowDown") > first
    assert "rolls" in w.page.inner_text("#head")
    last = w.press("End")
    assert last > 0 and "over" in w.page.inner_text("#head")
    w.left_alone()
