"""Who is asking: a participant's token (``Authorization: Bearer`` on the
API; a signed, HttpOnly, SameSite=Strict cookie after the form's login),
read afresh from the ladder's token book on every request so that a revoke
takes effect at once; the forms' CSRF tokens; the site's signing key.

A token is never logged, stored (the book keeps its hash) or sent back:
the cookie holds it encrypted (XORed with HMAC-SHA256 in counter mode
under a fresh nonce) and signed, by a key that stays in the ladder
directory (``site.key``, 0600), where no bot's sandbox shows it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

from ..ladder.tokens import Holder, TokenBook

KEY_FILE = "site.key"
SESSION = "bohnarena_session"
CSRF = "bohnarena_csrf"
#: How long a login lasts.
SESSION_SECONDS = 12 * 3600


def site_key(ladder: Path) -> bytes:
    """The key that signs the site's cookies: made once (mode 0600), then read."""
    path = ladder / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
        raise RuntimeError(f"{path} is damaged: delete it (every login ends)") from None
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


def _mac(key: bytes, *parts: str) -> str:
    text = "\0".join(parts).encode()
    return base64.urlsafe_b64encode(hmac.new(key, text, hashlib.sha256).digest()).decode()


def _keystream(key: bytes, nonce: bytes, size: int) -> bytes:
    """``size`` bytes of HMAC-SHA256 (a pseudorandom function) in counter mode."""
    blocks = (size + 31) // 32
    return b"".join(
        hmac.new(key, b"stream\0" + nonce + i.to_bytes(4, "big"), hashlib.sha256).digest()
        for i in range(blocks)
    )[:size]


def _xor(data: bytes, stream: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header (None: none sent)."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def holder_of(ladder: Path, token: str | None) -> Holder | None:
    """The holder of ``token`` now (None: no token, unknown or revoked)."""
    if not token or len(token) > 512:
        return None
    return TokenBook(ladder).holder(token)


def session_cookie(key: bytes, token: str, now: float | None = None) -> str:
    """The cookie a login sets: the token encrypted, when it expires, and their MAC."""
    until = str(int((now or time.time()) + SESSION_SECONDS))
    nonce, data = secrets.token_bytes(16), token.encode()
    sealed = nonce + _xor(data, _keystream(key, nonce, len(data)))
    encoded = base64.urlsafe_b64encode(sealed).decode()
    return f"{encoded}.{until}.{_mac(key, 'session', encoded, until)}"


def session_token(key: bytes, cookie: str | None, now: float | None = None) -> str | None:
    """The token a session cookie holds, if it is ours and has not expired."""
    if not cookie or cookie.count(".") != 2:
        return None
    encoded, until, mac = cookie.split(".")
    if not hmac.compare_digest(mac, _mac(key, "session", encoded, until)):
        return None
    if not until.isdigit() or int(until) < (now or time.time()):
        return None
    try:
        sealed = base64.urlsafe_b64decode(encoded.encode())
        nonce, data = sealed[:16], sealed[16:]
        return _xor(data, _keystream(key, nonce, len(data))).decode()
    except ValueError:
        return None


def new_csrf_cookie() -> str:
    """A browser's CSRF secret (its cookie); forms carry its MAC."""
    return secrets.token_urlsafe(24)


def csrf_field(key: bytes, cookie: str) -> str:
    """The hidden field a form carries for the browser whose CSRF cookie is ``cookie``."""
    return _mac(key, "csrf", cookie)


def csrf_ok(key: bytes, cookie: str | None, sent: str | None) -> bool:
    """Whether a form's field is the MAC of the browser's own CSRF cookie (a
    page of another site can make the browser send the cookie, never read it)."""
    if not cookie or not sent:
        return False
    return hmac.compare_digest(sent, csrf_field(key, cookie))
