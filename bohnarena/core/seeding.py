"""Seed derivation: every random stream comes from a master seed and a path.

The rule is stable across Python versions and platforms: the first 8 bytes of
BLAKE2b over the parts joined by '/' (parts rendered with str()).
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 64-bit seed for the stream named by ``parts`` (e.g. seed, "bot", 2)."""
    text = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")
