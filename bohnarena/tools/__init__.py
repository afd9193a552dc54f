"""Tools for bot authors: check-bot, new-bot, bench."""
