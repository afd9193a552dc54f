"""Tuning a bot's parameters on duplicate deals (docs/tuning.md)."""
