"""Bots served over HTTP (docs/http-bots.md): the seat, its transport, the
address guard, a language model's seat, and a reference service."""
