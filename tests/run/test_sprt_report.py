"""`compare --sprt` reported as fastchess reports it (issue 25, part 1): the
LLR and decision equal an independent computation on the recorded data,
the counts printed are the decision's, the JSON validates against the
published schema, and the exit code says the decision."""

import json
import math
import random
import re
import statistics
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.cli.verdict import report, schema, schema_text, to_json
from bohnarena.rating.paired import Sprt
from bohnarena.run.compare import pair_up
from tests.support.leagues import HERE

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "docs" / "compare.schema.json"
SQUANDERER = f"{HERE / 'edge_bots.py'}:Squanderer"


def independent(deal_means, test):
    """Wald's SPRT on per-deal means, from the formula: (decision, deals, llr)."""
    llr = 0.0
    for n in range(1, len(deal_means) + 1):
        xs = deal_means[:n]
        m = sum(xs) / n
        var = max(statistics.variance(xs), 1e-9) if n > 1 else 1e-9
        llr = n * (test.h1 - test.h0) * (2 * m - test.h0 - test.h1) / (2 * var)
        if n >= test.min_n and llr >= math.log((1 - test.beta) / test.alpha):
            return "H1", n, llr
        if n >= test.min_n and llr <= math.log(test.beta / (1 - test.alpha)):
            return "H0", n, llr
    return None, len(deal_means), llr


def synthetic(deals, edge, seed):
    """Two matches a deal: a, then b, at the same seats; a's coins ``edge`` better on average."""
    rng, rows = random.Random(seed), []
    for d in range(deals):
        luck = rng.gauss(0, 3)
        for i, bot in enumerate(("a", "b")):
            mine = round(10 + luck + (edge if bot == "a" else 0) + rng.gauss(0, 2))
            rows.append(
                {
                    "match_id": 2 * d + i,
                    "deal": d,
                    "seats": [bot, "x"],
                    "coins": [mine, 10],
                    "ranks": [1, 2] if mine >= 10 else [2, 1],
                    "winners": [0] if mine >= 10 else [1],
                }
            )
    return rows


@pytest.mark.parametrize(("edge", "seed"), [(1.5, 1), (0.0, 2), (0.25, 3), (1.0, 4)])
def test_llr_and_decision_equal_an_independent_computation(edge, seed):
    rows = synthetic(300, edge, seed)
    test = Sprt(0.0, 0.5, 0.05, 0.05, 10)
    p = pair_up(rows, "a", "b", test, "coins")
    means = [rows[2 * d]["coins"][0] - rows[2 * d + 1]["coins"][0] for d in range(300)]
    decision, n, llr = independent(means, test)
    assert (p.decision, p.deals) == (decision, n) and p.llr == pytest.approx(llr)
    # every figure is the decision's: the matches up to it, the rest apart
    assert p.matches == 2 * n and p.after == len(rows) - 2 * n
    assert p.estimates()["coins"].mean == pytest.approx(statistics.fmean(means[:n]))
    text = "\n".join(report(p, test))
    assert f"LLR {llr:+.2f} (bounds -2.94, +2.94)" in text
    if decision:
        assert f"{decision} accepted on coins after {n} deals, {2 * n} matches" in text
        assert f"against b (B) at the decision: {n} deals, {n} pairs" in text
        assert f"{len(rows) - 2 * n} matches finished after the decision" in text
    else:
        assert "no decision after 300 deals" in text
    jsonschema.validate(to_json(p, test), schema())


def test_the_schema_is_published_and_up_to_date():
    jsonschema.Draft202012Validator.check_schema(schema())
    assert PUBLISHED.read_text() == schema_text()
    r = CliRunner().invoke(cli, ["schema", "--compare", "--out", str(PUBLISHED), "--check"])
    assert r.exit_code == 0, r.output


def read_recorded(out):
    """The matches table straight from its Parquet parts, in id order."""
    rows = []
    for part in sorted((Path(out) / "matches").glob("part-*.parquet")):
        rows += pq.read_table(part, columns=["match_id", "deal", "seats", "coins"]).to_pylist()
    return sorted(rows, key=lambda r: r["match_id"])


def deal_means(rows, a, b):
    """Per deal, the mean over pairs of A's coins minus B's (same seats, A for B)."""
    by_deal = {}
    for r in rows:
        by_deal.setdefault(r["deal"], []).append(r)
    out, counts = [], []
    for d in sorted(by_deal):
        mine = {}
        for r in by_deal[d]:
            who = a if a in r["seats"] else b
            key = tuple("*" if s == who else s for s in r["seats"])
            mine.setdefault(key, {})[who] = r["coins"][r["seats"].index(who)]
        diffs = [v[a] - v[b] for v in mine.values() if len(v) == 2]
        out.append(sum(diffs) / len(diffs))
        counts.append(len(by_deal[d]))
    return out, counts


@pytest.mark.slow
def test_a_recorded_comparison_reports_the_decision_it_took(tmp_path):
    out = tmp_path / "out"
    args = ["--against", "random", "-p", "3", "-j", "2", "--no-progress", "--out", str(out)]
    r = CliRunner().invoke(
        cli, ["compare", "planner", SQUANDERER, "--sprt", "--min-deals", "5", "-n", "40", *args]
    )
    assert r.exit_code == 0, r.output  # H1 accepted: exit 0
    rows = read_recorded(out)
    means, counts = deal_means(rows, "planner", "Squanderer")
    test = Sprt(0.0, 0.5, 0.05, 0.05, 5)
    decision, n, llr = independent(means, test)
    assert decision == "H1"
    matches = sum(counts[:n])
    assert f"LLR {llr:+.2f} (bounds -2.94, +2.94): H1 accepted on coins after {n} deals, " in (
        r.output
    )
    assert f"{matches} matches" in r.output
    after = len(rows) - matches
    assert (f"{after} matches finished after the decision" in r.output) == (after > 0)
    # the same directory read back as JSON, and a test that cannot decide yet

    def again(a, b, *more):
        return CliRunner().invoke(cli, ["compare", a, b, "--results", str(out), "--sprt", *more])

    data = json.loads(again("planner", "Squanderer", "--min-deals", "5", "--format", "json").output)
    jsonschema.validate(data, json.loads(PUBLISHED.read_text()))
    assert (data["sprt"]["decision"], data["deals"], data["matches"]) == ("H1", n, matches)
    assert data["sprt"]["llr"] == pytest.approx(llr) and data["after_decision"] == after
    wide = again("planner", "Squanderer", "--min-deals", "500", "--h1", "0.1")
    undecided = re.search(r"LLR [+-]\d+\.\d\d \(bounds .*\): no decision", wide.output)
    assert wide.exit_code == 4 and undecided
    worse = again("Squanderer", "planner", "--min-deals", "5")
    assert worse.exit_code == 3 and "H0 accepted on coins" in worse.output


def test_without_sprt_the_exit_code_is_zero_and_the_json_has_no_test():
    rows = synthetic(30, 0.0, 5)
    p = pair_up(rows, "a", "b")
    data = to_json(p, None)
    jsonschema.validate(data, schema())
    assert data["sprt"] is None and data["deals"] == 30 and data["after_decision"] == 0
