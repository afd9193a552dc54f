"""bohnarena: a tournament runner for Bohnanza bots."""

__version__ = "0.3.0"
