"""The chain of what was played (docs/fairness.md, "The chain"): each
commit a link holding the hash of the one before; `verify` checks it is
whole, ends at the published head (or passes through a head noted
earlier), and that the results hold exactly the rows and side files it
committed, wherever a compaction put them."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bohnarena.store import chain
from tests.run import test_verify as played_league
from tests.run.test_verify import invoke, published
from tests.support.leagues import reseal

# the secret-seed league played and revealed once for the module
played = played_league.played
revealed = played_league.revealed


def lines(out):
    return (out / "chain.jsonl").read_text().splitlines()


def write_lines(out, found):
    (out / "chain.jsonl").write_text("".join(f"{line}\n" for line in found))


def relinked(found, commitment):
    """Every line's prev recomputed, as a forger would."""
    out, prev = [], chain.genesis(commitment)
    for line in found:
        body = json.loads(line)
        body["prev"] = prev
        line = json.dumps(body, sort_keys=True, separators=(",", ":"))
        out.append(line)
        prev = chain.link(line)
    return out


def public(out):
    return json.loads((out / "run.json").read_text())


def test_the_link_hashes_the_documented_text():
    import hashlib

    assert chain.link("x") == hashlib.sha256(b"bohnarena chain v1\x00x").hexdigest()
    assert chain.genesis("sha256:ab") == (
        hashlib.sha256(b"bohnarena chain v1\x00genesis\x00sha256:ab").hexdigest()
    )
    assert (
        chain.digest([{"b": 1, "a": [2.5]}]) == hashlib.sha256(b'{"a":[2.5],"b":1}\n').hexdigest()
    )


@pytest.mark.slow
def test_each_commit_is_linked_to_the_one_before(revealed):
    out = revealed[0]
    found = lines(out)
    kept = public(out)
    assert len(found) >= 2 and all('"commit"' in line for line in found)
    expected = chain.replay(found, kept["seed_commitment"])
    assert expected.problems == [] and kept["chain_head"] == expected.links[-1]
    assert sorted(expected.owner) == list(range(6))


@pytest.mark.slow
def test_a_link_dropped_or_reordered_breaks_the_chain(revealed, tmp_path):
    copy = published(revealed[0], tmp_path)
    found = lines(copy)
    write_lines(copy, [found[1], found[0], *found[2:]])
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    assert "chain line 1: not linked to the line before it" in r.output
    write_lines(copy, found[1:])
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1 and "chain line 1: not linked" in r.output
    assert "in the results, committed by no link" in r.output


@pytest.mark.slow
def test_a_row_edited_with_its_manifest_and_chain_recomputed_is_caught_by_the_noted_head(
    revealed, tmp_path
):
    """The forger rewrites the row, its part's manifest line, the chain
    from that link on, and run.json's head: everything published now agrees,
    but a participant noted the head before."""
    copy = published(revealed[0], tmp_path)
    noted = public(copy)["chain_head"]
    part = sorted((copy / "matches").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    ranks = table.column("coins").to_pylist()
    ranks[0] = [c + 5 for c in ranks[0]]
    index = table.schema.get_field_index("coins")
    table = table.set_column(
        index, table.schema.field(index), pa.array(ranks, pa.list_(pa.int32()))
    )
    pq.write_table(table, part)
    reseal(copy)
    commitment = public(copy)["seed_commitment"]
    rows = chain.table_rows(table)
    forged = []
    for line in lines(copy):
        body = json.loads(line)
        ids = set(chain.expand(body["ids"]))
        body["rows"] = chain.digest([r for r in rows if r["match_id"] in ids])
        forged.append(json.dumps(body))
    forged = relinked(forged, commitment)
    write_lines(copy, forged)
    kept = public(copy)
    kept["chain_head"] = chain.link(forged[-1])
    (copy / "run.json").write_text(json.dumps(kept))
    r = invoke("verify", copy, "-j", "1", "--head", noted)
    assert r.exit_code == 1
    assert f"the head {noted} noted earlier is not a link of the chain" in r.output
    assert "chain line" not in r.output.replace("not a link of the chain", "")


@pytest.mark.slow
def test_a_row_edited_without_the_chain_is_caught(revealed, tmp_path):
    copy = published(revealed[0], tmp_path)
    part = sorted((copy / "matches").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    turns = table.column("turns").to_pylist()
    turns[0] += 1
    index = table.schema.get_field_index("turns")
    table = table.set_column(index, table.schema.field(index), pa.array(turns, pa.int32()))
    pq.write_table(table, part)
    reseal(copy)
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    assert "their rows are not those committed at chain line" in r.output


@pytest.mark.slow
def test_a_noted_head_of_fewer_links_still_checks(revealed, tmp_path):
    copy = published(revealed[0], tmp_path)
    earlier = chain.link(lines(copy)[0])  # what a participant noted after the first commit
    r = invoke("verify", copy, "-j", "1", "--head", earlier)
    assert r.exit_code == 0, r.output


def organisers_copy(out, tmp_path):
    """The organiser's directory copied whole (its private file too), and the league file."""
    import shutil

    from tests.run.test_verify import LEAGUE

    copy = tmp_path / "own"
    shutil.copytree(out, copy)
    league = tmp_path / "v.toml"
    league.write_text(LEAGUE.format(seed='"secret"'))
    return copy, league


@pytest.mark.slow
def test_results_written_before_chains_are_adopted_by_the_next_run(revealed, tmp_path):
    from bohnarena.run.dispatch import run_league

    copy, league = organisers_copy(revealed[0], tmp_path)
    (copy / "chain.jsonl").unlink()
    kept = public(copy)
    del kept["chain_head"]
    (copy / "run.json").write_text(json.dumps({**kept, "log_format": 4}))
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 0 and "; no chain;" in r.output, r.output
    assert run_league(league, copy, workers=1, progress=False).played == 0
    (adopted,) = lines(copy)
    assert json.loads(adopted)["ids"] == [[0, 5]] and public(copy)["log_format"] == 5
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 0, r.output


@pytest.mark.slow
def test_a_repair_says_what_it_dropped_in_the_chain(revealed, tmp_path):
    from bohnarena.run.dispatch import run_league

    copy, league = organisers_copy(revealed[0], tmp_path)
    before = lines(copy)
    moves = sorted((copy / "moves").glob("part-*.parquet"))[-1]
    moves.unlink()  # damage: its matches are played again
    summary = run_league(league, copy, workers=1, progress=False)
    assert summary.played > 0
    after = lines(copy)
    assert after[: len(before)] == before  # only appended
    assert "dropped" in json.loads(after[len(before)])
    r = invoke("verify", copy, "-j", "1", "--head", chain.link(before[-1]))
    assert r.exit_code == 0, r.output


def forge_chain(copy):
    """The chain rewritten to what the files hold now, every link after the
    first changed one relinked, and run.json's head with it: what a forger
    publishes after an edit."""
    from bohnarena.store import manifest

    m = manifest.parse((copy / "manifest.jsonl").read_text())
    forged = []
    for line in lines(copy):
        body = json.loads(line)
        entry = m.live.get(body["commit"])
        if entry is not None:
            body["sides"] = {
                t: h.sha256 for t in ("moves", "timing", "exchanges") if (h := entry.half(t))
            }
        forged.append(json.dumps(body))
    kept = public(copy)
    forged = relinked(forged, kept["seed_commitment"])
    write_lines(copy, forged)
    (copy / "run.json").write_text(json.dumps({**kept, "chain_head": chain.link(forged[-1])}))


@pytest.mark.slow
def test_a_draw_edited_and_every_hash_after_it_recomputed_is_caught_three_ways(revealed, tmp_path):
    copy = published(revealed[0], tmp_path)
    noted = public(copy)["chain_head"]
    part = sorted((copy / "moves").glob("part-*.parquet"))[0]
    moves = pq.read_table(part)
    kinds = moves.column("kind").to_pylist()
    at = kinds.index("drew")
    mid = moves.column("match_id")[at].as_py()
    cards = moves.column("card").to_pylist()
    cards[at] = (cards[at] + 1) % 11
    index = moves.schema.get_field_index("card")
    field = moves.schema.field(index)
    pq.write_table(moves.set_column(index, field, pa.array(cards, field.type)), part)
    reseal(copy)
    forge_chain(copy)
    bots = tmp_path / "bots"  # (shipped bots: nothing to resolve there)
    bots.mkdir()
    r = invoke("verify", copy, "-j", "1")  # everything published now agrees, but:
    assert r.exit_code == 1
    said = r.output.splitlines()
    assert not any("chain line" in line for line in said)
    # the deck the seed deals does not give that draw
    assert any(
        line.startswith(f"match {mid}: move ") and 'the log has "draws' in line for line in said
    ), said
    r = invoke("verify", copy, "-j", "1", "--head", noted, "--bots", bots, "--replay", "all")
    assert r.exit_code == 1
    assert f"the head {noted} noted earlier is not a link of the chain" in r.output
    assert f"match {mid}: played again from the bots' files, move" in r.output


@pytest.mark.slow
def test_a_match_played_with_another_seed_is_caught_by_its_deck(revealed, tmp_path):
    """The organiser plays match 0 again under a seed of its own choosing
    (the same bots at the same seats), keeps the row's seed column the
    schedule's, and publishes it with the manifest and chain recomputed."""
    from bohnarena.run.dispatch import run_league
    from tests.run.test_verify import LEAGUE

    other = tmp_path / "other.toml"
    other.write_text(LEAGUE.format(seed=7))
    assert run_league(other, tmp_path / "o", workers=1, progress=False).complete
    copy = published(revealed[0], tmp_path)
    for table in ("matches", "moves"):
        part = sorted((copy / table).glob("part-*.parquet"))[0]
        ours = pq.read_table(part)
        theirs = pq.read_table(tmp_path / "o" / table)
        theirs = theirs.filter(pa.compute.equal(theirs["match_id"], 0)).select(ours.schema.names)
        if table == "matches":
            index = theirs.schema.get_field_index("seed")
            theirs = theirs.set_column(index, theirs.schema.field(index), ours["seed"].slice(0, 1))
            assert theirs["coins"] != ours["coins"].slice(0, 1)  # (another game)
        keep = ours.filter(pa.compute.not_equal(ours["match_id"], 0))
        pq.write_table(pa.concat_tables([theirs.cast(ours.schema), keep]), part)
    reseal(copy)
    rows = chain.table_rows(pq.read_table(copy / "matches"))
    forged = []
    for line in lines(copy):
        body = json.loads(line)
        ids = set(chain.expand(body["ids"]))
        body["rows"] = chain.digest([r for r in rows if r["match_id"] in ids])
        forged.append(json.dumps(body))
    write_lines(copy, forged)
    forge_chain(copy)
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    said = r.output.splitlines()
    assert not any("chain" in line for line in said[:-1]), said
    (line,) = [x for x in said if x.startswith("match 0: ")]
    assert line.startswith("match 0: move ") and "by the rules" in line


@pytest.mark.parametrize(
    ("option", "value"), [("--head", "xyz"), ("--head", "AB" * 32), ("--replay", "0")]
)
def test_a_bad_head_or_count_is_a_usage_error(tmp_path, option, value):
    r = invoke("verify", tmp_path, option, value)
    assert r.exit_code == 2 and f"Invalid value for {option}" in r.output
