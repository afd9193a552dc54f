"""Words for counts in what bohnarena prints: one plural rule for every
command and page."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: "1 fault", "2 matches"."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}{'es' if word.endswith(('ch', 'sh', 's', 'x')) else 's'}"
