"""bohnarena: a tournament runner for Bohnanza bots."""

__version__ = "0.2.0"
