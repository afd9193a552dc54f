"""In process, bots are trusted but have bugs: whatever a bot raises
(BaseException included), however long it takes (constructor and hooks
included), the league finishes, every match is played, and the faults land
on that bot only."""

import pyarrow.parquet as pq
import pytest

from bohnarena.run.dispatch import run_league

from .test_hostile import HERE, faults_by_bot

LIMITS = "[limits]\ndecision_seconds = 0.5\nmatch_seconds = {bank}\nmax_faults = 3\n"


def run(tmp_path, hostile, bank=5):
    spec = f"{HERE / 'bots.py'}:{hostile}"
    path = tmp_path / "h.toml"
    path.write_text(
        f'name = "h"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
        f"[run]\nbatch_size = 1\n{LIMITS.format(bank=bank)}"
        f'[bots]\nhostile = {{ spec = "{spec}", isolation = "inprocess" }}\n'
        f'planner = "planner"\nrandom = "random"\n'
    )
    out = tmp_path / "out"
    summary = run_league(path, out, workers=2, progress=False)
    assert summary.complete and summary.played == 3 and not summary.errors
    rows = pq.read_table(out / "matches").to_pylist()
    assert sorted(r["match_id"] for r in rows) == [0, 1, 2]  # every match present
    faults = faults_by_bot(out)  # (faults in `end` come after the result: moves only)
    assert faults["planner"] == 0 and faults["random"] == 0
    moves = pq.read_table(out / "moves").to_pylist()
    texts = [(r["decision"], r["text"]) for r in moves if r["kind"] == "fault"]
    hostile_seats = {(r["match_id"], r["seats"].index("hostile")) for r in rows}
    assert (
        texts
        and {(r["match_id"], r["seat"]) for r in moves if r["kind"] == "fault"} <= hostile_seats
    )
    forfeits = {(r["match_id"], r["seat"]) for r in moves if r["kind"] == "forfeit"}
    assert forfeits <= hostile_seats
    for r in rows:  # a forfeiting bot is ranked last
        seat = r["seats"].index("hostile")
        if (r["match_id"], seat) in forfeits:
            assert r["ranks"][seat] == 3
    return texts, forfeits == hostile_seats


@pytest.mark.parametrize(
    "hostile,reason",
    [
        ("ExitsZero", "raised SystemExit: 0"),
        ("RaisesKeyboardInterrupt", "raised KeyboardInterrupt"),
        ("RaisesGeneratorExit", "raised GeneratorExit"),
        ("RaisesBaseException", "raised Bare"),
        ("PropertyRaises", "raised SystemExit: 5"),
    ],
)
def test_base_exceptions_are_faults(tmp_path, hostile, reason):
    texts, _ = run(tmp_path, hostile)
    assert texts and all(d == "plant_second" and t.startswith(reason) for d, t in texts), texts


@pytest.mark.parametrize(
    "hostile,reason",
    [
        ("InitRaises", "raised SystemExit: 3 (in the constructor)"),
        pytest.param(
            "InitSleeps",
            "timeout: no answer within 0.5 s (in the constructor)",
            marks=pytest.mark.slow,
        ),
    ],
)
@pytest.mark.slow
def test_a_broken_constructor_forfeits_the_match(tmp_path, hostile, reason):
    texts, all_forfeit = run(tmp_path, hostile)
    assert texts == [("start", reason)] * 3 and all_forfeit


@pytest.mark.parametrize(
    "hostile,decision",
    [
        pytest.param("StartSleeps", "start", marks=pytest.mark.slow),
        pytest.param("DecisionsSleep", "start", marks=pytest.mark.slow),
        ("EndExits", "end"),
    ],
)
def test_hooks_are_timed_and_guarded(tmp_path, hostile, decision):
    texts, _ = run(tmp_path, hostile)
    assert len(texts) == 3 and all(d == decision for d, _ in texts), texts


@pytest.mark.slow
@pytest.mark.parametrize("hostile", ["SwallowsTimeout", "SwallowsTimeoutBusy"])
def test_a_bot_that_swallows_the_timeout_is_given_up_on(tmp_path, hostile):
    texts, all_forfeit = run(tmp_path, hostile)
    assert all_forfeit
    assert (
        texts
        == [("plant_second", "timeout: ignored the timeout for 1 s more; given up for this match")]
        * 3
    )


@pytest.mark.slow
def test_a_bot_that_silences_the_watchdog_is_stopped_soon_after_its_deadline(tmp_path):
    """It stops the timer and loops: the worker is stopped once the call is
    1 s past its deadline without a tick (not after the 3 x 0.5 + 5 s of
    silence any worker may keep), and each match played again with that
    call a timeout and a forfeit."""
    texts, all_forfeit = run(tmp_path, "SilencesTheWatchdog")
    assert all_forfeit
    assert (
        texts
        == [
            (
                "plant_second",
                "timeout: its worker went silent for 1 s past the deadline in this call;"
                " given up for this match",
            )
        ]
        * 3
    )


@pytest.mark.slow
def test_a_spent_time_bank_forfeits(tmp_path):
    texts, all_forfeit = run(tmp_path, "SpendsBank", bank=1)
    assert all_forfeit
    assert texts == [("plant_second", "timeout: time bank of 1 s spent")] * 3


# -- junk answers --------------------------------------------------------------
import itertools  # noqa: E402
import random  # noqa: E402
import traceback  # noqa: E402
from collections import Counter  # noqa: E402

from bohnarena.bohnanza import Accept, Anytime, DraftPick, Offer  # noqa: E402
from bohnarena.bohnanza.decisions import DECISIONS as CARD_DECISIONS  # noqa: E402
from bohnarena.core.game import get_game  # noqa: E402
from bohnarena.referee.limits import DecisionTimeout, Limits, Watchdog  # noqa: E402
from bohnarena.referee.seats import BotSeat  # noqa: E402
from bohnarena.run.seating import make_seat  # noqa: E402
from bohnarena.store.logbook import moves_table  # noqa: E402
from bohnarena.wuerfel.bot import Keep  # noqa: E402
from bohnarena.wuerfel.match import DECISIONS as DICE_DECISIONS  # noqa: E402
from bohnarena_bots.random_bot import RandomBot  # noqa: E402
from bohnarena_bots.wuerfel_bots import RandomDiceBot  # noqa: E402

ANSWERS = (Anytime, Offer, Accept, DraftPick, Keep)
EXCEPTIONS = (
    ValueError,
    SystemExit,
    KeyboardInterrupt,
    GeneratorExit,
    RecursionError,
    DecisionTimeout,
    MemoryError,
)
DUNDERS = (
    "__eq__",
    "__ne__",
    "__hash__",
    "__iter__",
    "__len__",
    "__index__",
    "__bool__",
    "__int__",
    "__lt__",
    "__le__",
    "__repr__",
    "__str__",
    "__getattr__",
    "__contains__",
    "__getitem__",
    "__format__",
    "__reversed__",
)
SCALARS = (
    0,
    1,
    2,
    3,
    -1,
    -2,
    -3,
    10**30,
    -(10**30),
    10**5000,
    2**63,
    0.0,
    1.0,
    1.5,
    float("nan"),
    float("inf"),
    1j,
    True,
    False,
    None,
    "",
    "0",
    "fulfil",
    "redeem",
    "fulfil ",
    "x" * 10_000,
    b"",
    b"0",
    [],
    [0],
    [1, 0],
    [0, 0],
    [-1],
    [[0]],
    [None],
    {},
    {"harvest": [0]},
    (),
    (0,),
    (1,),
    (0, 1),
    (0, 0),
    (-1,),
    (-1, -2),
    (True,),
    (0.0,),
    ("0",),
    (None,),
    ((0,),),
    range(2),
    set(),
    {0},
    frozenset(),
    object(),
    Ellipsis,
    len,
    Anytime,
    Keep,
    itertools.count(),
    iter([0]),
)


def evil(rng):
    """An object of a plain-looking type whose dunders raise."""
    exc = rng.choice(EXCEPTIONS)

    def boom(*args, **kwargs):
        raise exc("evil")

    base = rng.choice((object, int, tuple, list, str, *ANSWERS))
    names = rng.sample(DUNDERS, rng.randint(1, 8))
    extra = {"__slots__": ()} if base in ANSWERS else {}
    cls = type("Evil", (base,), {**extra, **dict.fromkeys(names, boom)})
    value = {object: (), int: (0,), tuple: ((0,),), list: ([0],), str: ("fulfil",)}.get(base, ())
    return cls(*value)


def junk(rng, depth=0):
    roll = rng.random()
    if roll < 0.35 or depth > 1:
        return rng.choice(SCALARS)
    if roll < 0.5:
        return evil(rng)
    if roll < 0.6:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.65:
        return tuple(junk(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    cls = rng.choice(ANSWERS)  # an answer object, of any class, with junk in its fields
    answer = cls()
    for name in cls.__dataclass_fields__:
        if rng.random() < 0.7:
            object.__setattr__(answer, name, junk(rng, depth + 1))
    return answer


def junky(base, counts):
    """``base`` answering junk half the time (its own legal answer otherwise,
    so that the game gets to every decision)."""

    def method(kind):
        def answer(self, view, *args):
            if self.junk_rng.random() < 0.5:
                counts[kind] += 1
                return junk(self.junk_rng)
            return getattr(base, kind)(self, view, *args)

        return answer

    def start(self, seat, rules, rng):
        base.start(self, seat, rules, rng)
        self.junk_rng = random.Random(rng.random())

    return type("Junky", (base,), {"start": start, **{k: method(k) for k in base.DECISIONS}})


CONFIGS = [
    ("bohnanza", "riogrande", 3, {}),
    ("bohnanza", "anniversary", 4, {"extra_bean": "jumping"}),
    ("bohnanza", "classic", 5, {}),
    ("wuerfel", "standard", 3, {"early_stop": True}),
    ("wuerfel", "standard", 2, {"early_stop": False}),
    ("bohnanza", "anniversary", 3, {"extra_bean": "jumping"}),
]
KINDS = (*CARD_DECISIONS, *DICE_DECISIONS)


@pytest.mark.parametrize(
    "total,each", [(2_000, 20), pytest.param(10_000, 100, marks=pytest.mark.slow)]
)
@pytest.mark.slow
def test_junk_answers_are_faults_only(total, each):
    counts: Counter[str] = Counter()
    limits = Limits(max_faults=10**9)  # never forfeit: every decision keeps being asked
    card, dice = junky(RandomBot, counts), junky(RandomDiceBot, counts)
    seed = 0
    with Watchdog() as dog:
        # ``total`` junk answers, and ``each`` of every kind (the draft is rare).
        while sum(counts.values()) < total or min(counts[k] for k in KINDS) < each:
            assert seed < 1000, counts
            name, edition, players, options = CONFIGS[seed % len(CONFIGS)]
            game = get_game(name)
            rules = game.rules(edition, players, options)
            cls, decisions = (
                (card, CARD_DECISIONS) if name == "bohnanza" else (dice, DICE_DECISIONS)
            )
            # Both paths: the untimed one, and the timed one a league uses.
            seats = [
                cls() if seed % 2 else BotSeat(cls(), decisions, limits, dog)
                for _ in range(players)
            ]
            try:
                result, records = game.play(rules, seed, seats)
            except BaseException as e:  # pytest would show the evil objects: their repr raises
                raise AssertionError(
                    f"match {seed}: {type(e).__name__} escaped:\n"
                    + "".join(traceback.format_tb(e.__traceback__))
                ) from None
            reasons = [r[3] for r in records if r[0] == "fault"]
            assert all(r.startswith(("illegal", "malformed")) for r in reasons), set(reasons)
            assert sum(result.faults) == len(reasons)
            moves_table([(seed, records)], game.layout, game.columns)  # every record encodes
            assert game.verify(rules, seed, records)[0] == result  # and replays
            seed += 1


# -- a real Ctrl-C, the deadline and the bank, seat by seat -------------------
import os  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

from bohnarena.bohnanza import Bot  # noqa: E402


class Slow(Bot):
    def __init__(self, seconds=10**6, then=None):
        self.seconds, self.then = seconds, then

    def plant_second(self, view):
        time.sleep(self.seconds)
        return self.then


class CtrlC(Bot):
    """Sends itself a real SIGINT (as Ctrl-C would) and swallows what comes."""

    def plant_second(self, view):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except BaseException:
            pass
        return False


class OwnInterrupt(Bot):
    def plant_second(self, view):
        raise KeyboardInterrupt


def seat(bot, dog=None, **limits):
    s = BotSeat(bot, CARD_DECISIONS, Limits(**limits), dog)
    assert s.start(0, None, 1) is None
    return s


def test_a_real_ctrl_c_stops_but_a_bots_own_keyboard_interrupt_is_a_fault():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with Watchdog() as dog:
        assert seat(OwnInterrupt(), dog).decide("plant_second", None, ()) == (
            None,
            "raised KeyboardInterrupt: ",
        )
        with pytest.raises(KeyboardInterrupt):  # even though the bot swallowed it
            seat(CtrlC(), dog).decide("plant_second", None, ())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_each_deadline_is_the_decision_limit_or_the_bank_left():
    with Watchdog() as dog:
        s = seat(Slow(), dog, decision_seconds=0.2, match_seconds=0.3)
        start = time.perf_counter()
        assert s.decide("plant_second", None, ()) == (None, "timeout: no answer within 0.2 s")
        assert not s.forfeits(1)
        assert s.decide("plant_second", None, ()) == (None, "timeout: time bank of 0.3 s spent")
        assert s.forfeits(2) and time.perf_counter() - start < 1.0


class Silences(Bot):
    """Stops the watchdog's timer, ignores its signal, and answers at once."""

    def plant_second(self, view):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        return False


class Interrupted(Bot):
    """Sleeps past its deadline; notes whether the watchdog interrupted it."""

    seen = False

    def plant_second(self, view):
        try:
            time.sleep(5)
        except DecisionTimeout:
            Interrupted.seen = True
            raise
        return False


def test_a_bot_that_silences_the_watchdog_and_answers_leaves_the_next_bots_their_timeouts():
    before = signal.getsignal(signal.SIGALRM)
    with Watchdog() as dog:
        assert seat(Silences(), dog).decide("plant_second", None, ()) == (False, None)
        time.sleep(0.2)  # (longer than three ticks: the next call finds the timer silent)
        slow = seat(Interrupted(), dog, decision_seconds=0.2)
        assert slow.decide("plant_second", None, ()) == (None, "timeout: no answer within 0.2 s")
        assert Interrupted.seen  # interrupted at its deadline, not timed after 5 s
    assert signal.getsignal(signal.SIGALRM) == before  # and left as it was found


def test_a_late_answer_is_void_even_without_the_watchdog():
    s = seat(Slow(0.1, True), decision_seconds=0.05)
    assert s.decide("plant_second", None, ()) == (None, "timeout: no answer within 0.05 s")


def test_the_dice_game_builds_bots_under_the_limits_too():
    from bohnarena.core.entry import BotEntry

    game = get_game("wuerfel")
    entries = [
        BotEntry("hostile", spec=f"{HERE / 'bots.py'}:DiceInitSleeps"),
        BotEntry("greedy", spec="wuerfel-greedy"),
    ]
    with Watchdog() as dog:
        seats = [make_seat(game, e, Limits(decision_seconds=0.2), dog) for e in entries]
        result, records = game.play(game.rules("standard", 2, {}), 1, seats)
    assert [r for r in records if r[0] in ("fault", "forfeit")] == [
        ("fault", 0, "start", "timeout: no answer within 0.2 s (in the constructor)"),
        ("forfeit", 0),
    ]
    assert result.ranks == (2, 1)
