"""The two faces of a game's wire module (``Game.wire``): :class:`Wire`,
the functions that speak its JSON lines on both sides (the engine's
:mod:`bohnarena.external.remote`, the bot's :mod:`bohnarena.external.host`),
and :class:`WireTables`, the message tables its JSON Schema is built from
(:mod:`.protocol_schema`)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol


class Wire(Protocol):
    """What a game supplies to speak JSON lines (see bohnarena/bohnanza/wire.py)."""

    BASE: type  # the game's bot base class (its methods are the default answers)
    DECISIONS: tuple[str, ...]

    def rules_json(self, rules: Any) -> dict[str, Any]: ...
    def rules_from_json(self, data: dict[str, Any]) -> Any: ...
    def view_json(self, view: Any) -> dict[str, Any]: ...
    def json_view(
        self, data: dict[str, Any], rules: Any, history: list[tuple[Any, ...]]
    ) -> Any: ...
    def events_since(self, view: Any, start: int) -> tuple[list[tuple[Any, ...]], int]: ...
    def event_json(self, record: tuple[Any, ...]) -> dict[str, Any]: ...
    def args_json(self, kind: str, view: Any, args: tuple[Any, ...]) -> dict[str, Any]: ...
    def args_from_json(self, kind: str, args: dict[str, Any]) -> tuple[Any, ...]: ...
    def answer_json(self, answer: Any) -> Any: ...
    def answer_from_json(self, kind: str, data: Any) -> Any: ...
    def state_json(self, view: Any) -> dict[str, Any] | None:
        """The searchable state sent with ``view`` to a seat that asks for
        it (``"state": true`` at start); None: the game sends none."""
        ...


def wire_of(module: str) -> Wire:
    """A game's wire module (:attr:`bohnarena.core.game.Game.wire`): the bot side
    and the engine side of its messages."""
    wire: Wire = importlib.import_module(module)
    return wire


class WireTables(Protocol):
    """The message tables a game's wire module declares (type names of
    :data:`.protocol_schema.TYPES` or the game's own)."""

    @property
    def VIEW(self) -> Mapping[str, str]:
        """The decide message's view, key -> type name."""
        ...

    @property
    def STATE(self) -> Mapping[str, str]:
        """The searchable state's keys (frames.WHERE among them)."""
        ...

    @property
    def ARGS(self) -> Mapping[str, Mapping[str, str]]:
        """Decision -> its arguments."""
        ...

    @property
    def ANSWERS(self) -> Mapping[str, tuple[str | Mapping[str, str], bool]]:
        """Decision -> a type name or an object's keys (every key optional
        but those in ``GameProtocol.required``), and whether null passes."""
        ...
