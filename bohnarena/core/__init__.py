"""The seam every other part stands on: the game protocol, errors, seeds,
plugin loading, what a bot is given, stopping."""
