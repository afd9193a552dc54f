"""The viewer's data, page and command, without a browser: every frame is
the table the replay gives at that move, the page can fetch nothing and no
text of the log can break out of it (tests/viewer/test_browser.py drives
the page itself)."""

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot
from bohnarena.viewer.info import MatchInfo
from bohnarena.viewer.match import viewer_of
from bohnarena.viewer.page import page, script_json

from .hostile_notes import ESCAPE

HERE = Path(__file__).parent


def played(game_name, edition, specs, seed):
    game = get_game(game_name)
    rules = game.rules(edition, len(specs), {})
    _, log = game.play(rules, seed, [load_bot(s, game.bot_base)() for s in specs])
    return game, rules, log, list(specs)


def film_of(game, rules, log, names, seed):
    return viewer_of(game).film(rules, seed, log, names).as_json(game.name, {})


def unpack(film, i):
    """Frame i as the page reads it: (turn, head, table zones, seat zones, who)."""
    pool = film["pool"]
    turn, head, table, seats, who = film["frames"][i]
    zones = lambda panel: {pool[z]["key"]: pool[z] for z in pool[panel]}  # noqa: E731
    return turn, pool[head], zones(table), [zones(s) for s in seats], who


def state_at(game, rules, log, names, seed, i):
    (line,) = game.table_at(rules, seed, log, i, names, as_json=True)
    return json.loads(line)["state"]


def cards(n, word="card"):
    return f"{n} {word}" + ("s" if n != 1 else "")


@pytest.mark.slow
def test_every_frame_of_the_card_game_is_the_table_replay_shows():
    seed = 11
    game, rules, log, names = played("bohnanza", "classic", ["trader", "planner", "random"], seed)
    film = film_of(game, rules, log, names, seed)
    assert len(film["frames"]) == len(film["moves"]) == len(log)
    names_of = {v.id: v.name for v in rules.varieties}
    for i in [*range(0, len(log), max(1, len(log) // 40)), len(log) - 1]:
        turn, _, table, seats, _ = unpack(film, i)
        state = state_at(game, rules, log, names, seed, i)
        assert turn == state["turn"]
        assert table["draw_pile"]["value"] == cards(state["draw_pile"])
        assert table["discard"]["value"] == cards(len(state["discard"]))
        assert table["revealed"].get("items", []) == [names_of[c] for c in state["revealed"]]
        for s, seat in enumerate(state["seats"]):
            zones = seats[s]
            assert zones["coins"]["value"] == str(seat["coins"])
            assert [n or 0 for _, n, _ in zones["fields"]["items"]] == [
                n for _, n in seat["fields"]
            ]
            assert [t for t, n, _ in zones["fields"]["items"] if n] == [
                names_of[v] for v, n in seat["fields"] if n
            ]
            assert zones["hand"].get("items", []) == [names_of[c] for c in seat["hand"]]
            assert zones["hand"]["secret"]
            assert zones["trade_area"].get("items", []) == [names_of[c] for c in seat["trade_area"]]


def test_a_field_says_what_a_harvest_pays_now_and_the_move_list_says_every_move():
    seed = 11
    game, rules, log, names = played("bohnanza", "classic", ["trader", "planner", "random"], seed)
    film = film_of(game, rules, log, names, seed)
    texts = [film["texts"][m[0]] for m in film["moves"]]
    transcript = list(game.transcript(log, names))
    told = [t for t, m in zip(texts, film["moves"], strict=True) if m[1] != "quiet"]
    assert told == [line.strip().strip("=").strip() for line in transcript]
    assert all(texts)  # decisions have a line too (shown on request)
    tags = {m[1] for m in film["moves"]}
    assert {"turn", "trade", "offer", "harvest", "quiet", "end"} <= tags
    # a harvest: the field before it said what it now pays
    i = next(i for i, r in enumerate(log) if r[0] == "harvested" and r[5] > 0)
    _, seat, field, variety, n, coins = log[i]
    before = unpack(film, i - 1)[3][seat]["fields"]["items"][field]
    assert before[:2] == [rules.varieties[variety].name, n]
    assert before[2].startswith(f"a harvest pays {coins} coin")


def test_every_frame_of_the_dice_game_is_the_table_replay_shows():
    seed = 5
    game, rules, log, names = played(
        "wuerfel", "standard", ["wuerfel-greedy", "wuerfel-random", "wuerfel-greedy"], seed
    )
    film = film_of(game, rules, log, names, seed)
    assert len(film["frames"]) == len(log)
    for i in range(0, len(log), max(1, len(log) // 30)):
        turn, _, table, seats, _ = unpack(film, i)
        state = state_at(game, rules, log, names, seed, i)
        assert turn == state["turn"]
        assert table["draw_pile"]["value"] == cards(state["draw_pile"], "harvest card")
        for s, seat in enumerate(state["seats"]):
            zones = seats[s]
            assert zones["coins"]["value"] == str(seat["coins"])
            if seat["card"] >= 0:
                card = zones["harvest_card"]
                assert card["label"] == f"Harvest card {seat['card']}"
                marks = [note for _, _, note in card["items"]]
                assert marks.count("fulfilled") == seat["covered"]
                assert [t for t, _, note in card["items"] if note == "open"] == seat["open_orders"]


def test_the_page_fetches_nothing_and_no_text_escapes_its_data():
    film = {"texts": [ESCAPE], "meta": {"name": ESCAPE}}
    html = page(ESCAPE, film)
    # the data block is closed once, by the page itself
    assert html.count("</script>") == 2 and html.count("<script") == 2
    assert "<!--" not in html and "\u2028" not in html
    block = re.search(r'<script type="application/json" id="film">(.*?)</script>', html, re.S)
    assert json.loads(block.group(1)) == film
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert policy.startswith("default-src 'none'; ")
    assert "unsafe" not in policy and "http" not in policy
    # the policy allows exactly the page's own style and script, by hash
    inline = re.findall(r"<style>(.*?)</style>", html, re.S) + re.findall(
        r"<script>(.*?)</script>", html, re.S
    )
    for text in inline:
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert not re.search(r"<[a-z]+[^<>]*\s(src|href)=|url\(|@import", html, re.I)
    assert re.findall(r"<([a-z]+)", html) == re.findall(r"<([a-z]+)", page("", {}))
    assert "&lt;/script&gt;" in html.split("</title>")[0]  # the title, escaped
    assert script_json("</SCRIPT> <!-- \u2029") == '"\\u003c/SCRIPT\\u003e \\u003c!-- \\u2029"'


def test_play_html_writes_the_viewer_and_a_bots_note_stays_text(tmp_path):
    out = tmp_path / "m.html"
    bot = f"{HERE / 'hostile_notes.py'}:MarkupNoter"
    r = CliRunner().invoke(
        cli, ["play", "-s", "3", "-q", bot, "planner", "random", "--html", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert f"viewer: {out} (" in r.output
    html = out.read_text()
    assert "<img" not in html and html.count("</script>") == 2
    block = re.search(r'<script type="application/json" id="film">(.*?)</script>', html, re.S)
    film = json.loads(block.group(1))
    notes = [t for t in film["texts"] if "notes:" in t]
    assert notes and all(ESCAPE.replace("\u2028", "\\u2028") in t for t in notes)
    assert film["meta"]["seats"] == ["MarkupNoter", "planner", "random"]


def test_what_a_bot_says_shows_on_the_page_as_text(tmp_path):
    out = tmp_path / "m.html"
    bot = f"{HERE / 'hostile_notes.py'}:MarkupTalker"
    r = CliRunner().invoke(
        cli, ["play", "-s", "3", "-q", bot, "planner", "trader", "--html", str(out)]
    )
    assert r.exit_code == 0, r.output
    html = out.read_text()
    assert "<img" not in html and html.count("</script>") == 2 and "<!--" not in html
    block = re.search(r'<script type="application/json" id="film">(.*?)</script>', html, re.S)
    film = json.loads(block.group(1))
    said = [t for t in film["texts"] if "says:" in t]
    # the markup whole, as text (its line separator a space: a message is one line)
    assert said and all(ESCAPE.replace("\u2028", " ") in t for t in said)
    talk = [m for m in film["moves"] if film["texts"][m[0]] in said]
    assert talk and {m[1] for m in talk} == {"talk"}


@pytest.mark.slow
def test_view_writes_a_matchs_page_beside_its_results_or_where_asked(run_dir, tmp_path):
    r = CliRunner().invoke(cli, ["view", str(run_dir), "--match", "2"])
    assert r.exit_code == 0, r.output
    html = (run_dir / "match-2.html").read_text()
    meta = json.loads(
        re.search(r'id="film">(.*?)</script>', html, re.S).group(1).replace("\\u003c", "<")
    )["meta"]
    assert meta["name"] == "Match 2" and meta["rules"] == "Bohnanza, classic edition, 3 players"
    assert meta["where"].startswith("deal 0, table 0, rotation 2; seed ")
    out = tmp_path / "two.html"
    r = CliRunner().invoke(cli, ["view", str(run_dir), "-m", "2", "-o", str(out)])
    assert r.exit_code == 0 and out.read_text() == html


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["-m", "99"], 2, "no finished match 99"),
        ([], 2, "Missing option '--match'"),
    ],
)
def test_view_refuses_bad_requests_in_one_line(run_dir, args, code, message):
    r = CliRunner().invoke(cli, ["view", str(run_dir), *args])
    assert r.exit_code == code and message in r.output and "Traceback" not in r.output


def test_view_refuses_a_log_the_rules_do_not_replay(run_dir, tmp_path):
    from tests.run.test_replay import edit, tamper

    out = tamper(run_dir, tmp_path, lambda t: edit(t, 1, "harvested", 0, "coins", lambda c: c + 1))
    r = CliRunner().invoke(cli, ["view", str(out), "-m", "1"])
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: match 1 does not replay: move ")
    assert "(coins " in r.output and not (out / "match-1.html").exists()


def test_the_game_seam_a_game_without_a_viewer_is_told_so():
    class NoViewer:
        name = "toy"  # (and no capabilities: none)

    with pytest.raises(Exception, match="the game toy has no viewer"):
        viewer_of(NoViewer())  # type: ignore[arg-type]


def test_match_info_says_the_result_in_place_order():
    info = MatchInfo("G", "e", ("a", "bb"), 7, (3, 9), (2, 1), (1, 0), 12, 100)
    assert info.header() == [
        "A match: G, e edition, 2 players",
        "  seed 7",
        "Seats: 0 a, 1 bb",
        "Result (12 turns, 100 moves 0-99):",
        "   1. seat 1 bb   9 coins",
        "   2. seat 0 a    3 coins  (1 fault)",
    ]


def test_a_harvest_is_marked_on_its_seat_at_its_move_and_a_note_at_its_own():
    seed = 11
    specs = ["trader", f"{HERE / 'hostile_notes.py'}:MarkupNoter", "random"]
    game, rules, log, names = played("bohnanza", "classic", specs, seed)
    film = film_of(game, rules, log, names, seed)

    def marks(i, seat):
        return unpack(film, i)[3][seat]["badges"].get("items", [])

    i = next(i for i, r in enumerate(log) if r[0] == "harvested" and r[5] > 1)
    _, seat, _, variety, n, coins = log[i]
    paid = f"harvested {n} {rules.varieties[variety].name}: {coins} coins"
    assert paid in marks(i, seat)
    assert paid not in marks(i + 1, seat) and paid not in marks(i - 1, seat)
    j = next(j for j, r in enumerate(log) if r[0] == "note")
    noted = log[j][1]
    assert "note" in unpack(film, j)[3][noted]
    assert "note" not in unpack(film, j + 1)[3][noted]  # the next move has its own say
