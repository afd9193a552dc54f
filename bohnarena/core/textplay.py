"""A seat played in words (any game): what a game's text layer gives the
seats that read and write text (a person at the terminal, a language model),
and the tolerant reading of a reply that every game's parser starts with
(docs/text-seats.md).

A game declares its layer in its :class:`~bohnarena.core.game.Capabilities`
(``text``); a game without one has no text seats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import BohnarenaError
from .faults import ILLEGAL, PROTOCOL
from .game import Game, capabilities


class Unparsed(BohnarenaError):
    """A reply that is not an answer, or not a legal one: ``reason`` says
    why in a line the seat can be shown; ``fault`` is its fault type
    (:data:`~bohnarena.core.faults.PROTOCOL`: not an answer's form,
    :data:`~bohnarena.core.faults.ILLEGAL`: the rules forbid it)."""

    def __init__(self, reason: str, fault: str = PROTOCOL) -> None:
        super().__init__(reason)
        self.reason, self.fault = reason, fault


def illegal(reason: str) -> Unparsed:
    return Unparsed(reason, ILLEGAL)


@dataclass(frozen=True)
class Prompt:
    """One decision in words."""

    #: The table as the seat sees it and what is asked, with the form of an answer.
    text: str
    #: The text of each legal answer worth listing (all of them where they
    #: can be listed; for open ones such as trade offers, a few examples).
    answers: tuple[str, ...]
    #: The text of the answer played for a seat that gives none.
    default: str
    #: A JSON schema every answer's form satisfies (for structured output).
    schema: Mapping[str, Any] = field(default_factory=dict)
    #: Are ``answers`` every legal answer (a seat with one is not asked)?
    complete: bool = True


class TextLayer(Protocol):
    """A game's seats in words. Everything it renders comes from the seat's
    view and the decision's arguments only: what the seat may see."""

    #: Bumped on any change of the text or of what a reply may say: kept
    #: with a run's results (``run.json``'s ``text_version``).
    version: int

    def briefing(self, rules: Any, seat: int) -> str:
        """The rules in brief, told once a match."""
        ...

    def prompt(self, kind: str, view: Any, args: tuple[Any, ...]) -> Prompt: ...

    def events(
        self, view: Any, records: Sequence[tuple[Any, ...]], names: Sequence[str] = ()
    ) -> list[str]:
        """Records of the seat's history (``view.history``: what it saw, no
        more) in words, a line each: what happened since its last decision
        (``names``: the seats' names, where a seat is told them)."""
        ...

    def answer_text(self, kind: str, view: Any, args: tuple[Any, ...], answer: Any) -> str:
        """The text of ``answer`` (one that :meth:`parse` reads back as it)."""
        ...

    def parse(self, kind: str, view: Any, args: tuple[Any, ...], reply: str) -> Any:
        """The legal answer ``reply`` gives, in canonical form; raises
        :class:`Unparsed` saying precisely why it is none."""
        ...


def text_layer(game: Game) -> TextLayer | None:
    """``game``'s text layer (None: it has none)."""
    make = capabilities(game).text
    layer: TextLayer | None = None if make is None else make()
    return layer


def text_version(game: Game) -> int | None:
    """The version of ``game``'s text, as a run records it (None: no text layer)."""
    layer = text_layer(game)
    return None if layer is None else layer.version


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_CLOSE = 10_000  # a reply longer than this is read from its end only (a model's reasoning)


def find_json(reply: str) -> Any:
    """The answer in ``reply``: the whole reply as JSON, else the last JSON
    object in it (a fenced block, or prose around it), with its keys in
    lower case, spaces and hyphens made underscores. A reply with no
    object in it comes back as its stripped text, for a game to read as a
    bare word or number. Raises :class:`Unparsed` on an empty reply."""
    text = reply.strip()
    if not text:
        raise Unparsed("the reply is empty")
    text = text[-_CLOSE:]
    try:
        return _keys(json.loads(text))
    except (ValueError, RecursionError):  # (a reply nested past the parser's depth too)
        pass
    for block in reversed(_FENCE.findall(text)):
        try:
            return _keys(json.loads(block))
        except (ValueError, RecursionError):
            continue
    decoder, found = json.JSONDecoder(), None
    for m in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            found = value  # the last one stands: a model may think aloud first
    if found is not None:
        return _keys(found)
    return text


def _keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {re.sub(r"[\s-]+", "_", str(k).strip().lower()): v for k, v in value.items()}
    return value


def word(value: Any) -> str | None:
    """A bare reply as one lower-case word (trailing full stop and quotes
    dropped), or None when it is not a short string."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    return value.strip().strip("\"'`").rstrip(".!").strip().lower()


def as_json(value: Any) -> str:
    """An answer's canonical text: compact JSON with a space after separators
    (ASCII: a reply's odd characters quoted back in a reason stay escaped)."""
    return json.dumps(value, separators=(", ", ": "))
