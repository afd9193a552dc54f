"""The interface between a game and the rest of bohnarena.

The runner, the logs and the ratings see a game only through :class:`Game`:
rule sets, bot classes, a match function that returns a
:class:`MatchResult` and a record stream, a transcript renderer and a
replayer. They know nothing of any game's rules.

Games are found like bots: by name, in the entry-point group
``bohnarena.games`` (the shipped games are registered there too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .errors import UsageError
from .plugins import clash_message, load_module, registered, short_error

GROUP = "bohnarena.games"

#: The JSON-lines bot protocol's version (the ``start`` message's ``protocol``).
#: 2: an offer may carry a public message (``say``: table talk).
PROTOCOL_VERSION = 2

#: The key of the decision being asked in the view data bohnarena's host
#: gives a game's ``json_view`` (a view may need it: the second decision of
#: a pair sees the same view as the first, at another point of the match).
ASKED = "_asked"
#: The view's key of a game's searchable state, for a seat that asked for it
#: (``"state": true`` in its reply to ``start``; see bohnarena/bohnanza/snapshot.py).
STATE = "state"

#: A logged record: ``(kind, seat, *values)``.
Record = tuple[Any, ...]
#: A rule configuration: (edition, players, rule options).
Config = tuple[str, int, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended, seat by seat (seat 0 is the start player)."""

    coins: tuple[int, ...]
    ranks: tuple[int, ...]  # 1 is first; equal ranks only where the tie-break leaves a tie
    winners: tuple[int, ...]
    turns: int
    faults: tuple[int, ...]


@dataclass(frozen=True)
class Decision:
    """A decision a game asks its bots (the referee in bohnarena/referee/seats.py
    asks it, checks the answer and records it)."""

    name: str  # also the bot method that answers it
    check: Callable[..., Any]  # (state, seat, answer, *args) -> canonical answer; raises if illegal
    encode: Callable[[Any, tuple[Any, ...]], Record]  # (answer, args) -> record values
    decode: Callable[[Record], Any]  # record values -> answer
    #: (view, *args) -> the answer played for a seat that does not answer
    #: this decision, or whose answer was a fault (the bot base class's answer).
    default: Callable[..., Any]
    #: Table talk: answer -> the public message it carries ("" for none),
    #: recorded as a ``("said", seat, text)`` record after the decision's
    #: (and its note). None: this decision's answers carry none.
    says: Callable[[Any], str] | None = None
    #: (answer, text) -> the answer carrying the logged message (replay
    #: puts a ``said`` record back into the answer it came with).
    saying: Callable[[Any, str], Any] | None = None


@dataclass(frozen=True)
class Capabilities:
    """What a game supports beyond :class:`Game` (as OpenSpiel's
    ``GameType`` declares it): a game names them in its ``capabilities``;
    one that names none supports none of them (these defaults)."""

    #: ``(rules, seed) -> state``: the match as a searchable state, before
    #: the deal (``start()`` deals); ``bench`` then measures playouts. None:
    #: the game has no such state.
    new_state: Callable[[Any, int], Any] | None = None
    #: Quick, clock-free opponents for ``check-bot`` and ``compare``;
    #: empty: the game's shipped bots.
    sparring_bots: tuple[str, ...] = ()
    #: ``() -> bohnarena.viewer.film.Viewer``: how ``view`` and ``play
    #: --html`` draw the game's table move by move (made when first asked:
    #: it imports the game's drawing, which no other command needs). None:
    #: the game has no viewer page.
    viewer: Callable[[], Any] | None = None
    #: ``(rules) -> {what: names by id}``: the names of the ids the game's
    #: records hold (``{"variety": ("Coffee", "Wax", ...)}``: variety 0 is
    #: Coffee), written beside the logs as ``names.parquet`` for queries to
    #: join (docs/logs.md, "names.parquet"). None: the logs hold no named ids.
    log_names: Callable[[Any], Mapping[str, Sequence[str]]] | None = None
    #: ``() -> bohnarena.core.textplay.TextLayer``: the game in words, for
    #: the seats that read and write text (a person, a language model;
    #: docs/text-seats.md). None: the game has no text seats.
    text: Callable[[], Any] | None = None


#: What a game that declares no capabilities supports.
NO_CAPABILITIES = Capabilities()


def capabilities(game: Game) -> Capabilities:
    """What ``game`` declares it supports (checked by :func:`get_game`)."""
    declared: Capabilities = getattr(game, "capabilities", NO_CAPABILITIES)
    return declared


def sparring_bots(game: Game) -> tuple[str, ...]:
    """The opponents ``check-bot`` and ``compare`` play a bot against."""
    return capabilities(game).sparring_bots or game.shipped_bots


def log_names(game: Game, rules: Any) -> Mapping[str, Sequence[str]]:
    """The names of the ids ``game``'s logs hold under ``rules`` (empty: none)."""
    named = capabilities(game).log_names
    return {} if named is None else named(rules)


@runtime_checkable
class Game(Protocol):
    """A game (read-only members are properties, so a plain class attribute
    of a narrower type implements them)."""

    @property
    def name(self) -> str:
        """The name a league file and ``--game`` use."""
        ...

    @property
    def title(self) -> str: ...

    @property
    def version(self) -> int:
        """Bumped whenever a change alters how a seeded match plays out or is
        recorded: results of different versions are never mixed or replayed."""
        ...

    @property
    def layout(self) -> Mapping[str, tuple[str, ...]]:
        """Record layouts: kind -> names of the values after (kind, seat)."""
        ...

    @property
    def columns(self) -> Mapping[str, str]:
        """Value columns of the records and their kind ("int", "ints", "str")."""
        ...

    @property
    def bot_base(self) -> type:
        """The class every bot of the game subclasses; its methods are the
        default answers."""
        ...

    @property
    def decisions(self) -> Mapping[str, Decision]:
        """The game's decisions by bot method: how each answer is checked and recorded."""
        ...

    @property
    def wire(self) -> str | None:
        """The module that speaks the game's JSON lines to bots in other
        processes (see bohnarena/external/host.py); None: its bots run in process only."""
        ...

    @property
    def shipped_bots(self) -> tuple[str, ...]:
        """Registered bots shipped with the game: checked in process, and
        conformance opponents unless its :class:`Capabilities` name
        ``sparring_bots``. (A game may also declare ``capabilities``, a
        :class:`Capabilities`: optional, so not a member here.)"""
        ...

    def editions(self) -> list[str]:
        """Rule sets by name; the first is the default."""
        ...

    def player_counts(self, edition: str) -> list[int]: ...

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> Any:
        """A rule set (with ``edition``, ``players`` and ``options()``: every
        rule in force, kept with a run's results); raises
        :class:`~bohnarena.core.errors.RulesError` on bad input."""
        ...

    def conformance_configs(self) -> list[Config]:
        """Every rule configuration a bot must handle to pass ``check-bot``."""
        ...

    def play(
        self, rules: Any, seed: int, players: Sequence[Any]
    ) -> tuple[MatchResult, list[Record]]:
        """Play a match; each player is a bot instance or a seat
        (:func:`bohnarena.run.seating.make_seat`)."""
        ...

    def transcript(
        self, records: Iterable[Sequence[Any]], names: Sequence[str]
    ) -> Iterator[str]: ...

    def verify(
        self, rules: Any, seed: int, log: Sequence[Record]
    ) -> tuple[MatchResult | None, str | None]:
        """The result the log replays to under the rules, or the first difference."""
        ...

    def replay_lines(
        self,
        rules: Any,
        seed: int,
        log: Sequence[Record],
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
        numbered: bool = False,
        from_turn: int | None = None,
        to_turn: int | None = None,
    ) -> Iterator[str]:
        """The replayed match, move by move, with the table at each turn's
        start (what ``seat`` saw of it, if given); ``numbered``: each line
        starts with its move number; ``from_turn``: from that turn's start
        on; ``to_turn``: to that turn's end."""
        ...

    def table_at(
        self,
        rules: Any,
        seed: int,
        log: Sequence[Record],
        move: int,
        names: Sequence[str],
        seat: int | None = None,
        as_json: bool = False,
    ) -> list[str]:
        """The whole table after ``move`` (or what ``seat`` saw of it)."""
        ...


def checked(game: object, what: str) -> Game:
    """``game`` if it is a :class:`Game` with :class:`Capabilities`, else a
    one-line UsageError naming it ``what``."""
    if not isinstance(game, Game):
        raise UsageError(f"{what} is not a bohnarena.core.game.Game")
    if not isinstance(capabilities(game), Capabilities):
        raise UsageError(f"{what}: its capabilities are not a bohnarena.core.game.Capabilities")
    return game


def load_game(spec: str) -> Game:
    """The game ``spec`` names: a registered game's name, or ``MODULE:GAME``
    (``file.py:GAME`` too), an object not yet registered (``check-game``)."""
    if ":" not in spec:
        return get_game(spec)
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py") and not Path(where).expanduser().is_file():
        raise UsageError(f"game file {where} does not exist")
    try:
        module = load_module(where)
    except UsageError as e:
        raise UsageError(f"game {spec!r} does not load: {e}") from None
    if not hasattr(module, attr):
        raise UsageError(f"{where} has no {attr!r}")
    return checked(getattr(module, attr), f"{spec} ({type(getattr(module, attr)).__name__})")


def game_names() -> list[str]:
    """The names of the registered games (a clash or a broken one included)."""
    reg = registered(GROUP)
    return sorted([*reg, *reg.clashes])


def get_game(name: str) -> Game:
    """The registered game ``name``; a one-line UsageError for an unknown,
    clashing or broken one (other games are not affected)."""
    reg = registered(GROUP)
    if name in reg.clashes:
        raise UsageError(clash_message(name, reg.clashes[name], "game"))
    ep = reg.get(name)
    if ep is None:
        raise UsageError(f"unknown game {name!r} (known: {', '.join(game_names())})")
    try:
        game = ep.load()
    except (Exception, SystemExit) as e:  # a broken plugin package is the user's to fix
        raise UsageError(f"game {name!r} ({ep.value}) does not load: {short_error(e)}") from None
    game = checked(game, f"game {name!r} ({ep.value})")
    if game.name != name:  # seats and results find a game again by its name
        raise UsageError(f"game {name!r} ({ep.value}) calls itself {game.name!r}")
    return game
