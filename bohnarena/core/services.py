"""Bots served over HTTP, as a league declares them: the URL (checked up
front: http or https, a host, no credentials in it), whether it may be on a
private address, and where its bearer token is kept (never the token
itself: it is read where a match is played, and sent to that URL's origin
alone). Where the URL's addresses may be reached is checked at each
connection (bohnarena/external/http/netguard.py).

In a league file::

    [bots]
    hosted = "https://bots.example.org/bohnanza"
    ours = { spec = "https://bots.example.org/o", token_env = "BOHNARENA_TOKEN_OURS" }
    theirs = { spec = "https://bots.example.org/t", token_file = "theirs.token" }

A league file can come from anyone, so it names a token only where the
organiser put tokens: an environment variable ``BOHNARENA_TOKEN_<KEY>``
(or the command line's ``BOHNARENA_TOKEN``), or a file by its bare name in
the secrets directory the run is given (``--secrets DIR``), never any
other variable or path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import BotLoadError, UsageError

SCHEMES = {"http": 80, "https": 443}


class UrlError(UsageError):
    """A bot URL that cannot be used (said without the URL when it holds credentials)."""


def is_url(spec: str) -> bool:
    """Whether a bot spec names a service (``http://`` or ``https://``)."""
    head = spec.strip().lower()
    return head.startswith(("http://", "https://"))


@dataclass(frozen=True)
class BotUrl:
    """A checked bot URL: ``scheme://host:port/target``."""

    scheme: str
    host: str  # a name (lower case ASCII) or an IP address, without brackets
    port: int
    target: str  # the path and query, at least "/"

    @property
    def authority(self) -> str:
        """Host and port as the Host header gives them (the port only if not the default)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if SCHEMES[self.scheme] == self.port else f"{host}:{self.port}"

    @property
    def text(self) -> str:
        """The URL as run.json records it (never with credentials: they are refused)."""
        return f"{self.scheme}://{self.authority}{self.target}"

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port


def parse_url(spec: str) -> BotUrl:
    """Check a bot URL: http or https, a host, no credentials in it (a token
    goes in ``token_env`` or ``token_file``), no fragment. Raises UrlError."""
    text = spec.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as e:
        raise UrlError(f"{_shown(text)} is not a usable URL: {e}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise UrlError(f"{_shown(text)}: a bot URL starts with http:// or https://")
    if "@" in parts.netloc:
        # Not echoed: what stands before the @ may be a password.
        raise UrlError(
            "a bot URL must not hold credentials (user:password@): give the "
            "bot a token with token_env or token_file"
        )
    host = parts.hostname or ""
    if not host:
        raise UrlError(f"{_shown(text)}: no host")
    if not host.isascii() or any(c.isspace() or c in "%/\\" for c in host):
        raise UrlError(f"{_shown(text)}: write the host in ASCII (an IDN as its xn-- form)")
    if parts.fragment or text.endswith("#"):
        raise UrlError(f"{_shown(text)}: a bot URL has no #fragment")
    if any(c.isspace() or not c.isprintable() for c in text):
        raise UrlError(f"{_shown(text)}: a URL has no spaces or control characters")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return BotUrl(scheme, host, SCHEMES[scheme] if port is None else port, target)


def _shown(text: str) -> str:
    return repr(text[:200])


#: What an HTTP bot's isolation reads as: it runs where it is served.
HTTP = "http"
#: The keys of a bot's table that go with an http:// or https:// spec only.
KEYS = frozenset({"token_env", "token_file", "allow_private"})
#: RFC 6750's b64token: all a bearer token may hold (no line break can
#: forge a header, no space a second credential).
TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")
MAX_TOKEN_BYTES = 4096
#: The environment variable whose token goes to a URL given on the command line.
CLI_TOKEN_ENV = "BOHNARENA_TOKEN"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The variables a league may send: the organiser's, by this prefix.
TOKEN_ENV = re.compile(rf"{CLI_TOKEN_ENV}(_[A-Za-z0-9_]+)?")
#: A token file's key: a bare name in the secrets directory (no path, no dot first).
FILE_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Service:
    """Where an HTTP bot is served, and how it is let in."""

    url: str  # checked by netguard.parse_url; never holds credentials
    allow_private: bool = False
    token_env: str | None = None  # the environment variable that holds its token
    token_file: str | None = None  # or the file's key (its name in ``secrets``)
    secrets: str | None = None  # the secrets directory (absolute), given to the run


class SecretError(UsageError):
    """A token named somewhere the organiser did not put tokens."""


def service(name: str, value: dict[str, Any], where: str) -> Service:
    """The service of league bot ``name`` from its table (``spec`` is its
    URL). Where its token may come from is checked when it is played
    (:func:`with_secrets`): an old run's league still reads. Raises UsageError."""
    said = f"{where}: bot {name!r}"
    other = sorted(set(value) - KEYS - {"spec"})
    if other:
        raise UsageError(
            f"{said}: an HTTP bot runs where it is served: it takes no {other[0]!r} "
            f"(it takes {', '.join(sorted(KEYS))})"
        )
    try:
        url = parse_url(value["spec"])
    except UsageError as e:
        raise UsageError(f"{said}: {e}") from None
    allow = value.get("allow_private", False)
    if not isinstance(allow, bool):
        raise UsageError(f"{said}: allow_private must be true or false")
    env, file = value.get("token_env"), value.get("token_file")
    if env is not None and file is not None:
        raise UsageError(f"{said}: give its token in token_env or token_file, not both")
    if env is not None and (not isinstance(env, str) or not ENV_NAME.fullmatch(env)):
        raise UsageError(f"{said}: token_env must name an environment variable")
    if file is not None and (not isinstance(file, str) or not file):
        raise UsageError(f"{said}: token_file must name a file")
    return Service(url.text, allow, env, file)


def with_secrets(svc: Service, secrets: Path | None, said: str) -> Service:
    """``svc`` as it may be played, given the run's secrets directory (None:
    none given). Raises SecretError, in one line, for a token named anywhere
    but where the organiser puts tokens."""
    if svc.token_env is not None and not TOKEN_ENV.fullmatch(svc.token_env):
        raise SecretError(
            f"{said}: token_env {svc.token_env!r} is refused: a league names only "
            f"{CLI_TOKEN_ENV}_<KEY> variables (put the token in one and name that)"
        )
    if svc.token_file is None:
        return svc
    if not FILE_KEY.fullmatch(svc.token_file):
        raise SecretError(
            f"{said}: token_file {_shown(svc.token_file)} is refused: it is a bare file "
            "name in the secrets directory (--secrets DIR), no path"
        )
    if secrets is None:
        raise SecretError(
            f"{said}: its token_file {svc.token_file!r} is read from the secrets "
            "directory: give --secrets DIR (token files are not read beside a league file)"
        )
    return replace(svc, secrets=str(secrets.resolve()))


def secret_path(svc: Service) -> Path:
    """Where ``svc``'s token file is: in its secrets directory, after every
    link. Raises BotLoadError where it is not (a link out of the directory)."""
    assert svc.token_file is not None
    if svc.secrets is None or not FILE_KEY.fullmatch(svc.token_file):
        raise BotLoadError(f"the token file {svc.token_file} needs a secrets directory")
    home = Path(svc.secrets).resolve()
    path = (home / svc.token_file).resolve()
    if path.parent != home:
        raise BotLoadError(f"the token file {svc.token_file} leads out of the secrets directory")
    return path


def cli_service(url: str) -> Service:
    """A service given on the command line (``play``, ``check-bot``,
    ``compare``): the operator typed it, so it may be on a private address
    (a league file can come from anyone: it must say ``allow_private``),
    and its token, if any, is in :data:`CLI_TOKEN_ENV`. Raises UsageError."""
    env = CLI_TOKEN_ENV if os.environ.get(CLI_TOKEN_ENV, "").strip() else None
    return Service(parse_url(url).text, allow_private=True, token_env=env)


def cli_table(url: str) -> dict[str, Any]:
    """The league table of :func:`cli_service` (a comparison's league file)."""
    svc = cli_service(url)
    table: dict[str, Any] = {"spec": svc.url, "allow_private": True}
    return table if svc.token_env is None else {**table, "token_env": svc.token_env}


def misplaced(name: str, value: dict[str, Any], where: str) -> None:
    """Refuse a service's keys on a bot that is not served over HTTP."""
    found = sorted(KEYS & set(value))
    if found:
        raise UsageError(f"{where}: bot {name!r}: {found[0]} goes with an http:// or https:// spec")


def is_service(value: Any) -> bool:
    """Whether a league's bot value (a spec, or a table) names an HTTP bot."""
    spec = value.get("spec") if isinstance(value, dict) else value
    return isinstance(spec, str) and is_url(spec)


def token(svc: Service) -> bytes | None:
    """The bearer token of ``svc`` (None: it has none), read now. Raises
    BotLoadError naming where it was looked for, never what was found."""
    if svc.token_env is not None:
        where = f"the environment variable {svc.token_env}"
        if not TOKEN_ENV.fullmatch(svc.token_env):
            raise BotLoadError(f"{where} is not a {CLI_TOKEN_ENV}_<KEY> variable")
        text = os.environ.get(svc.token_env, "")
        if not text.strip():
            raise BotLoadError(f"{where} (its token_env) is not set")
    elif svc.token_file is not None:
        where = f"the token file {svc.token_file}"
        try:
            # (no link is followed after the check: one made since is refused)
            fd = os.open(secret_path(svc), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with open(fd, "rb") as f:
                raw = f.read(MAX_TOKEN_BYTES + 1)
        except OSError as e:
            raise BotLoadError(f"cannot read {where}: {e.strerror or e}") from None
        if len(raw) > MAX_TOKEN_BYTES:
            raise BotLoadError(f"{where} holds more than a token ({MAX_TOKEN_BYTES} bytes at most)")
        text = raw.decode("ascii", errors="replace")
    else:
        return None
    text = text.strip()
    if not TOKEN.fullmatch(text):
        raise BotLoadError(
            f"{where} does not hold a bearer token (letters, digits and -._~+/, "
            "then = signs; one line)"
        )
    return text.encode("ascii")
