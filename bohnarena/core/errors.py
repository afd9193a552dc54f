"""Typed errors. Each carries a one-line message meant for the user."""

from __future__ import annotations


class BohnarenaError(Exception):
    """Base of every error bohnarena raises on purpose."""


class UsageError(BohnarenaError):
    """Bad input from the user: the CLI prints the message and exits with 2."""


class RulesError(UsageError):
    """Unknown edition, option, or a player count the edition does not allow."""


class BotLoadError(UsageError):
    """A bot spec that does not name a loadable bot class."""


class IllegalAnswer(BohnarenaError):
    """A bot's answer that the rules do not allow (recorded as a fault)."""
