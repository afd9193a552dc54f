"""Where a game's searchable state stands, as JSON data (any game): its
frames ``(step, *values)`` with steps by name and the game's value objects
tagged with their class name, ``pending``, ``then`` and who is asked what.
For the state sent to a bot out of process (see
bohnarena/bohnanza/snapshot.py); marshal carries the same data.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.game import ASKED, STATE
from .gamestate import Frame, GameState

#: A value class's ``(to JSON, from JSON)``.
Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


class Frames:
    """Encodes and decodes the values of ``state``'s frames: plain values,
    tuples (as lists), steps (functions of ``state``, by name) and the
    classes of ``objects`` (as ``{class name: data}``)."""

    def __init__(self, state: type[GameState], objects: Mapping[type, Codec]) -> None:
        self.state = state
        self.objects = dict(objects)
        self.by_name = {cls.__name__: codec for cls, codec in objects.items()}

    def encode(self, value: Any) -> Any:
        if value is None or type(value) in (int, bool, str):
            return value
        if type(value) is tuple:
            return [self.encode(v) for v in value]
        codec = self.objects.get(type(value))
        if codec is not None:
            return {type(value).__name__: codec[0](value)}
        name = getattr(value, "__name__", None)
        if not isinstance(name, str) or getattr(self.state, name, None) is not value:
            raise TypeError(f"not a step of {self.state.__name__}: {value!r}")
        return {"step": name}

    def decode(self, data: Any) -> Any:
        """The inverse of :meth:`encode` (lists and tuples come back as tuples)."""
        if data is None or type(data) in (int, bool, str):
            return data
        if type(data) in (list, tuple):
            return tuple(self.decode(v) for v in data)
        if type(data) is dict and len(data) == 1:
            ((tag, body),) = data.items()
            if tag == "step":
                return self.step(body)
            if tag in self.by_name:
                return self.by_name[tag][1](body)
        raise ValueError(f"not a frame value: {data!r}")

    def step(self, name: Any) -> Callable[..., Any]:
        """The step called ``name``: a renamed one fails here, not later."""
        ok = isinstance(name, str) and name.startswith("_")
        fn = getattr(self.state, name, None) if ok else None
        if not inspect.isfunction(fn):
            raise ValueError(
                f"no step {name!r} in {self.state.__name__}"
                " (another bohnarena version than the engine's?)"
            )
        return fn

    def where(self, state: GameState, stack: Sequence[Frame]) -> dict[str, Any]:
        """Where ``state`` stands (its frames: ``stack``), as JSON data."""
        return {
            "stack": [self.encode(f) for f in stack],
            "pending": self.encode(state.pending),
            "then": self.encode(state.then),
            "asks": [sorted(a) for a in state.asks],
            "declared": [sorted(a) for a in state.declared],
            "forfeited": sorted(state.forfeited),
        }

    def put(self, state: GameState, data: Mapping[str, Any]) -> None:
        """Set ``state`` where :meth:`where` said it stands."""
        state.asks = [frozenset(a) for a in data["asks"]]
        state.declared = [frozenset(a) for a in data["declared"]]
        state.forfeited = set(data["forfeited"])
        state._stack = list(self.decode(data["stack"]))
        state.pending = self.decode(data["pending"])
        state.then = self.decode(data["then"])

    def reach(self, state: GameState, asked: str | None) -> None:
        """Reach the decision ``asked``: the state's own, or the second of a
        pair (a window, then the decision that follows it if the window
        passes: the window passes, as the engine plays it first)."""
        pending, then = state.pending, state.then
        if asked is None or pending is None or pending[1] == asked:
            return
        if then is None or then[0] != asked:
            raise ValueError(f"the state is at {pending[1]!r}, not at {asked!r}")
        state.resume(None)


#: The keys of :meth:`Frames.where`, and their JSON Schema types by name.
WHERE: dict[str, str] = {
    "stack": "frames",
    "pending": "value",
    "then": "value",
    "asks": "decisions_by_seat",
    "declared": "decisions_by_seat",
    "forfeited": "ints",
}


def sent_state(
    view: Mapping[str, Any], rules: Any, restore: Callable[[Mapping[str, Any], Any, Any], Any]
) -> Any:
    """The state a JSON view carries, rebuilt by the game's ``restore``
    (``(view, rules, asked) -> state``); NotImplementedError when none was
    sent (the bot did not ask for it)."""
    if view.get(STATE) is None:
        raise NotImplementedError(
            "no state was sent with this view: a bot out of process gets one"
            " when its class sets wants_state = True"
        )
    return restore(view, rules, view.get(ASKED))
