"""A ladder's participants' tokens (docs/site.md): a token is drawn by
``secrets``, shown once by ``ladder token add`` and kept only as its
SHA-256 (a token is 256 random bits: no one finds it from its hash, so no
slow hash is needed) in ``tokens.json``, a file replaced whole under a
lock. Each holder may touch the entries its fnmatch pattern names.

Every look-up reads the file afresh (a revoke takes effect at once) and
compares the token's hash with every kept one in constant time."""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..store.parts import write_text
from .settings import LadderError
from .submission import ENTRY_NAME

TOKENS = "tokens.json"
#: A pattern of entry names: their characters and fnmatch's ``*?[]!``.
PATTERN = re.compile(r"^[A-Za-z0-9_*?\[\]!-]{1,64}$")
#: Random bytes in a token (43 characters of URL-safe base64).
TOKEN_BYTES = 32


class TokenError(LadderError, ValueError):
    """A token's holder unknown, taken or badly named, in one line."""


@dataclass(frozen=True)
class Holder:
    name: str  # who holds the token (a participant)
    entries: str  # fnmatch pattern of the entry names it may touch (default: the name itself)

    def may_touch(self, entry: str) -> bool:
        return fnmatchcase(entry, self.entries)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenBook:
    """The tokens of the ladder at ``ladder``."""

    def __init__(self, ladder: Path) -> None:
        self.path = ladder / TOKENS

    def add(self, name: str, entries: str | None = None) -> str:
        """A new token for ``name`` (who holds none yet), returned: it is
        shown once; only its hash is kept."""
        if not ENTRY_NAME.match(name):  # named as an entry is
            raise TokenError(
                f"holder name {name!r} must be letters, digits, '_' or '-' (at most 64), "
                "as an entry's"
            )
        entries = name if entries is None else entries
        if not PATTERN.match(entries):
            raise TokenError(
                f"--entries {entries!r} must be entry names' characters and the wildcards "
                "* ? [ ] ! (at most 64)"
            )
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._changing() as kept:
            if name in kept:
                raise TokenError(f"{name!r} holds a token already: revoke it first")
            kept[name] = {"sha256": digest(token), "entries": entries, "added": time.time()}
        return token

    def holders(self) -> list[Holder]:
        return [Holder(n, k["entries"]) for n, k in sorted(self._read().items())]

    def revoke(self, name: str) -> None:
        with self._changing() as kept:
            if kept.pop(name, None) is None:
                raise TokenError(f"{name!r} holds no token")

    def holder(self, token: str) -> Holder | None:
        """Who holds ``token``, or None."""
        return self.holder_of_digest(digest(token))

    def holder_of_digest(self, sha256: str) -> Holder | None:
        """Who holds the token whose hash is ``sha256``, or None: every kept
        hash compared (no early end), each in constant time."""
        found = None
        for name, k in self._read().items():
            if hmac.compare_digest(sha256, k["sha256"]):
                found = Holder(name, k["entries"])
        return found

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise TokenError(f"cannot read {self.path}: {e.strerror or e}") from None
        try:
            kept = json.loads(text)
            if not isinstance(kept, dict):
                raise ValueError("not a table")
            for k in kept.values():
                if not isinstance(k.get("sha256"), str) or not isinstance(k.get("entries"), str):
                    raise ValueError("a holder without its hash or pattern")
        except (ValueError, AttributeError) as e:
            raise TokenError(f"{self.path} does not read: {e}") from None
        return kept

    @contextmanager
    def _changing(self) -> Iterator[dict[str, dict[str, Any]]]:
        """The kept tokens, changed in the block and written back whole
        (one writer at a time; a reader sees the old file or the new)."""
        lock_path = self.path.with_name(f".{TOKENS}.lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            kept = self._read()
            yield kept
            write_text(self.path, json.dumps(kept, indent=1, sort_keys=True) + "\n")
            os.chmod(self.path, 0o600)  # (a hash is no secret, but no one else's business)
