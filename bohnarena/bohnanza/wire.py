"""The JSON-lines bot protocol of the card game (docs/writing-a-bot.md).

The engine side (:class:`ProcessSeat`) runs a bot as its own OS process and
sends it only its seat's view. :mod:`.host` is the other side for bots
written in Python; bots in other languages speak the same lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..game import MatchResult
from ..limits import Limits
from ..sandbox import BotFault, BotProcess
from .bot import Accept, Anytime, Bot, DraftPick, Offer, Proposal
from .decisions import DECISIONS
from .records import as_dict
from .rules import RuleSet, ruleset
from .table import PROTECTION
from .view import SeatView, events_since

PROTOCOL = 1


# -- engine -> bot ----------------------------------------------------------
def view_json(view: SeatView) -> dict[str, Any]:
    return {
        "seat": view.seat, "active": view.active, "turn": view.turn, "phase": view.phase,
        "hand": view.hand, "fields": view.fields, "trade_areas": view.trade_areas,
        "revealed": view.revealed, "coins": view.coins, "hand_sizes": view.hand_sizes,
        "draw_pile": view.draw_pile, "discard": view.discard, "exhaustions": view.exhaustions,
    }


def args_json(kind: str, view: SeatView, args: tuple) -> dict[str, Any]:
    if kind in ("plant", "make_room"):
        card = args[0]
        options = view.fields_for(card) if kind == "plant" else view.harvestable()
        return {"card": card, "options": options}
    if kind == "draft":
        return {"cards": args[0]}
    if kind == "respond":
        p: Proposal = args[0]
        return {"offer": {"by": p.by, "to": p.to, "cards": p.cards, "want": p.want}}
    return {}


def answer_json(answer: Any) -> Any:
    """An answer object as JSON data (the inverse of :func:`answer_from_json`)."""
    if isinstance(answer, Anytime):
        return {"harvest": list(answer.harvest), "buy_field": answer.buy_field}
    if isinstance(answer, Offer):
        return {"give": list(answer.give), "want": list(answer.want), "to": answer.to}
    if isinstance(answer, Accept):
        return {"give": list(answer.give)}
    if isinstance(answer, DraftPick):
        return {"index": answer.index, "field": answer.field}
    return answer


def _ints(x: Any) -> tuple[int, ...]:
    if not isinstance(x, list):
        raise ValueError("expected a list of ints")
    return tuple(x)


def answer_from_json(kind: str, data: Any) -> Any:
    """A bot's JSON answer as the answer object the engine checks."""
    if kind in ("anytime", "propose", "offer", "respond") and data is None:
        return None
    if kind == "anytime":
        return Anytime(_ints(data.get("harvest", [])), data.get("buy_field", False))
    if kind in ("propose", "offer"):
        return Offer(_ints(data.get("give", [])), _ints(data.get("want", [])), data.get("to"))
    if kind == "respond":
        return Accept(_ints(data.get("give", [])))
    if kind == "draft":
        return DraftPick(data["index"], data.get("field"))
    return data


def rules_json(rules: RuleSet) -> dict[str, Any]:
    return {**rules.options(), "varieties": [
        {"id": v.id, "key": v.key, "name": v.name, "cards": v.cards,
         "beanometer": list(v.beanometer), "draft_at": v.draft_at} for v in rules.varieties]}


def rules_from_json(data: dict[str, Any]) -> RuleSet:
    overridable = {k: data[k] for k in ("fields", "third_field_cost", "reveal", "draw",
                                        "exhaustions", "protection", "tie_break",
                                        "max_trade_rounds", "max_offers")}
    if data.get("extra_bean"):
        overridable["extra_bean"] = data["extra_bean"]
    return ruleset(data["edition"], data["players"], **overridable)


class ProcessSeat:
    """A bot in its own OS process, answering over JSON lines.

    The process gets its seat's view and nothing else. A crash, a timeout or
    a broken pipe ends the process: the fault is recorded and the seat
    forfeits the rest of the match (a new process starts for the next one).
    Malformed or illegal answers are faults; too many and the bot forfeits.
    """

    def __init__(self, command: Sequence[str], limits: Limits, log: Path | None = None,
                 cwd: str | None = None) -> None:
        self.command, self.limits, self.log, self.cwd = list(command), limits, log, cwd
        self.process: BotProcess | None = None
        self.asks: frozenset[str] = frozenset()
        self.spent = 0.0
        self.times: list[float] = []
        self._seen = 0  # raw records already looked through

    def start(self, seat: int, rules: RuleSet, seed: int) -> str | None:
        self.spent, self._seen = 0.0, 0
        self.process = BotProcess(self.command, self.limits, self.log, self.cwd)
        try:
            self.process.start()
            reply = self._request({"type": "start", "protocol": PROTOCOL, "seat": seat,
                                   "rules": rules_json(rules), "seed": seed},
                                  startup=True)
            if "error" in reply:
                raise BotFault("start", str(reply["error"]))
            asks = reply.get("decisions")
            asks = set(DECISIONS) if asks is None else set(asks)
            if not asks <= set(DECISIONS):
                raise BotFault("malformed", f"unknown decisions {sorted(asks - set(DECISIONS))}")
            self.asks = frozenset(asks)
        except BotFault as f:
            self._lose()
            return str(f)
        return None

    def decide(self, kind: str, view: SeatView, args: tuple) -> tuple[Any, str | None]:
        if self.process is None:
            return None, "crash: the bot process is gone"
        new, self._seen = events_since(view, self._seen)
        events = [as_dict(r) for r in new]
        default = getattr(Bot, kind)(None, view, *args)
        msg = {"type": "decide", "decision": kind, "view": view_json(view),
               "args": args_json(kind, view, args), "events": events,
               "default": answer_json(default)}
        try:
            reply = self._request(msg)
        except BotFault as f:
            self._lose()
            return None, str(f)
        if "error" in reply:
            return None, str(reply["error"])[:300]
        try:
            return answer_from_json(kind, reply.get("answer")), None
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            return None, f"malformed: {kind} answer {reply.get('answer')!r}: {e}"[:300]

    def forfeits(self, faults: int) -> bool:
        return (self.process is None or faults >= self.limits.max_faults
                or self.spent > self.limits.match_seconds)

    def end(self, result: MatchResult) -> str | None:
        if self.process is not None:
            try:
                self.process.send({"type": "end", "coins": result.coins, "ranks": result.ranks,
                                   "winners": result.winners})
            except BotFault:
                pass
        self._lose()
        return None

    def close(self) -> None:
        """End the bot process without a match result (a no-op if it is gone)."""
        self._lose()

    def _request(self, msg: dict[str, Any], startup: bool = False) -> dict[str, Any]:
        assert self.process is not None
        lim = self.limits
        budget = max(0.0, lim.match_seconds - self.spent)
        # Starting an interpreter is not the bot's thinking time: allow more.
        timeout = max(lim.decision_seconds, 10.0) if startup else min(lim.decision_seconds, budget)
        reply, took = self.process.request(msg, timeout)
        if not startup:
            self.spent += took
            self.times.append(took)
        return reply

    def _lose(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None


# -- bot side ----------------------------------------------------------------
class JsonView:
    """The SeatView API over a view received as JSON (used by :mod:`.host`)."""

    def __init__(self, data: dict[str, Any], rules: RuleSet, history: tuple[tuple, ...]) -> None:
        self._d, self.rules, self.history = data, rules, history

    def __getattr__(self, name: str) -> Any:
        try:
            value = self._d[name]
        except KeyError:
            raise AttributeError(name) from None
        return _freeze(value)

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def my_fields(self) -> tuple[tuple[int, int], ...]:
        return self.fields[self.seat]

    @property
    def my_trade_area(self) -> tuple[int, ...]:
        return self.trade_areas[self.seat]

    @property
    def my_coins(self) -> int:
        return self.coins[self.seat]

    def fields_for(self, card: int) -> tuple[int, ...]:
        return tuple(i for i, (v, _) in enumerate(self.my_fields) if v in (card, -1))

    def harvestable(self) -> tuple[int, ...]:
        return tuple(PROTECTION[self.rules.protection]([list(f) for f in self.my_fields]))

    def coins_for(self, variety: int, count: int) -> int:
        return self.rules.varieties[variety].coins(count)

    def can_buy_field(self) -> bool:
        cost = self.rules.third_field_cost
        return cost > 0 and len(self.my_fields) == self.rules.fields and self.my_coins >= cost


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def args_from_json(kind: str, args: dict[str, Any]) -> tuple:
    if kind in ("plant", "make_room"):
        return (args["card"],)
    if kind == "draft":
        return (tuple(args["cards"]),)
    if kind == "respond":
        o = args["offer"]
        return (Proposal(o["by"], o["to"], tuple(o["cards"]), tuple(o["want"])),)
    return ()
