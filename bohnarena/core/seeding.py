"""Seed derivation: every random stream comes from a master seed and a path.

The rule is stable across Python versions and platforms: the first 8 bytes of
BLAKE2b over the parts joined by '/' (parts rendered with str()).
"""

from __future__ import annotations

import hashlib
import secrets


def derive_seed(*parts: object) -> int:
    """A 64-bit seed for the stream named by ``parts`` (e.g. seed, "bot", 2)."""
    text = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


#: What a secret seed's commitment hashes first (docs/fairness.md): a hash
#: made for anything else can never pass for one.
COMMITMENT_DOMAIN = b"bohnarena seed commitment v1\0"


def new_salt() -> str:
    """A commitment's salt: 128 random bits, so the 63-bit seed cannot be
    found from its public commitment by trying seeds."""
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    """``sha256:`` and the hex of SHA-256 over the domain, the seed's decimal
    text, a NUL and the salt's hex text."""
    text = COMMITMENT_DOMAIN + str(seed).encode() + b"\0" + salt.encode()
    return "sha256:" + hashlib.sha256(text).hexdigest()
