"""A language model at the table: a text seat (docs/text-seats.md) that
asks any OpenAI-compatible chat-completions endpoint, over the transport
of bots served over HTTP (transport.py: checked addresses, the deadline
on every wait, the token to the endpoint's origin alone and never logged).

Each decision is one conversation: the system prompt, the briefing and
the decision's text; a reply that is no legal answer is sent back with
the reason, up to the league's ``retries`` times, then the default is
played with a typed fault. The decision's time limit covers all of it,
waits for a rate limit and retries after a server error included.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from typing import Any

from ...core.chat import Chat, read_system
from ...core.errors import BotLoadError
from ...core.faults import CRASH, PROTOCOL, START, TIMEOUT
from ...core.services import Service, parse_url, token
from ...core.textplay import Prompt, TextLayer, Unparsed
from ...referee.limits import Limits
from ...referee.textseat import Exchange, TextSeat
from ..channel import BotFault
from .seat import EXTRA, MAX_CONNECTION_FAULTS

#: The system prompt where the league gives none.
SYSTEM = (
    "You are playing a game against other players. At each decision you are shown the "
    "table and asked one question. Reply with one JSON object in the answer form asked for."
)
#: Server errors (5xx) and dropped connections retried within a decision.
SERVER_RETRIES = 2
BACKOFF_SECONDS = 0.25  # before the first retry after a server error; doubled after each
#: A 429 without a usable Retry-After waits this long.
RATE_WAIT_SECONDS = 1.0


def chat_seat(
    layer: TextLayer | None, decisions: Collection[str], entry: Any, limits: Limits
) -> ChatSeat:
    """The seat of league bot ``entry`` (a :class:`~bohnarena.league.file.BotEntry`
    with ``chat``). Raises BotLoadError where it cannot be."""
    if layer is None:
        raise BotLoadError(f"bot {entry.name!r} is a language model: this game has no text seats")
    try:
        import httpcore  # noqa: F401  (the http extra)
    except ImportError:
        raise BotLoadError(f"bot {entry.name!r} asks a model over HTTP: {EXTRA}") from None
    chat: Chat = entry.chat
    unknown = sorted(set(chat.decisions or ()) - set(decisions))
    if unknown:
        raise BotLoadError(
            f"bot {entry.name!r}: {unknown[0]!r} is not a decision of this game "
            f"(its decisions: {', '.join(decisions)})"
        )
    try:
        system = read_system(entry.chat)
    except BotLoadError as e:
        raise BotLoadError(f"bot {entry.name!r}: {e}") from None
    asked = decisions if chat.decisions is None else chat.decisions
    return ChatSeat(layer, asked, entry.service, chat, limits, system or SYSTEM)


class ChatSeat(TextSeat):
    """A model's seat (see the module). ``exchanges`` keeps every decision's
    prompt, replies, reasons, seconds and tokens; ``tokens_in`` and
    ``tokens_out`` the match's totals, as the endpoint counted them."""

    def __init__(
        self,
        layer: TextLayer,
        decisions: Collection[str],
        service: Service,
        chat: Chat,
        limits: Limits,
        system: str = SYSTEM,
    ) -> None:
        super().__init__(layer, decisions, limits)
        self.system = system
        self.service, self.chat, self.lim = service, chat, limits
        self.base = parse_url(service.url)
        self.channel: Any = None  # an HttpChannel while a match is played
        self.structured = chat.structured
        self.connection_faults = 0

    def _url(self, tail: str) -> Any:
        import httpcore

        base = self.base
        path = base.target.split("?", 1)[0].rstrip("/") + tail
        return httpcore.URL(
            scheme=base.scheme.encode(), host=base.host.encode(), port=base.port, target=path
        )

    def begin(self) -> str | None:
        """Open the connection and see the endpoint answer (any status): one
        that is down is a start fault, which a league's preflight makes a
        one-line load error."""
        from .transport import HttpChannel

        self.close()
        self.connection_faults, self.structured = 0, self.chat.structured
        try:
            secret = token(self.service)
        except BotLoadError as e:
            self.lost = True
            return f"{START}: {e}"
        self.channel = HttpChannel(
            self.base,
            secret,
            self.service.allow_private,
            self.lim.output_kb * 1024,
            self.lim.decision_seconds,
        )
        try:
            self.channel.call(
                b"GET", self._url("/models"), None, _after(self.lim.start_seconds), any_status=True
            )
        except BotFault as e:
            self.lost = True
            return f"{START}: the endpoint {self.base.text} does not answer: {e}"
        return None

    def answer(
        self, exchange: Exchange, prompt: Prompt, kind: str, view: Any, args: tuple[Any, ...]
    ) -> tuple[Any, str | None]:
        lim = self.lim
        allowed = max(0.0, min(lim.decision_seconds, lim.match_seconds - self.spent))
        deadline = _after(allowed)
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"{self.briefing}\n\n{prompt.text}"},
        ]
        fault = ""
        for _ in range(self.chat.retries + 1):
            try:
                reply = self._complete(exchange, messages, kind, prompt, deadline, allowed)
            except BotFault as e:
                if e.kind == CRASH:
                    self.connection_faults += 1
                exchange.reasons.append(str(e))
                return None, str(e)
            try:
                return self.parse(exchange, kind, view, args, reply), None
            except Unparsed as e:
                fault = f"{e.fault}: {e.reason}"
                messages += [
                    {"role": "assistant", "content": reply},
                    {
                        "role": "user",
                        "content": f"That is not an answer: {e.reason}. Reply again with "
                        "one JSON object in the answer form.",
                    },
                ]
        replies = len(exchange.replies)
        return None, f"{fault} (after {replies} {'reply' if replies == 1 else 'replies'})"

    def _complete(
        self,
        exchange: Exchange,
        messages: list[dict[str, str]],
        kind: str,
        prompt: Prompt,
        deadline: float,
        allowed: float,
    ) -> str:
        """The model's reply; raises BotFault (timeout, crash, protocol)."""
        body: dict[str, Any] = {"model": self.chat.model, "messages": messages}
        if self.chat.temperature is not None:
            body["temperature"] = self.chat.temperature
        if self.chat.max_tokens is not None:
            body["max_tokens"] = self.chat.max_tokens
        retries, backoff = 0, BACKOFF_SECONDS
        while True:
            if self.structured:
                schema = {"name": kind, "schema": dict(prompt.schema)}
                body["response_format"] = {"type": "json_schema", "json_schema": schema}
            else:
                body.pop("response_format", None)
            data = json.dumps(body).encode()
            try:
                status, headers, said = self.channel.call(
                    b"POST", self._url("/chat/completions"), data, deadline, allowed, True
                )
            except BotFault as e:
                if e.kind != CRASH or retries >= SERVER_RETRIES:
                    raise
                status, headers, said = 0, [], str(e).encode()  # dropped: tried again
            if 200 <= status < 300:
                return self._reply(exchange, said)
            snippet = said.decode("utf-8", "replace")[:120]
            if status == 429:
                wait = _retry_after(headers)
                if time.perf_counter() + wait >= deadline:
                    raise BotFault(
                        TIMEOUT,
                        f"rate limited (HTTP 429): Retry-After {wait:g} s runs past the "
                        f"decision's {allowed:.3g} s",
                    )
                time.sleep(wait)
                continue
            if status == 400 and self.structured:  # no structured output here: read the prose
                self.structured = False
                continue
            if (status == 0 or status >= 500) and retries < SERVER_RETRIES:
                retries += 1
                time.sleep(max(0.0, min(backoff, deadline - time.perf_counter())))
                backoff *= 2
                continue
            raise BotFault(PROTOCOL, f"HTTP status {status}: {snippet}")

    def _reply(self, exchange: Exchange, said: bytes) -> str:
        """The text of a chat completion, its tokens counted."""
        try:
            answer = json.loads(said)
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            raise BotFault(PROTOCOL, "the answer is not a chat completion") from None
        usage = answer.get("usage") if isinstance(answer, dict) else None
        if isinstance(usage, dict):
            for key, attr in (("prompt_tokens", "tokens_in"), ("completion_tokens", "tokens_out")):
                n = usage.get(key)
                if type(n) is int and n >= 0:
                    setattr(exchange, attr, getattr(exchange, attr) + n)
                    setattr(self, attr, getattr(self, attr) + n)
        return content if isinstance(content, str) else ""

    def forfeits(self, faults: int) -> bool:
        return super().forfeits(faults) or self.connection_faults >= MAX_CONNECTION_FAULTS

    def end(self, result: Any) -> str | None:
        self.close()
        return None

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None


def _after(seconds: float) -> float:
    return time.perf_counter() + seconds


def _retry_after(headers: list[tuple[bytes, bytes]]) -> float:
    """Seconds a 429 asks to wait (its Retry-After in seconds; else a second)."""
    for name, value in headers:
        if name.lower() == b"retry-after":
            try:
                wait = float(value.strip())
            except ValueError:
                break  # (an HTTP date: not waited for exactly)
            if wait >= 0:
                return wait
    return RATE_WAIT_SECONDS
