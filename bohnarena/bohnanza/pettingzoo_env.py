"""The card game's PettingZoo environment, kept at its old path for the
code that imports it from here: it lives in :mod:`bohnarena.rl.pettingzoo_env`
(a re-export only; new code imports from there)."""

from ..rl.pettingzoo_env import (
    REWARDS,
    TRADE_AREA_CAP,
    ActionLayout,
    BohnanzaEnv,
    ObservationLayout,
    env,
    max_fields,
    raw_env,
)

__all__ = [
    "REWARDS",
    "TRADE_AREA_CAP",
    "ActionLayout",
    "BohnanzaEnv",
    "ObservationLayout",
    "env",
    "max_fields",
    "raw_env",
]
