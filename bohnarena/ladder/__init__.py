"""A ladder: bots submitted at any time, checked in the sandbox, played as a
league that grows (docs/ladder.md)."""
