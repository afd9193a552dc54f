"""Bohnanza, the card game: rules, bot protocol and match engine."""

from ..core.game import MatchResult
from .bot import Accept, Anytime, Bot, DraftPick, Offer, Proposal
from .match import Match, play_match
from .rules import RuleSet, edition_names, player_counts, ruleset, varieties
from .table import EMPTY
from .view import SeatView

__all__ = [
    "EMPTY",
    "Accept",
    "Anytime",
    "Bot",
    "DraftPick",
    "Match",
    "MatchResult",
    "Offer",
    "Proposal",
    "RuleSet",
    "SeatView",
    "edition_names",
    "play_match",
    "player_counts",
    "ruleset",
    "varieties",
]
