"""A study (docs/tuning.md): a bot's parameters searched by Optuna, each
trial a paired comparison of the candidate with the baseline on duplicate
deals (run/paired.py), its objective the mean per-deal coin difference.

Trials run one after another, each one's matches on ``workers`` processes.
The study lives in an SQLite file: a trial that was playing when the study
stopped (Ctrl-C, ``kill -9``) is played again with the same parameters on
the same deals when it resumes. A trial's deals and its sampler's seed
derive from the study's seed and the trial's slot (how many trials had
finished before it), so a study resumed ends where one that ran through
does, trial for trial.
"""

from __future__ import annotations

import json
import logging
import math
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.params import Param, declared, join_spec, split_spec
from ..core.seeding import derive_seed
from ..rating.paired import Estimate
from ..run.paired import play_pairs

KINDS = ("float", "int", "log")
CANDIDATE, BASELINE = "candidate", "baseline"


@dataclass(frozen=True)
class Dimension:
    """One parameter's search range (``--param NAME=LOW:HIGH[:int|:log]``)."""

    name: str
    low: float
    high: float
    kind: str  # "float", "int" or "log" (a float, or an int if declared so, on a log scale)
    integer: bool = False

    @property
    def log(self) -> bool:
        return self.kind == "log"


def parse_dimension(text: str, params: Mapping[str, tuple[Param, type]]) -> Dimension:
    """``NAME=LOW:HIGH[:int|:log]``, checked against what the bot declares."""
    m = re.fullmatch(r"\s*(\w+)\s*=\s*([^:]+):([^:]+)(?::(\w+))?\s*", text)
    if m is None:
        raise UsageError(f"--param {text!r}: write NAME=LOW:HIGH, or NAME=LOW:HIGH:int or :log")
    name, low_text, high_text, kind = m.group(1), m.group(2), m.group(3), m.group(4) or "float"
    if name not in params:
        known = ", ".join(sorted(params)) or "none"
        raise UsageError(f"--param {text!r}: the bot declares no {name!r} (declared: {known})")
    if kind not in KINDS:
        raise UsageError(f"--param {text!r}: the scale is int or log, not {kind!r}")
    param, declared_type = params[name]
    integer = declared_type is int
    if kind == "int" and not integer:
        raise UsageError(f"--param {text!r}: {name} is a float parameter")
    try:
        low, high = float(low_text), float(high_text)
    except ValueError:
        raise UsageError(f"--param {text!r}: LOW and HIGH are numbers") from None
    if integer and not (low.is_integer() and high.is_integer()):
        raise UsageError(f"--param {text!r}: {name} is an int parameter: LOW and HIGH are ints")
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        raise UsageError(f"--param {text!r}: LOW must be below HIGH")
    if low < param.low or high > param.high:
        raise UsageError(
            f"--param {text!r}: outside {name}'s declared range [{param.low:g}, {param.high:g}]"
        )
    if kind == "log" and low <= 0:
        raise UsageError(f"--param {text!r}: a log scale needs LOW above 0")
    return Dimension(name, low, high, kind, integer)


@dataclass(frozen=True)
class Setup:
    """What a study is: a resumed study must be the same one."""

    spec: str  # the bot, with any parameters it fixes
    dimensions: tuple[Dimension, ...]
    baseline: str  # the spec the candidates are compared with
    opponents: tuple[tuple[str, str], ...]  # (name, spec)
    game: str
    edition: str
    players: int
    deals: int  # a trial's
    seed: int
    seatings: str = "rotations"
    rules: Mapping[str, Any] = field(default_factory=dict)
    #: A trial's rounds of ``deals`` deals at most: the next is played while
    #: it stays above the median of the trials before it (1: every trial one).
    rungs: int = 1

    def facts(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def candidate(self, values: Mapping[str, int | float]) -> str:
        """The spec of the bot with ``values`` set (over the parameters its spec fixes)."""
        base, fixed = split_spec(self.spec)
        return join_spec(base, {**fixed, **values})


def bot_parameters(cls: type) -> dict[str, tuple[Param, type]]:
    return declared(cls)


@dataclass(frozen=True)
class Trial:
    slot: int
    values: dict[str, int | float]
    estimate: Estimate  # the candidate minus the baseline, coins a deal
    pruned: bool = False  # stopped before its last round: never the best

    @property
    def objective(self) -> float:
        return self.estimate.mean


def startup_trials(setup: Setup) -> int:
    """Trials drawn at random before the sampler models the others."""
    return 4 + 2 * len(setup.dimensions)


def open_study(setup: Setup, path: Path) -> Any:
    """The Optuna study kept in ``path`` (created, or resumed when it holds this very study)."""
    import optuna

    optuna.logging.set_verbosity(logging.WARNING)
    path.parent.mkdir(parents=True, exist_ok=True)
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
    study = optuna.create_study(
        storage=storage, study_name="tune", direction="maximize", load_if_exists=True
    )
    kept = study.user_attrs.get("setup")
    if kept is None:
        study.set_user_attr("setup", setup.facts())
    elif kept != setup.facts():
        raise UsageError(
            f"{path} holds a study of other settings (bot, parameters, baseline, opponents, "
            "table or seed); give another --study file, or the same settings to resume it"
        )
    return study


def done_trials(study: Any) -> list[Trial]:
    """The study's finished trials, by slot."""
    from optuna.trial import TrialState

    found = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)):
        a = t.user_attrs
        estimate = Estimate(a["deals"], a["mean"], a["sd"])
        found.append(Trial(a["slot"], dict(t.params), estimate, t.state == TrialState.PRUNED))
    return sorted(found, key=lambda t: t.slot)


def requeue_stale(study: Any) -> int:
    """A trial left playing (the study was stopped): failed, and queued
    again with its parameters, to be played again in its slot."""
    from optuna.trial import TrialState

    stale = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    for t in stale:
        study.tell(t.number, state=TrialState.FAIL)
        study.enqueue_trial(dict(t.params))
    return len(stale)


def suggest(trial: Any, d: Dimension) -> int | float:
    if d.integer:
        return int(trial.suggest_int(d.name, int(d.low), int(d.high), log=d.log))
    return float(trial.suggest_float(d.name, d.low, d.high, log=d.log))


def trial_settings(setup: Setup, slot: int, deals: int, seed: int) -> dict[str, Any]:
    return {
        "name": f"tune-trial-{slot}",
        "game": setup.game,
        "edition": setup.edition,
        "players": setup.players,
        "deals": deals,
        "seed": seed,
        "seatings": setup.seatings,
    }


def pooled(a: Estimate, b: Estimate) -> Estimate:
    """The estimate of ``a``'s and ``b``'s differences together."""
    n = a.n + b.n
    mean = (a.n * a.mean + b.n * b.mean) / n
    squares = (a.n - 1) * a.sd**2 + (b.n - 1) * b.sd**2 + a.n * b.n / n * (a.mean - b.mean) ** 2
    return Estimate(n, mean, math.sqrt(squares / (n - 1)) if n > 1 else 0.0)


def play_trial(
    setup: Setup, values: Mapping[str, int | float], slot: int, workers: int | None, rung: int = 0
) -> Estimate | None:
    """The candidate against the baseline on the deals of the slot's
    ``rung``'th round (None: interrupted)."""
    seed = derive_seed(setup.seed, "trial", slot, *([rung] if rung else []))
    with tempfile.TemporaryDirectory(prefix="bohnarena-tune-") as tmp:
        played = play_pairs(
            (CANDIDATE, setup.candidate(values)),
            (BASELINE, setup.baseline),
            list(setup.opponents),
            trial_settings(setup, slot, setup.deals, seed),
            setup.rules,
            Path(tmp) / "trial",
            workers,
            progress=False,
        )
    if played.summary.interrupted:
        return None
    return played.pairing.estimates()["coins"]


def run_study(
    setup: Setup,
    path: Path,
    trials: int,
    workers: int | None,
    each: Callable[[Trial | None, list[Trial]], None] = lambda t, done: None,
) -> tuple[list[Trial], bool]:
    """Play trials until ``trials`` have finished; ``each`` after every one
    (with those done; first with None and those done before). Returns the
    trials done and whether it was interrupted."""
    import optuna
    from optuna.trial import TrialState

    study = open_study(setup, path)
    study.pruner = optuna.pruners.MedianPruner(n_startup_trials=startup_trials(setup))
    requeue_stale(study)
    done = done_trials(study)
    each(None, done)
    while len(done) < trials:
        slot = len(done)
        study.sampler = optuna.samplers.TPESampler(
            seed=derive_seed(setup.seed, "sampler", slot) % 2**32,
            n_startup_trials=startup_trials(setup),
        )
        trial = study.ask()
        values = {d.name: suggest(trial, d) for d in setup.dimensions}
        trial.set_user_attr("slot", slot)
        estimate: Estimate | None = None
        for rung in range(setup.rungs):
            more = play_trial(setup, values, slot, workers, rung)
            if more is None:  # left playing: the next run plays it again
                return done, True
            estimate = more if estimate is None else pooled(estimate, more)
            trial.report(estimate.mean, rung)
            if rung < setup.rungs - 1 and trial.should_prune():
                break
        assert estimate is not None
        for key, value in (("deals", estimate.n), ("mean", estimate.mean), ("sd", estimate.sd)):
            trial.set_user_attr(key, value)
        pruned = rung < setup.rungs - 1
        if pruned:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, estimate.mean)
        done.append(Trial(slot, values, estimate, pruned))
        each(done[-1], done)
    return done, False


def best(done: list[Trial]) -> Trial:
    """The trial of the highest objective that played every round (the
    earliest of equals)."""
    return max((t for t in done if not t.pruned), key=lambda t: (t.objective, -t.slot))


def importances(path: Path) -> dict[str, float]:
    """Optuna's importance of each parameter (fANOVA), where it can tell
    (a few trials: nothing)."""
    import optuna

    study = optuna.load_study(storage=f"sqlite:///{path}", study_name="tune")
    try:
        found = optuna.importance.get_param_importances(study)
    except (RuntimeError, ValueError):
        return {}
    return {name: float(v) for name, v in found.items()}
