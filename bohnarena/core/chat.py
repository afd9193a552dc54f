"""A language model at the table, as a league gives it: any OpenAI-compatible
chat-completions endpoint (docs/text-seats.md). Its URL, ``allow_private``
and token follow the rules of bots served over HTTP (services.py: a token
only from a ``BOHNARENA_TOKEN_<KEY>`` variable or a file in ``--secrets``).

In a league file::

    [bots]
    llama = { chat = "http://127.0.0.1:8080/v1", model = "qwen2.5-7b", allow_private = true,
              temperature = 0.2, max_tokens = 200, system = "prompt.md", retries = 2 }

On ``play``'s command line, the same keys after the URL (:func:`cli_chat`)::

    'chat:http://127.0.0.1:8080/v1?model=qwen2.5-7b&temperature=0.2&max_tokens=200'
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import BotLoadError, UsageError
from .services import CLI_TOKEN_ENV, HTTP, Service, service, with_secrets
from .services import KEYS as SERVICE_KEYS

#: The keys of a chat bot's table.
KEYS = frozenset(
    {"chat", "model", "temperature", "max_tokens", "system", "retries", "structured", "decisions"}
    | SERVICE_KEYS
)
#: The longest system prompt file read.
MAX_SYSTEM_BYTES = 64 * 1024
MAX_RETRIES = 10


@dataclass(frozen=True)
class Chat:
    """How a model is asked (what the endpoint's URL and token do not say)."""

    model: str
    temperature: float | None = None
    max_tokens: int | None = None
    #: The system prompt's file (read when the seat is made; None: none).
    system: str | None = None
    #: Replies that are no legal answer asked again, the reason sent back,
    #: before the default is played with a fault.
    retries: int = 2
    #: Ask for the answer's JSON schema (``response_format``); a server
    #: that refuses it is asked without it for the rest of the match.
    structured: bool = True
    #: The decisions the model is asked (None: every one); the others are
    #: played with their defaults, unasked (as a bot that does not answer them).
    decisions: tuple[str, ...] | None = None

    def identity(self) -> bytes:
        """What the bot's source hash holds of it (beside its URL): its
        settings and its system prompt's text. Raises BotLoadError."""
        return json.dumps({**asdict(self), "system": read_system(self)}, sort_keys=True).encode()


def chat_entry(
    name: str, value: dict[str, Any], where: str, base: Path | None
) -> tuple[Service, Chat]:
    """The service and settings of league bot ``name`` from its table
    (``chat`` is its endpoint's base URL). Raises UsageError in one line."""
    said = f"{where}: bot {name!r}"
    other = sorted(set(value) - KEYS)
    if other:
        raise UsageError(f"{said}: a chat bot takes no {other[0]!r} (it takes {_known()})")
    url = value["chat"]
    if not isinstance(url, str):
        raise UsageError(f"{said}: chat must be the endpoint's URL (e.g. http://host:8080/v1)")
    served = {k: v for k, v in value.items() if k in SERVICE_KEYS}
    svc = service(name, {"spec": url, **served}, where)
    model = value.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UsageError(f"{said}: model must name the model the endpoint serves")
    temperature = value.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not math.isfinite(temperature)
        or not 0 <= temperature <= 2
    ):
        raise UsageError(f"{said}: temperature must be a number from 0 to 2")
    tokens = value.get("max_tokens")
    if tokens is not None and (type(tokens) is not int or tokens < 1):
        raise UsageError(f"{said}: max_tokens must be a whole number above 0")
    retries = value.get("retries", 2)
    if type(retries) is not int or not 0 <= retries <= MAX_RETRIES:
        raise UsageError(f"{said}: retries must be a whole number from 0 to {MAX_RETRIES}")
    structured = value.get("structured", True)
    if not isinstance(structured, bool):
        raise UsageError(f"{said}: structured must be true or false")
    system = _system(value.get("system"), said, base)
    asked = value.get("decisions")
    if asked is not None and (
        not isinstance(asked, list) or not asked or not all(isinstance(d, str) for d in asked)
    ):
        raise UsageError(f"{said}: decisions must be a list of the game's decision names")
    temp = None if temperature is None else float(temperature)
    chosen = None if asked is None else tuple(asked)
    return svc, Chat(model, temp, tokens, system, retries, structured, chosen)


#: A model given on the command line: ``chat:URL?model=NAME&KEY=VALUE...``.
CHAT_PREFIX = "chat:"
_NUMBERS = {"temperature": float, "max_tokens": int, "retries": int}
_FLAGS = {"structured", "allow_private"}
_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def cli_chat(spec: str, where: str) -> tuple[Service, Chat]:
    """The service and settings of a model given on the command line as
    ``chat:URL?model=NAME&KEY=VALUE...``: the keys of a league's chat bot
    (:data:`KEYS`), read and checked as a league's (:func:`chat_entry`;
    ``decisions`` comma-separated, ``system`` a file below the working
    directory). Typed by the operator, so a private address is allowed, as
    for a URL bot on the command line (``allow_private=false`` refuses one);
    its token only from an environment variable, :data:`CLI_TOKEN_ENV` or
    ``token_env=BOHNARENA_TOKEN_<KEY>``: never in the spec (it would be in
    the shell's history and the process list). Raises UsageError in one line."""
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    url = spec[len(CHAT_PREFIX) :] if spec.startswith(CHAT_PREFIX) else spec
    form = f"{CHAT_PREFIX}URL?model=NAME&KEY=VALUE..."
    try:
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise UsageError(f"{where}: cannot read {url[:80]!r} as {form}") from None
    value: dict[str, Any] = {"allow_private": True}
    given: set[str] = set()
    for key, raw in pairs:
        if key in given:
            raise UsageError(f"{where}: {key} is given twice")
        given.add(key)
        if key in ("token", "api_key", "key", "token_file"):
            raise UsageError(
                f"{where}: a token is never given on the command line (the shell's history "
                f"and the process list keep it): put it in {CLI_TOKEN_ENV}, or in a "
                f"{CLI_TOKEN_ENV}_<KEY> variable named by token_env="
            )
        value[key] = _cli_value(key, raw, where)
    if "token_env" not in value and os.environ.get(CLI_TOKEN_ENV, "").strip():
        value["token_env"] = CLI_TOKEN_ENV
    value["chat"] = urlunsplit(parts._replace(query="", fragment=""))
    if "model" not in value:
        raise UsageError(f"{where}: name the model the endpoint serves: {form}")
    svc, chat = chat_entry(str(value["model"]), value, where, Path.cwd())
    return with_secrets(svc, None, f"{where}: bot {chat.model!r}"), chat


def _cli_value(key: str, raw: str, where: str) -> Any:
    """A setting's value typed as a league file gives it."""
    if key in _NUMBERS:
        try:
            return _NUMBERS[key](raw)
        except ValueError:
            raise UsageError(f"{where}: {key} must be a number, not {raw[:40]!r}") from None
    if key in _FLAGS:
        if raw.lower() not in _WORDS:
            raise UsageError(f"{where}: {key} must be true or false, not {raw[:40]!r}")
        return _WORDS[raw.lower()]
    if key == "decisions":
        return [d.strip() for d in raw.split(",") if d.strip()]
    return raw


def _system(file: Any, said: str, base: Path | None) -> str | None:
    """The system prompt file: beside the league file or below it, never
    elsewhere (a league file can come from anyone, and the prompt goes to
    the endpoint); absolute once ``base`` is known (a frozen copy of the
    league, parsed again without it, keeps it as written)."""
    if file is None:
        return None
    refused = UsageError(
        f"{said}: system {file!r} is refused: it names a file beside the league file or below it"
    )
    if not isinstance(file, str) or not file:
        raise UsageError(f"{said}: system must name a file beside the league file")
    if Path(file).is_absolute() or ".." in Path(file).parts:
        raise refused
    if base is None:
        return file
    home = base.resolve()
    path = (home / file).resolve()
    if not path.is_relative_to(home):  # (a link out)
        raise refused
    if not path.is_file():
        raise UsageError(f"{said}: system {file!r}: no such file beside the league file")
    return str(path)


def read_system(chat: Chat) -> str:
    """The system prompt's text (empty: none). Raises BotLoadError."""
    if chat.system is None:
        return ""
    try:
        with open(chat.system, "rb") as f:
            raw = f.read(MAX_SYSTEM_BYTES + 1)
    except OSError as e:
        raise BotLoadError(
            f"cannot read the system prompt {chat.system}: {e.strerror or e}"
        ) from None
    if len(raw) > MAX_SYSTEM_BYTES:
        raise BotLoadError(f"the system prompt {chat.system} is over {MAX_SYSTEM_BYTES // 1024} KB")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BotLoadError(f"the system prompt {chat.system} is not UTF-8 text") from None


def _known() -> str:
    return ", ".join(sorted(KEYS))


__all__ = ["CHAT_PREFIX", "HTTP", "KEYS", "Chat", "chat_entry", "cli_chat", "read_system"]
