"""Who is asking: a participant's token (``Authorization: Bearer`` on the
API), read afresh from the ladder's token book on every request so that a
revoke takes effect at once; the forms' CSRF fields; the site's key, which
signs them. A token is never logged, stored (the book keeps its hash) or
sent back; after a form's login the browser holds a session id, not the
token (``sessions.py``). The key stays in the ladder directory
(``site.key``, 0600), where no bot's sandbox shows it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from ..ladder.tokens import Holder, TokenBook

KEY_FILE = "site.key"
SESSION = "bohnarena_session"
CSRF = "bohnarena_csrf"


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
