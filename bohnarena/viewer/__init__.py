"""Watching a match: the header of a replay (:mod:`.info`) and the match
viewer, one self-contained HTML page that draws the table move by move
(docs/viewer.md)."""
