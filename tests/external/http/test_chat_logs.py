"""What a model seat costs and says, in the logs (issue 49, part 3): a
league with a model seat served by the scripted chat server writes an
exchanges table (docs/logs.md) whose rows are its decisions, faults
included; a league without one writes none; the parts are committed,
checked and replayed as every part is."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.report.html import write_report
from bohnarena.run.dispatch import run_league
from bohnarena.store.logbook import EXCHANGES_SCHEMA

from .chat_server import chat_server
from .test_chat_seat import TOKEN, _league

MARKUP = "<b>plant</b> & <script>x</script>"
#: A bad reply (markup in it), a good one, then nonsense till the retries are spent.
SCRIPT = [("say", MARKUP), ("first",)] + [("first",)] * 30 + [("say", "beans?")] * 3


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOHNARENA_TOKEN_LLM", TOKEN)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("llm")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BOHNARENA_TOKEN_LLM", TOKEN)
        with chat_server(list(SCRIPT)) as server:
            path = _league(tmp, server.url, retries=2)
            assert run_league(path, tmp / "out", workers=1, progress=False).complete
    return tmp / "out"


def _query(sql: str, out: Path) -> list[tuple[object, ...]]:
    return duckdb.sql(sql.replace("OUT", str(out))).fetchall()


@pytest.mark.slow
def test_a_model_seats_decisions_are_logged_with_their_prompts_replies_and_tokens(
    played: Path,
) -> None:
    talk = pq.read_table(played / "exchanges")
    assert talk.schema.equals(EXCHANGES_SCHEMA) and talk.num_rows > 10
    lines = [json.loads(x) for x in (played / "manifest.jsonl").read_text().splitlines()[1:]]
    assert all("exchanges" in x for x in lines if x.get("moves"))
    # each row's record in the moves is the model's own: its answer (timed
    # as every answer is), or its fault
    kinds = _query(
        """select mv.kind, e.decision, e.replies, e.reasons, e.retries, e.tokens_in,
                  e.tokens_out, e.prompt, t.decision, mv.decision
           from 'OUT/exchanges/*.parquet' e
           join 'OUT/moves/*.parquet' mv using (match_id, seq, seat)
           left join 'OUT/timing/*.parquet' t using (match_id, seq, seat)""",
        played,
    )
    assert len(kinds) == talk.num_rows
    for k in kinds:
        assert (k[0], k[9], k[8]) == (
            ("fault", k[1], None) if k[0] == "fault" else (k[1], None, k[1])
        )
    faults = [k for k in kinds if k[0] == "fault"]
    faulted = _query(
        """select sum(m.faults[list_position(m.seats, 'llm')])
           from 'OUT/matches/*.parquet' m""",
        played,
    )
    assert faulted == [(len(faults),)] and len(faults) == 1
    replies, reasons, retries, tokens_in, tokens_out = faults[0][2:7]
    assert replies == ["beans?"] * 3 and len(reasons) == 3 and retries == 2
    assert (tokens_in, tokens_out) == (300, 21)
    first = next(k for k in kinds if k[2][0] == MARKUP)
    assert first[4] == 1
    assert len(first[3]) == 1 and first[6] == 14
    assert all(k[7] and len(k[2]) == k[4] + 1 for k in kinds)


@pytest.mark.slow
def test_the_documented_query_joins_the_replies_to_their_moves(played: Path) -> None:
    doc = (Path(__file__).parents[3] / "docs" / "logs.md").read_text("utf-8")
    (query,) = [q for q in re.findall(r"```sql\n(.*?)```", doc, re.S) if "exchanges/" in q]
    rows = duckdb.sql(query.replace("results/quickstart", str(played))).fetchall()
    assert len(rows) == pq.read_table(played / "exchanges").num_rows
    assert {r[0] for r in rows} == {"llm"} and "fault" in {r[3] for r in rows}


@pytest.mark.slow
def test_verify_all_reads_the_exchanges_and_a_tampered_part_is_caught(
    played: Path, tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    ok = CliRunner().invoke(cli, ["replay", str(copy), "--verify-all", "-j", "1"])
    assert ok.exit_code == 0, ok.output
    part = sorted((copy / "exchanges").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    prompts = pa.array(["tampered"] * table.num_rows, pa.string())
    pq.write_table(table.set_column(4, "prompt", prompts), part)
    bad = CliRunner().invoke(cli, ["replay", str(copy), "--verify-all", "-j", "1"])
    assert bad.exit_code != 0 and part.name in bad.output and "exchanges" in bad.output


@pytest.mark.slow
def test_the_report_shows_what_the_model_cost_and_how_often_it_misspoke(
    played: Path, tmp_path: Path
) -> None:
    page = write_report(played, tmp_path / "report.html").read_text("utf-8")
    assert "Seats that play in words" in page
    t = pq.read_table(played / "exchanges").to_pylist()
    tokens = (sum(r["tokens_in"] for r in t) / 3, sum(r["tokens_out"] for r in t) / 3)
    replies = sum(len(r["replies"]) for r in t)
    section = page[page.index("Seats that play in words") :]
    section = section[: section.index("</table>")]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", section)
    assert cells[0] == "llm" and cells[1] == f"{len(t):,}"
    assert cells[2] == f"{tokens[0]:.0f} / {tokens[1]:.0f}"
    assert cells[4] == f"{sum(r['retries'] for r in t) / len(t):.2f}"
    assert cells[5] == f"{4 / replies:.1%}"  # the markup reply and the fault's three


def test_a_league_without_text_seats_writes_no_exchanges(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(
        'name = "plain"\nplayers = 3\ndeals = 1\nseed = 5\n'
        '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
    )
    assert run_league(path, tmp_path / "out", workers=1, progress=False).complete
    assert not list((tmp_path / "out" / "exchanges").glob("*.parquet"))
    lines = (tmp_path / "out" / "manifest.jsonl").read_text()
    assert "exchanges" not in lines
    page = write_report(tmp_path / "out").read_text("utf-8")
    assert "Faults and time" in page and "play in words" not in page


def _markup_reply(played: Path) -> tuple[int, int]:
    """The match and record of the decision the model first answered with markup."""
    rows = pq.read_table(played / "exchanges").to_pylist()
    (row,) = [r for r in rows if r["replies"][0] == MARKUP]
    return row["match_id"], row["seq"]


def _film(html: Path) -> dict[str, Any]:
    text = html.read_text("utf-8")
    block = text[text.index('id="film">') + len('id="film">') : text.index("</script>")]
    film: dict[str, Any] = json.loads(block)
    return film


@pytest.mark.slow
def test_the_viewer_page_holds_the_models_replies_as_text(played: Path, tmp_path: Path) -> None:
    match, seq = _markup_reply(played)
    html = tmp_path / "m.html"
    out = CliRunner().invoke(cli, ["view", str(played), "-m", str(match), "-o", str(html)])
    assert out.exit_code == 0, out.output
    film = _film(html)
    assert film["replies"][str(seq)] == [MARKUP, film["replies"][str(seq)][1]]
    assert "<b>plant" not in html.read_text("utf-8") and "<script>x" not in html.read_text("utf-8")
    # the report's pages (replay's writer) hold them too
    from bohnarena.run.replay import write_pages

    other = tmp_path / "w.html"
    assert write_pages(str(played), [(match, str(other))]) == [(match, None)]
    assert _film(other)["replies"] == film["replies"]


@pytest.mark.slow
def test_in_a_browser_the_reply_is_shown_beside_its_move_as_text(
    played: Path, tmp_path: Path
) -> None:
    from tests.report.test_report import CHROMIUM

    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("needs chromium")
    match, seq = _markup_reply(played)
    html = tmp_path / "m.html"
    CliRunner().invoke(cli, ["view", str(played), "-m", str(match), "-o", str(html)])
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready]")
            page.check("#all-moves")
            reply = page.inner_text(f'#moves li[data-i="{seq}"] .reply')
            assert reply == f"(after 1 refused reply) “{film_last(html, seq)}”"
            page.click(f'#moves li[data-i="{seq - 1}"]')
            page.keyboard.press("ArrowRight")
            assert page.inner_text("#move-reply") == reply
            assert page.locator("#moves b, #moves script, #now b").count() == 1  # (#move-no)
            assert errors == []
        finally:
            browser.close()


def film_last(html: Path, seq: int) -> str:
    return str(_film(html)["replies"][str(seq)][-1])


@pytest.mark.slow
def test_a_damaged_exchanges_part_is_played_again_and_shards_merge_with_theirs(
    tmp_path: Path,
) -> None:
    with chat_server() as server:
        path = _league(tmp_path, server.url)
        with path.open("a") as f:
            f.write("[run]\nbatch_size = 1\n")
        shards = [tmp_path / f"shard{k}" for k in (1, 2)]
        for k, out in enumerate(shards, 1):
            assert run_league(path, out, workers=1, progress=False, shard=(k, 2)).complete
        whole = pq.read_table(shards[0] / "exchanges").num_rows
        damaged = sorted((shards[0] / "exchanges").glob("part-*.parquet"))[0]
        damaged.write_bytes(damaged.read_bytes()[:100])  # cut short
        assert run_league(path, shards[0], workers=1, progress=False, shard=(1, 2)).complete
    assert pq.read_table(shards[0] / "exchanges").num_rows == whole
    merged = tmp_path / "merged"
    out = CliRunner().invoke(cli, ["merge", str(merged), *map(str, shards)])
    assert out.exit_code == 0, out.output
    rows = pq.read_table(merged / "exchanges")
    assert rows.num_rows == sum(pq.read_table(s / "exchanges").num_rows for s in shards)
    assert sorted(set(rows["match_id"].to_pylist())) == [0, 1, 2]
    ok = CliRunner().invoke(cli, ["replay", str(merged), "--verify-all", "-j", "1"])
    assert ok.exit_code == 0, ok.output


@pytest.mark.slow
@pytest.mark.parametrize("hand_over", ["files", "tables", "records"])
def test_every_hand_over_brings_the_exchanges_to_the_run(tmp_path: Path, hand_over: str) -> None:
    from itertools import islice
    from multiprocessing.reduction import ForkingPickler

    from bohnarena.league.file import load_league
    from bohnarena.league.schedule import schedule
    from bohnarena.run import worker

    with chat_server() as server:
        spec = load_league(_league(tmp_path, server.url))
        matches = tuple(islice(schedule(list(spec.bots), 3, 1, spec.seed), 1))
        task = worker.BatchTask(
            spec.game, spec.edition, 3, spec.rules, spec.bots, matches, True, str(tmp_path),
            hand_over=hand_over,  # type: ignore[arg-type]
        )  # fmt: skip
        result = worker.built(pickle.loads(ForkingPickler.dumps(worker.play_batch(task))))
    talk = result.exchanges
    table = pq.read_table(talk) if isinstance(talk, Path) else talk
    assert table is not None and table.schema.equals(EXCHANGES_SCHEMA)
    assert table.num_rows == len([r for r in server.requests if "body" in r])
    assert set(table["match_id"].to_pylist()) == {matches[0].id}
