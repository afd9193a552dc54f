"""What `bohnarena compare` reports: the paired figures and the SPRT as
fastchess reports one (the log-likelihood ratio with its bounds, the
decision and where it was taken), in text or as JSON of a published schema
(docs/compare.schema.json), and the exit code a CI gates on
(docs/statistics.md)."""

from __future__ import annotations

import json
import math
from typing import Any

from ..core.text import plural
from ..rating.paired import LEVEL, Sprt
from ..run.compare import METRICS, Pairing

#: `compare --sprt`'s exit codes (1, 2 and 130 are taken: error, usage, interrupted).
EXIT = {"H1": 0, "H0": 3, None: 4}
#: The JSON's version: a change that breaks a reader bumps it.
VERSION = 1
UNITS = {"coins": "coins", "place": "places", "win": "wins"}
WHAT = {
    "coins": "A's coins minus B's",
    "place": "B's finishing place minus A's (positive: A finishes ahead)",
    "win": "1 if A won and B did not, -1 the other way round, else 0",
}


def exit_code(pairing: Pairing) -> int:
    return EXIT[pairing.decision]


def hypotheses(sprt: Sprt, metric: str) -> str:
    return (
        f"SPRT on {metric} (A - B per deal, in {UNITS[metric]}): H0 {sprt.h0:g}, "
        f"H1 {sprt.h1:g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}"
    )


def verdict(pairing: Pairing, sprt: Sprt) -> str:
    """The LLR with its bounds, then the decision and the counts it was taken on."""
    llr = f"LLR {pairing.llr:+.2f} (bounds {sprt.lower:+.2f}, {sprt.upper:+.2f})"
    counted = f"{plural(pairing.deals, 'deal')}, {plural(pairing.matches, 'match')}"
    if pairing.decision is None:
        return f"{llr}: no decision after {counted}: play more deals (--deals)"
    return f"{llr}: {pairing.decision} accepted on {pairing.metric} after {counted}"


def notes(pairing: Pairing, sprt: Sprt) -> list[str]:
    """A sentence for every figure shown beside the test: none is what it decided on."""
    others = ", ".join(m for m in METRICS if m != pairing.metric)
    lines = [
        f"The SPRT decided on the {pairing.metric} LLR alone. Beside it:",
        "- mean and 95% interval: fixed-sample Student-t figures on the same deals, "
        "as if their number had been chosen in advance; not what the test decided on.",
        f"- p: a fixed-sample t-test of A - B = 0, not the SPRT (which weighs H0 "
        f"{sprt.h0:g} against H1 {sprt.h1:g}: a small real edge fits H0 better, so "
        "p can be below 0.05 when H0 is accepted), and no valid p-value after a "
        "sequential stop.",
        f"- {others}: not tested.",
    ]
    if pairing.after:
        lines.append(
            f"{plural(pairing.after, 'match')} finished after "
            "the decision (in flight, or later in the directory): no figure here counts them."
        )
    return lines


def report(pairing: Pairing, sprt: Sprt | None) -> list[str]:
    """What `bohnarena compare` prints."""
    at = " at the decision" if pairing.decision is not None else ""
    by_deal = f", {pairing.by_deal} matches paired by deal" if pairing.by_deal else ""
    lines = [
        f"{pairing.a} (A) against {pairing.b} (B){at}: {plural(pairing.deals, 'deal')}, "
        f"{pairing.pairs} pairs of matches{by_deal} ({pairing.unpaired} unpaired matches)",
        f"{'A - B':<7} {'mean':>8} {'95% interval':>22} {'p':>8}",
    ]
    for m, e in pairing.estimates().items():
        lo, hi = e.interval()
        lines.append(f"{m:<7} {e.mean:>+8.3f} {f'[{lo:+.3f}, {hi:+.3f}]':>22} {e.p_value:>8.4f}")
    lines.append("(place: B's place minus A's; positive means A does better)")
    if sprt is not None:
        lines += ["", hypotheses(sprt, pairing.metric), verdict(pairing, sprt)]
        lines += notes(pairing, sprt)
    return lines


def finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_json(pairing: Pairing, sprt: Sprt | None) -> dict[str, Any]:
    """The report as data: see :func:`schema` (docs/compare.schema.json)."""
    figures = {}
    for m, e in pairing.estimates().items():
        lo, hi = e.interval()
        figures[m] = {
            "mean": e.mean,
            "low": finite(lo),
            "high": finite(hi),
            "p": e.p_value,
            "sd": e.sd,
        }
    test = None
    if sprt is not None:
        test = {
            "metric": pairing.metric,
            "h0": sprt.h0,
            "h1": sprt.h1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "min_deals": sprt.min_n,
            "llr": pairing.llr,
            "lower": sprt.lower,
            "upper": sprt.upper,
            "decision": pairing.decision,
            "exit_code": exit_code(pairing),
        }
    return {
        "version": VERSION,
        "a": pairing.a,
        "b": pairing.b,
        "deals": pairing.deals,
        "matches": pairing.matches,
        "pairs": pairing.pairs,
        "by_deal": pairing.by_deal,
        "unpaired": pairing.unpaired,
        "after_decision": pairing.after,
        "interval": {"level": LEVEL, "method": "student-t over per-deal mean differences"},
        "figures": figures,
        "sprt": test,
    }


def schema() -> dict[str, Any]:
    """The JSON Schema of `compare --format json` (published as docs/compare.schema.json)."""
    number = {"type": "number"}
    count = {"type": "integer", "minimum": 0}
    bound = {"type": ["number", "null"], "description": "null: fewer than 2 deals"}
    figure = {
        "type": "object",
        "required": ["mean", "low", "high", "p", "sd"],
        "additionalProperties": False,
        "properties": {
            "mean": {**number, "description": "mean over deals of the deal's mean difference"},
            "low": bound,
            "high": bound,
            "p": {**number, "description": "two-sided fixed-sample t-test of A - B = 0"},
            "sd": {**number, "description": "sample standard deviation of the deal means"},
        },
    }
    sprt = {
        "type": ["object", "null"],
        "description": "null without --sprt",
        "required": [
            "metric",
            "h0",
            "h1",
            "alpha",
            "beta",
            "min_deals",
            "llr",
            "lower",
            "upper",
            "decision",
            "exit_code",
        ],
        "additionalProperties": False,
        "properties": {
            "metric": {"enum": list(METRICS), "description": "what the test decided on"},
            "h0": number,
            "h1": number,
            "alpha": number,
            "beta": number,
            "min_deals": count,
            "llr": {**number, "description": "log-likelihood ratio at the decision (or now)"},
            "lower": {**number, "description": "H0 is accepted at or below: log(beta/(1-alpha))"},
            "upper": {**number, "description": "H1 is accepted at or above: log((1-beta)/alpha)"},
            "decision": {"enum": ["H1", "H0", None], "description": "null: undecided"},
            "exit_code": {"enum": sorted(set(EXIT.values())), "description": "H1 0, H0 3, none 4"},
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://bohnarena.invalid/compare.schema.json",
        "title": "bohnarena compare --format json",
        "description": (
            "A paired comparison of bot A with bot B: per-deal mean differences A - B. "
            "With an SPRT every count and figure is the one at its decision."
        ),
        "type": "object",
        "required": [
            "version",
            "a",
            "b",
            "deals",
            "matches",
            "pairs",
            "by_deal",
            "unpaired",
            "after_decision",
            "interval",
            "figures",
            "sprt",
        ],
        "additionalProperties": False,
        "properties": {
            "version": {"const": VERSION},
            "a": {"type": "string"},
            "b": {"type": "string"},
            "deals": {**count, "description": "deals with at least one pair"},
            "matches": {**count, "description": "matches read, up to the decision"},
            "pairs": {**count, "description": "pairs of matches seat for seat"},
            "by_deal": {
                **count,
                "description": "matches paired by deal: no seat-exact twin (docs/statistics.md)",
            },
            "unpaired": count,
            "after_decision": {**count, "description": "matches read after the decision"},
            "interval": {
                "type": "object",
                "required": ["level", "method"],
                "properties": {"level": number, "method": {"type": "string"}},
            },
            "figures": {
                "type": "object",
                "required": list(METRICS),
                "additionalProperties": False,
                "properties": {
                    m: {**figure, "description": f"A - B in {UNITS[m]}: {WHAT[m]}"} for m in METRICS
                },
            },
            "sprt": sprt,
        },
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=2) + "\n"
