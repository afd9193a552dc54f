"""A paired A/B comparison of two bots (docs/statistics.md).

Two matches are a pair when they share the deal and every seat but the
ones A and B hold, which are swapped: B sits where A sat (with A away, or
A sitting where B sat at a table of both). The same deck, the same
opponents in the same seats. The ``paired`` format schedules exactly such
pairs (schedule.py), and a permutations league holds them for every match.
What no twin pairs is paired **by deal**: A's matches of a deal against
some opponents (the same opponents for both, each in every seat alike)
against B's, or at a table of both (each in every seat alike) A's side
against B's in the same matches; rotations leagues pair that way. Each
pair, or each such group, gives a difference A - B in coins, in place
(B's place minus A's: positive when A finishes ahead) and in wins; the
observation is a deal's mean difference (each match counting the same),
since a deal's matches share a deck and different deals are independent.
When neither pairing finds anything, :func:`why_unpaired` says why.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tomli_w

from ..core.entry import NAME
from ..core.errors import UsageError
from ..core.services import cli_table, is_url
from ..league.file import League, parse_league
from ..rating.paired import Estimate, Running, Sprt
from ..store import layout

METRICS = ("coins", "place", "win")
#: Stands for A or B in a pair's key.
SWAPPED = "\0"
#: Stand for A and B in the key of a table where both sit.
A_SEAT, B_SEAT = "\1", "\2"


Side = dict[str, float]  # how a bot did: a value per metric


def side(row: Mapping[str, Any], bot: str) -> Side:
    """How ``bot`` did in a match (means over its seats: few bots fill two)."""
    seats = [s for s, b in enumerate(row["seats"]) if b == bot]
    n = len(seats)
    return {
        "coins": sum(row["coins"][s] for s in seats) / n,
        "place": -sum(row["ranks"][s] for s in seats) / n,  # higher is better, as for coins
        "win": sum(s in row["winners"] for s in seats) / n,
    }


Key = tuple[str, ...]  # the seats, A's or B's shown as SWAPPED


def mean_side(sides: list[Side]) -> Side:
    return {m: sum(s[m] for s in sides) / len(sides) for m in METRICS}


def others(key: Key) -> Key:
    """The opponents of a key's table but A and B, in a fixed order."""
    return tuple(sorted(s for s in key if s not in (SWAPPED, A_SEAT, B_SEAT)))


def every_seat_alike(keys: list[Key], mark: str) -> bool:
    """Whether the marked bot sits in every seat equally often over these
    matches (so no seat favours it against the other side)."""
    counts = Counter(s for key in keys for s, x in enumerate(key) if x == mark)
    return len(counts) == len(keys[0]) and len(set(counts.values())) == 1


@dataclass
class Deal:
    """The pairs of one deal found so far; matches waiting for their twin."""

    number: int
    matches: int = 0
    waiting: dict[bool, dict[Key, list[Side]]] = field(
        default_factory=lambda: {True: {}, False: {}}  # by "is A's"
    )
    #: Tables of both, by seats (A_SEAT, B_SEAT): A's side and B's side.
    meetings: dict[Key, list[tuple[Side, Side]]] = field(default_factory=dict)
    #: Each pair's or group's difference with its weight: half the matches it compares.
    diffs: list[tuple[float, Side]] = field(default_factory=list)
    by_deal: int = 0  # matches compared by deal (no seat-exact twin)

    def waiting_count(self) -> int:
        alone = sum(len(w) for by_key in self.waiting.values() for w in by_key.values())
        return alone + sum(len(w) for w in self.meetings.values()) - self.by_deal

    def compared(self, matches: int, diff: Side) -> None:
        self.diffs.append((matches / 2, diff))

    def pair_by_deal(self) -> None:
        """What no twin paired, A's against B's by opponents (docs/statistics.md):
        A's matches without B against B's without A with the same opponents,
        and tables of both, A's side against B's in the same matches, where
        each sits in every seat alike."""
        apart: dict[Key, dict[bool, list[tuple[Key, Side]]]] = {}
        for is_a, by_key in self.waiting.items():
            for key, sides in by_key.items():
                alone = apart.setdefault(others(key), {True: [], False: []})
                alone[is_a] += [(key, s) for s in sides]
        for a, b in ((alone[True], alone[False]) for alone in apart.values()):
            if a and b and all(every_seat_alike([k for k, _ in x], SWAPPED) for x in (a, b)):
                mine, theirs = mean_side([s for _, s in a]), mean_side([s for _, s in b])
                self.compared(len(a) + len(b), {m: mine[m] - theirs[m] for m in METRICS})
                self.by_deal += len(a) + len(b)
        together: dict[Key, list[tuple[Key, tuple[Side, Side]]]] = {}
        for key, found in self.meetings.items():
            together.setdefault(others(key), []).extend((key, both) for both in found)
        for table in together.values():
            keys = [k for k, _ in table]
            if table and every_seat_alike(keys, A_SEAT) and every_seat_alike(keys, B_SEAT):
                mine, theirs = (mean_side([both[i] for _, both in table]) for i in (0, 1))
                self.compared(len(table), {m: mine[m] - theirs[m] for m in METRICS})
                self.by_deal += len(table)

    def means(self) -> Side:
        total = sum(w for w, _ in self.diffs)
        return {m: sum(w * d[m] for w, d in self.diffs) / total for m in METRICS}


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
        self.by_deal = 0  # matches compared by deal, not seat for seat
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

    def paired(self, a: Side, b: Side) -> None:
        assert self.deal is not None
        self.deal.compared(2, {m: a[m] - b[m] for m in METRICS})
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
        deal.pair_by_deal()
        self.matches += deal.matches
        self.by_deal += deal.by_deal
        self.unpaired += deal.waiting_count()
        if not deal.diffs:
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
    names get -2, -3, ... A spec holding bytes that are not UTF-8 (a
    file's name) is refused: no league file can hold it."""
    used = set(taken)
    out = []
    for given in specs:
        try:
            given.encode()
        except UnicodeEncodeError:
            raise UsageError(f"bot {given!r} holds bytes that are not UTF-8: rename it") from None
        name, sep, spec = given.partition("=")
        if not sep or ":" in name or "?" in name:  # no name, a parameter's "=" ("trader?wants=3")
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
    challenger. Written by a TOML writer, so that any spec reads back as
    itself (json wrote an emoji as two escaped surrogates, which TOML
    forbids). The same arguments give the same text, so running the same
    comparison again resumes it."""
    head = {**settings, "format": "paired", "hero": a[0], "challenger": b[0]}
    league: dict[str, Any] = {**head, **({"rules": dict(rules)} if rules else {})}
    league["run"] = {"batch_size": batch_size, "moves": moves}
    league["bots"] = {n: _bot_value(s) for n, s in (a, b, *opponents)}
    return tomli_w.dumps(league)


def _bot_value(spec: str) -> str | dict[str, Any]:
    """A bot's value in a comparison's league file: its spec, or the table
    of a URL given on the command line (core/services.py)."""
    return cli_table(spec) if is_url(spec) else spec


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
    league = load_league(store.path / layout.LEAGUE, frozen=True)
    return Auditor.for_run(league, store.meta()).schedule.deal_major


def compare_results(results: str, a: str, b: str, test: Any, metric: str) -> Any:
    """Pair A's and B's matches in an existing results directory."""
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
    if not pairing.pairs and not pairing.by_deal:
        raise UsageError(
            f"no pairs of matches of {a} and {b} in {results}: " + why_unpaired(run.league, a, b)
        )
    return pairing


def design_compares(league: League, a: str, b: str) -> int:
    """Matches of one deal that ``league``'s design pairs, seat for seat or by deal."""
    from ..league.schedule import format_tables, seatings

    tables = format_tables(
        list(league.bots), league.players, league.format, league.hero, league.challenger
    )
    pairing = Pairing(a, b)
    blank = {"coins": [0] * league.players, "ranks": [1] * league.players, "winners": []}
    for table in tables:
        for order in seatings(league.players, league.seatings):
            pairing.add({**blank, "deal": 0, "seats": [table[p] for p in order]})
    pairing.close()
    return 2 * pairing.pairs + pairing.by_deal


def why_unpaired(league: League, a: str, b: str) -> str:
    """Why a league's matches hold no comparison of A's and B's."""
    if league.players < 2 or a == b:
        return "a bot is only compared with another one"
    here = design_compares(league, a, b)
    if here:
        return (
            f"its design compares {here} of their matches a deal, but no deal of theirs "
            "has finished yet: run the league on"
        )
    return "no deal of its design has them play against the same opponents"
