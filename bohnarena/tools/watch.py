"""What ``check-game`` checks at every decision of a playthrough (see
:mod:`.gamecheck`): bots whose decision methods report each view, its
arguments and the answer, and two checks of what the seat was shown:

* **views hide**: the seat's view of the real match and of a sample of it
  (``state.determinize(seat, rng)``: what the seat cannot see dealt
  afresh) must be equal, key by key: a view that shows another seat's
  hidden cards differs between them;
* **the wire**: the view, the records the seat saw, the arguments and the
  answer go through the game's wire module as JSON and back, to equal
  values (as JSON), each valid under its part of the protocol's schema.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..core.game import ASKED, STATE, Game, capabilities
from ..core.plugins import raised
from ..core.wire import Wire

#: What the referee tells a view (and a sample's view has not): never
#: another seat's, so not compared. A sample keeps no records (history).
REFEREE_KEYS = frozenset({"time_left", "match_id", "history"})

#: (bot, decision, view, args, answer) -> None
Observer = Callable[[Any, str, Any, tuple[Any, ...], Any], None]


def as_json(value: Any) -> Any:
    """``value`` as JSON carries it (tuples become lists)."""
    return json.loads(json.dumps(value))


def watched(cls: type, base: type, observe: Observer) -> type:
    """A subclass of the bot class ``cls`` that reports each of its answers
    to ``observe``. It overrides only the decisions ``cls`` overrides, so it
    is asked what ``cls`` is asked and plays the same moves."""

    def wrap(name: str) -> Callable[..., Any]:
        decide = getattr(cls, name)

        def answer(self: Any, view: Any, *args: Any) -> Any:
            given = decide(self, view, *args)
            observe(self, name, view, args, given)
            return given

        return answer

    decisions: tuple[str, ...] = getattr(base, "DECISIONS", ())
    own = {k: wrap(k) for k in decisions if getattr(cls, k, None) is not getattr(base, k)}
    return type(cls.__name__, (cls,), own)


def view_contents(view: Any, wire: Wire | None) -> dict[str, Any]:
    """What a bot reads of ``view``: its public properties and, for a game
    with a wire, what the wire sends (``wire:`` before each key); never what
    the referee tells (:data:`REFEREE_KEYS`)."""
    names = {
        name
        for klass in type(view).__mro__
        for name, member in vars(klass).items()
        if isinstance(member, property) and not name.startswith("_")
    }
    out = {name: getattr(view, name) for name in sorted(names - REFEREE_KEYS)}
    if wire is not None:
        sent = wire.view_json(view)
        out.update({f"wire:{k}": v for k, v in sent.items() if k not in REFEREE_KEYS})
    return out


@dataclass
class Findings:
    """The first problem of each check, and how many decisions it saw."""

    decisions: int = 0
    problems: dict[str, str] = field(default_factory=dict)

    def note(self, check: str, problem: str) -> None:
        self.problems.setdefault(check, problem)


@contextmanager
def trying(findings: Findings, check: str, where: str) -> Iterator[None]:
    """An exception in a check is that check's finding, never the bot's fault."""
    try:
        yield
    except Exception as e:
        findings.note(check, f"{where}: raised {raised(e)}")


class Watcher:
    """The observer of one game's playthroughs (its checks: ``hide``, ``wire``)."""

    def __init__(self, game: Game, wire: Wire | None, schema: dict[str, Any] | None) -> None:
        self.wire = wire
        self.hides = capabilities(game).new_state is not None  # (a sample needs a state)
        self.findings = Findings()
        self.rng = random.Random(0)
        self.label = ""  # the rule set's, in what is found
        self.sent_rules: Any = None
        #: seat -> (its next raw record, the records it saw)
        self.histories: dict[int, tuple[int, list[tuple[Any, ...]]]] = {}
        #: (seat, decision) whose searchable state met the schema this match
        self.states_valid: set[tuple[int, str]] = set()
        self.validate = validator(schema) if schema is not None else None

    def start(self, rules: Any, seed: int, label: str) -> None:
        """Before a match under ``rules`` (``label``): the rules go over the wire once."""
        self.label, self.rng = label, random.Random(seed)
        self.histories, self.sent_rules, self.states_valid = {}, None, set()
        if self.wire is not None:
            with trying(self.findings, "wire", label):
                sent = as_json(self.wire.rules_json(rules))
                self._valid("rules", sent, label)
                self.sent_rules = self.wire.rules_from_json(sent)
                back = as_json(self.wire.rules_json(self.sent_rules))
                if back != sent:
                    self.findings.note(
                        "wire", f"{label}: the rules come back as {_short(back, sent)}"
                    )

    def __call__(self, bot: Any, kind: str, view: Any, args: tuple[Any, ...], answer: Any) -> None:
        self.findings.decisions += 1
        where = f"{self.label}, turn {view.turn}, seat {view.seat}'s {kind}"
        if self.hides:
            with trying(self.findings, "hide", where):
                self._hides(view, where)
        if self.wire is not None and self.sent_rules is not None:
            with trying(self.findings, "wire", where):
                self._round_trip(self.wire, kind, view, args, answer, where)

    def _hides(self, view: Any, where: str) -> None:
        sample = view.determinize(self.rng).view(view.seat)
        k, shown, seen = _first_difference(view, sample, self.wire)
        if k:
            self.findings.note(
                "hide",
                f"{where}: {k} is {shown} in the match but {seen} in a sample "
                "that re-dealt what the seat cannot see",
            )

    def _round_trip(
        self, wire: Wire, kind: str, view: Any, args: tuple[Any, ...], answer: Any, where: str
    ) -> None:
        sent = as_json(wire.view_json(view))
        self._valid("view", sent, where)
        # The records the seat saw since its last decision, as a match sends them
        seen, history = self.histories.setdefault(view.seat, (0, []))
        records, seen = wire.events_since(view, seen)
        events = as_json([wire.event_json(r) for r in records])
        for event in events:  # (against its kind's part: the "event" part tries every kind)
            self._valid(f"event_{event.get('kind')}", event, where)
        history += [tuple(e.values()) for e in events]  # as bohnarena's host reads them
        self.histories[view.seat] = seen, history
        got = wire.json_view({**sent, ASKED: kind}, self.sent_rules, list(history))
        back = as_json(wire.view_json(got))
        if back != sent:
            self.findings.note("wire", f"{where}: the view comes back as {_short(back, sent)}")
        sent_args = as_json(wire.args_json(kind, view, args))
        self._valid(f"args_{kind}", sent_args, where)
        if wire.args_from_json(kind, sent_args) != args:
            self.findings.note(
                "wire",
                f"{where}: the arguments {_text(args)} come back as "
                f"{_text(wire.args_from_json(kind, sent_args))}",
            )
        if self.hides:
            self._sent_state(wire, view, {**sent, ASKED: kind}, history, where)
        said = as_json(wire.answer_json(answer))
        self._valid(f"answer_{kind}", said, where)
        if as_json(wire.answer_json(wire.answer_from_json(kind, said))) != said:
            self.findings.note("wire", f"{where}: the answer {_text(said)} does not come back")

    def _sent_state(
        self, wire: Wire, view: Any, sent: dict[str, Any], history: list[Any], where: str
    ) -> None:
        """The searchable state a seat may ask for (``state_json``), sent
        with the view: a sample the bot's side deals from it shows the seat
        its view (the rules aside: they came over the wire already)."""
        state = wire.state_json(view)
        if state is None:
            return
        state = as_json(state)
        if (view.seat, sent[ASKED]) not in self.states_valid:  # (big: its schema costs)
            self.states_valid.add((view.seat, sent[ASKED]))
            self._valid("state", state, where)
        got = wire.json_view({**sent, STATE: state}, self.sent_rules, list(history))
        sample = got.determinize(self.rng).view(view.seat)
        k, shown, seen = _first_difference(view, sample, self.wire, {"rules"})
        if k:
            self.findings.note(
                "wire",
                f"{where}: {k} is {shown} in the match but {seen} in a sample "
                "dealt from the state sent with the view",
            )

    def _valid(self, part: str, value: Any, where: str) -> None:
        problem = self.validate(part, value) if self.validate is not None else None
        if problem:
            self.findings.note("wire", f"{where}: the {part} breaks the schema: {problem}")


def validator(schema: dict[str, Any]) -> Callable[[str, Any], str | None]:
    """``(part, value) -> why it is not valid, or None``: a value checked
    against one of the schema's ``$defs`` (a part it lacks checks nothing)."""
    # (the test extra's, untyped; check-game says when it is missing)
    jsonschema: Any = importlib.import_module("jsonschema")

    defs = schema.get("$defs", {})
    checkers = {
        part: jsonschema.Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{part}"})
        for part in defs
    }

    valid: set[tuple[str, str]] = set()  # (every seat sees a public record: checked once)

    def check(part: str, value: Any) -> str | None:
        key = (part, json.dumps(value, sort_keys=True))
        if key in valid:
            return None
        checker = checkers.get(part)
        error = (
            None
            if checker is None
            else jsonschema.exceptions.best_match(checker.iter_errors(value))
        )
        if error is None:
            valid.add(key)
            return None
        return _text(error.message)

    return check


def _first_difference(
    view: Any, other: Any, wire: Wire | None, aside: frozenset[str] | set[str] = frozenset()
) -> tuple[str, str, str]:
    """The first key (but ``aside``) whose value a bot reads differently in
    ``view`` and ``other``, and the two values as text; ``("", "", "")``: none."""
    shown, seen = view_contents(view, wire), view_contents(other, wire)
    for k in shown:
        if k not in aside and shown[k] != seen.get(k):
            return k, _text(shown[k]), _text(seen.get(k))
    return "", "", ""


def _text(value: Any, chars: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= chars else text[: chars - 3] + "..."


def _short(got: Any, want: Any) -> str:
    """Where ``got`` first differs from ``want`` (two JSON objects)."""
    if isinstance(got, dict) and isinstance(want, dict):
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                return f"{k}={_text(got.get(k))}, not {_text(want.get(k))}"
    return f"{_text(got)}, not {_text(want)}"
