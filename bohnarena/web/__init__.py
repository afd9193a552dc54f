"""Bots served over HTTP (docs/http-bots.md): the seat, its transport, the
address guard, and a reference service."""
