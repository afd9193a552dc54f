"""Parameters a bot declares (docs/tuning.md): class attributes with a
default, listed with their ranges in the class's ``tunable``::

    class TraderBot(PlannerBot):
        margin: float = 0.05
        wants: int = 2
        tunable: ClassVar[Mapping[str, Param]] = {
            "margin": Param(0.0, 0.5),
            "wants": Param(1, 4),
        }

A parameter's type is its default's (int or float). A spec sets them after
a ``?`` (``trader?margin=0.1,wants=3``), a league file in a bot's ``params``
table; the bot class is then a subclass with those attributes, so two
settings of one class are two classes (and two bots of a league).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import BotLoadError, UsageError

Value = int | float | str | bool  # what a league's table or a start message may carry
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Param:
    """The range of a tunable class attribute (both ends included); ``log``:
    a tuner samples it on a log scale."""

    low: float
    high: float
    log: bool = False


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"trader?keep=3,beg=0.2"`` -> ``("trader", {"keep": "3", "beg": "0.2"})``."""
    base, sep, query = spec.partition("?")
    if not sep:
        return spec, {}
    given: dict[str, str] = {}
    for part in query.split(","):
        name, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not _NAME.match(name) or not value:
            raise UsageError(f"bot spec {spec!r}: parameters are NAME=VALUE separated by commas")
        if name in given:
            raise UsageError(f"bot spec {spec!r}: parameter {name!r} is given twice")
        given[name] = value
    return base.strip(), given


def show(value: Value) -> str:
    """A value as a spec writes it (a float's repr reads back the same)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def join_spec(base: str, values: Mapping[str, Value]) -> str:
    """The spec of ``base`` with ``values`` set, in name order (one spec per setting)."""
    if not values:
        return base
    return base + "?" + ",".join(f"{k}={show(values[k])}" for k in sorted(values))


def with_table(spec: str, table: Mapping[str, Any], where: str) -> tuple[str, dict[str, Value]]:
    """A league's ``spec`` and ``params`` table as one spec, and every value set."""
    base, given = split_spec(spec)
    values: dict[str, Value] = {k: _number(v) for k, v in given.items()}
    for name, value in table.items():
        if not _NAME.match(name) or not isinstance(value, int | float | str | bool):
            raise UsageError(f"{where}: params: {name!r} must be a name with a number or a string")
        if name in given:
            raise UsageError(f"{where}: parameter {name!r} is set in both spec and params")
        values[name] = value
    return join_spec(base, values), values


def declared(cls: type) -> dict[str, tuple[Param, type]]:
    """A bot class's tunable parameters: name -> (range, type)."""
    found = getattr(cls, "tunable", None) or {}
    out = {}
    for name, param in dict(found).items():
        default = getattr(cls, name, None)
        kind = type(default)
        if not isinstance(param, Param) or kind not in (int, float):
            raise BotLoadError(
                f"{cls.__qualname__}.tunable[{name!r}]: a Param for an int or float class attribute"
            )
        out[name] = (param, kind)
    return out


def settle(cls: type, spec: str, given: Mapping[str, Value]) -> dict[str, int | float]:
    """``given`` checked against what ``cls`` declares: known names, the
    declared type, within range."""
    params = declared(cls)
    out: dict[str, int | float] = {}
    for name, raw in given.items():
        if name not in params:
            known = ", ".join(sorted(params)) or "none"
            raise BotLoadError(f"{spec}: unknown parameter {name!r} (declared: {known})")
        param, kind = params[name]
        value = _typed(raw, kind)
        if value is None:
            raise BotLoadError(f"{spec}: parameter {name!r} must be {kind.__name__}, not {raw!r}")
        if not param.low <= value <= param.high:
            raise BotLoadError(
                f"{spec}: parameter {name!r} = {show(value)} is out of its range "
                f"[{show(param.low)}, {show(param.high)}]"
            )
        out[name] = value
    return out


def _number(text: str) -> Value:
    """A spec's value as a number where it reads as one (as the league's table gives it)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _typed(raw: Value, kind: type) -> int | float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str):
        try:
            number: int | float = int(raw) if kind is int else float(raw)
        except ValueError:
            return None
    else:
        number = raw
    if kind is int:
        return number if isinstance(number, int) else None
    return float(number) if math.isfinite(number) else None


def with_params(cls: type, spec: str, given: Mapping[str, Value]) -> type:
    """``cls`` with ``given`` set: a subclass of the same name whose class
    attributes hold them (its ``params``: what was set)."""
    values = settle(cls, spec, given)
    if not values:
        return cls
    attrs: dict[str, Any] = {**values, "params": values, "__module__": cls.__module__}
    return type(cls.__name__, (cls,), attrs)
