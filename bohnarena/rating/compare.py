"""A paired A/B comparison of two bots (docs/statistics.md).

Two matches are a pair when they share the deal and every seat but the
ones A and B hold, which are swapped: B sits where A sat (with A away, or
A sitting where B sat at a table of both). The same deck, the same
opponents in the same seats. The ``paired`` format schedules exactly such
pairs (schedule.py); any other results directory where both bots played is
searched for them, and when its design has none, :func:`why_unpaired`
says why and which setting would give them. Each pair gives a difference
A - B in coins, in place (B's place minus A's: positive when A finishes
ahead) and in wins; the observation is a deal's mean difference, since a
deal's matches share a deck and different deals are independent.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..league.file import NAME, League, parse_league
from ..league.services import cli_table, is_url
from .paired import Estimate, Running, Sprt

METRICS = ("coins", "place", "win")
#: Stands for A or B in a pair's key.
SWAPPED = "\0"
#: Stand for A and B in the key of a table where both sit.
A_SEAT, B_SEAT = "\1", "\2"


def side(row: Mapping[str, Any], bot: str) -> dict[str, float]:
    """How ``bot`` did in a match (means over its seats: few bots fill two)."""
    seats = [s for s, b in enumerate(row["seats"]) if b == bot]
    n = len(seats)
    return {
        "coins": sum(row["coins"][s] for s in seats) / n,
        "place": -sum(row["ranks"][s] for s in seats) / n,  # higher is better, as for coins
        "win": sum(s in row["winners"] for s in seats) / n,
    }


Key = tuple[str, ...]  # the seats, A's or B's shown as SWAPPED


@dataclass
class Deal:
    """The pairs of one deal found so far; matches waiting for their twin."""

    number: int
    matches: int = 0
    waiting: dict[bool, dict[Key, list[dict[str, float]]]] = field(
        default_factory=lambda: {True: {}, False: {}}  # by "is A's"
    )
    #: Tables of both, by seats (A_SEAT, B_SEAT): A's side and B's side.
    meetings: dict[Key, list[tuple[dict[str, float], dict[str, float]]]] = field(
        default_factory=dict
    )
    diffs: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in METRICS})

    def waiting_count(self) -> int:
        alone = sum(len(w) for by_key in self.waiting.values() for w in by_key.values())
        return alone + sum(len(w) for w in self.meetings.values())

    def means(self) -> dict[str, float]:
        return {m: sum(d) / len(d) for m, d in self.diffs.items()}


class Pairing:
    """Feeds on matches rows in deal order (a deal is over when a later
    deal's match comes: id order, unless a league grew by bots) and keeps
    every metric's per-deal differences; an optional SPRT on one metric is
    updated as each deal closes."""

    def __init__(self, a: str, b: str, sprt: Sprt | None = None, metric: str = "coins") -> None:
        self.a, self.b, self.sprt, self.metric = a, b, sprt, metric
        self.deal: Deal | None = None
        self.running = {m: Running() for m in METRICS}
        self.decision: str | None = None
        self.llr = 0.0  # the SPRT's log-likelihood ratio on the deals counted
        self.matches = self.pairs = self.unpaired = 0
        #: Matches read after the SPRT decided (in flight when it did, or
        #: later in a results directory): no figure counts them.
        self.after = 0

    def add(self, row: Mapping[str, Any]) -> None:
        if self.deal is None or row["deal"] != self.deal.number:
            self.close()
            if self.decision is not None:
                self.after += 1
                return
            self.deal = Deal(row["deal"])
        self.deal.matches += 1
        seats = row["seats"]
        is_a = self.a in seats
        if is_a and self.b in seats:
            self.meet(row)
            return
        if not is_a and self.b not in seats:
            return
        me = self.a if is_a else self.b
        key = tuple(SWAPPED if s == me else s for s in seats)
        mine = side(row, me)
        twins = self.deal.waiting[not is_a].get(key)
        if not twins:  # first of its pair (a table of repeated bots may hold several)
            self.deal.waiting[is_a].setdefault(key, []).append(mine)
            return
        theirs = twins.pop(0)
        a, b = (mine, theirs) if is_a else (theirs, mine)
        self.paired(a, b)

    def paired(self, a: Mapping[str, float], b: Mapping[str, float]) -> None:
        assert self.deal is not None
        for m in METRICS:
            self.deal.diffs[m].append(a[m] - b[m])
        self.pairs += 1

    def meet(self, row: Mapping[str, Any]) -> None:
        """A table of both: its twin has A and B swapped, so A's seats are
        compared with B's in the same seats (the mean of the two matches)."""
        assert self.deal is not None
        seats, a, b = row["seats"], self.a, self.b
        key = tuple(A_SEAT if s == a else B_SEAT if s == b else s for s in seats)
        twin = tuple(B_SEAT if s == a else A_SEAT if s == b else s for s in seats)
        mine = (side(row, a), side(row, b))
        found = self.deal.meetings.get(twin)
        if not found:
            self.deal.meetings.setdefault(key, []).append(mine)
            return
        theirs = found.pop(0)
        self.paired(
            *({m: (x[m] + y[m]) / 2 for m in METRICS} for x, y in zip(mine, theirs, strict=True))
        )

    def close(self) -> None:
        """The current deal is over (or the rows are): its differences count."""
        deal, self.deal = self.deal, None
        if deal is None:
            return
        self.matches += deal.matches
        self.unpaired += deal.waiting_count()
        if not deal.diffs["coins"]:
            return
        means = deal.means()
        for m in METRICS:
            self.running[m].add(means[m])
        if self.sprt is not None:  # the counts stop here once it decides (add)
            e = self.running[self.metric].estimate()
            self.llr, self.decision = self.sprt.llr(e), self.sprt.decision(e)

    @property
    def deals(self) -> int:
        """Deals with at least one pair (the test's observations)."""
        return self.running["coins"].n

    def estimates(self) -> dict[str, Estimate]:
        return {m: r.estimate() for m, r in self.running.items()}


def pair_up(
    rows: Iterable[Mapping[str, Any]],
    a: str,
    b: str,
    sprt: Sprt | None = None,
    metric: str = "coins",
) -> Pairing:
    """The pairing of every match of ``rows`` (in id order)."""
    pairing = Pairing(a, b, sprt, metric)
    for row in rows:
        pairing.add(row)
    pairing.close()
    return pairing


def bot_names(specs: Iterable[str], taken: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(league name, spec) for each ``NAME=SPEC`` or ``SPEC``: a spec's name
    is itself when it can be one, else its class (or file) name; repeated
    names get -2, -3, ..."""
    used = set(taken)
    out = []
    for given in specs:
        name, sep, spec = given.partition("=")
        if not sep or ":" in name:
            name, spec = "", given
        if not name and is_url(spec):  # its host and port
            name = urlsplit(spec.strip()).netloc.rpartition("@")[2].replace(":", "-")
        if not name:
            name = spec if NAME.match(spec) else spec.rpartition(":")[2] or Path(spec).stem
            name = re.sub(r"[^A-Za-z0-9._-]", "-", name).strip("-.") or "bot"
        base, k = name, 1
        while name in used:
            k += 1
            name = f"{base}-{k}"
        used.add(name)
        out.append((name, spec))
    return out


def toml_value(value: Any) -> str:
    """A rule option's value as TOML (json's strings, numbers and lists are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return json.dumps(value)


def league_text(
    a: tuple[str, str],
    b: tuple[str, str],
    opponents: list[tuple[str, str]],
    settings: Mapping[str, Any],
    rules: Mapping[str, Any],
    batch_size: int = 0,
    moves: bool = False,
) -> str:
    """The league file of a comparison: format ``paired``, A the hero, B the
    challenger. The same arguments give the same text, so running the same
    comparison again resumes it."""
    head = {**settings, "format": "paired", "hero": a[0], "challenger": b[0]}
    lines = [f"{k} = {toml_value(v)}" for k, v in head.items()]
    if rules:
        lines += ["", "[rules]", *(f"{k} = {toml_value(v)}" for k, v in rules.items())]
    lines += ["", "[run]", f"batch_size = {batch_size}", f"moves = {toml_value(moves)}"]
    lines += ["", "[bots]", *(f"{_key(n)} = {_bot_value(s)}" for n, s in (a, b, *opponents))]
    return "\n".join(lines) + "\n"


def _key(name: str) -> str:
    """A bot's name as a TOML key: bare where it can be (as comparisons have
    always written it, so they resume), else quoted (a dot would nest it)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _bot_value(spec: str) -> str:
    """A bot's value in a comparison's league file: its spec, or the table
    of a URL given on the command line (league/services.py)."""
    if not is_url(spec):
        return json.dumps(spec)
    pairs = (f"{k} = {toml_value(v)}" for k, v in cli_table(spec).items())
    return "{ " + ", ".join(pairs) + " }"


def compare_league(
    a: tuple[str, str],
    b: tuple[str, str],
    opponents: list[tuple[str, str]],
    settings: Mapping[str, Any],
    rules: Mapping[str, Any],
    moves: bool = False,
) -> League:
    """The comparison's league. A batch is at most a deal's matches, so that
    a sequential test stops the run soon after it decides (the same with and
    without one: the same comparison resumes either way)."""
    text = league_text(a, b, opponents, settings, rules, 0, moves)
    per_deal = parse_league(tomllib.loads(text), text, "compare").per_deal
    text = league_text(a, b, opponents, settings, rules, min(per_deal, 50), moves)
    return parse_league(tomllib.loads(text), text, "compare")


def deal_major(results: str | Path) -> bool:
    """Whether a results directory's ids run deal by deal (not so once its
    league grew by bots: their new tables play the earlier deals)."""
    from ..league.file import load_league
    from ..store.audit import Auditor
    from ..store.directory import RunDir

    store = RunDir(results)
    league = load_league(store.path / "league.toml")
    return Auditor.for_run(league, store.meta()).schedule.deal_major


def compare_results(results: str, a: str, b: str, test: Any, metric: str) -> Any:
    """Pair A's and B's matches in an existing results directory."""
    from ..core.errors import UsageError
    from ..store.audited import open_run
    from ..store.parts import read_again
    from .inorder import COLUMNS as FOLLOW_COLUMNS

    run = open_run(results)
    for bot in (a, b):
        if bot not in run.league.bots:
            raise UsageError(f"{bot!r} is not a bot of {results} ({', '.join(run.league.bots)})")
    plan = run.auditor.schedule

    def rows() -> Iterable[Mapping[str, Any]]:
        found = run.standings(FOLLOW_COLUMNS)
        if plan.deal_major:
            return found
        # A league that grew by bots has a deal's matches in several blocks.
        return sorted(found, key=lambda row: (row["deal"], row["match_id"]))

    pairing = read_again(lambda: pair_up(rows(), a, b, test, metric))
    if not pairing.pairs:
        raise UsageError(
            f"no pairs of matches of {a} and {b} in {results}: " + why_unpaired(run.league, a, b)
        )
    return pairing


def design_pairs(league: League, a: str, b: str, seatings: str) -> int:
    """Pairs of matches of one deal that ``league``'s tables give under ``seatings``."""
    from ..league.schedule import format_tables
    from ..league.schedule import seatings as orders

    tables = format_tables(
        list(league.bots), league.players, league.format, league.hero, league.challenger
    )
    pairing = Pairing(a, b)
    blank = {"coins": [0] * league.players, "ranks": [1] * league.players, "winners": []}
    for table in tables:
        for order in orders(league.players, seatings):
            pairing.add({**blank, "deal": 0, "seats": [table[p] for p in order]})
    pairing.close()
    return pairing.pairs


def why_unpaired(league: League, a: str, b: str) -> str:
    """Why a league's matches hold no pair of A's and B's, and which setting would."""
    here = design_pairs(league, a, b, league.seatings)
    if here:
        return (
            f"its design gives {here} pairs of matches a deal, but no pair has finished "
            "yet: run the league on"
        )
    if league.players < 2 or a == b:
        return "a bot is only compared with another one"
    from ..league.schedule import format_tables

    tables = format_tables(
        list(league.bots), league.players, league.format, league.hero, league.challenger
    )
    apart = [t for t in tables if (a in t) != (b in t)]
    if not apart:
        why = f"{a} and {b} sit at the same table in every match"
    else:
        why = (
            f"the tables of {a} without {b} and of {b} without {a} hold their opponents in "
            f"different orders ({a} and {b} stand apart in the league file's order of bots)"
        )
    why += f" ({league.format}, {len(league.bots)} bots for {league.players} seats)"
    if league.seatings == "rotations":
        why += (
            ", and rotations never seat a table with two bots swapped (they keep its "
            "order, the league file's)"
        )
        other = design_pairs(league, a, b, "permutations")
        if other:
            return why + f'; seatings = "permutations" gives {other} pairs of matches a deal'
    return why + "; no seating of this format pairs them: compare them with `compare A B`"
