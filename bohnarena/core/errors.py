"""Typed errors. Each carries a one-line message meant for the user.

Every exception bohnarena defines is a :class:`BohnarenaError`, some also a
built-in where that helps a caller (``IllegalAnswer`` is a ``ValueError``),
and each lives beside the code that raises it or here. Outside the
hierarchy on purpose (``tests/core/test_errors.py`` lists them): the control-flow
signals a step or a replay raises to stop early (``MatchOver`` and the
card game's ``GameOver``, ``gamestate._Pause``, ``replaylog.Stop``), and
two BaseExceptions no ``except Exception`` may swallow: ``DecisionTimeout``
(inside a bot's decision) and ``stopping.Stopped`` (a KeyboardInterrupt).
"""

from __future__ import annotations


class BohnarenaError(Exception):
    """Base of every error bohnarena raises on purpose."""


class UsageError(BohnarenaError):
    """Bad input from the user: the CLI prints the message and exits with 2."""


class RulesError(UsageError):
    """Unknown edition, option, or a player count the edition does not allow."""


class BotLoadError(UsageError):
    """A bot spec that does not name a loadable bot class."""


class IllegalAnswer(BohnarenaError, ValueError):
    """A bot's answer that the rules do not allow (recorded as a fault)."""
