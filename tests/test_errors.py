"""One hierarchy of errors: every exception class bohnarena defines is a
BohnarenaError, but for the few signals below (core/errors.py says why)."""

import importlib
import inspect
import pkgutil

import bohnarena
from bohnarena.core.errors import BohnarenaError, IllegalAnswer

#: Outside the hierarchy on purpose, with the reason.
SIGNALS = {
    "bohnarena.referee.gamestate.MatchOver": "a step ends the match at once",
    "bohnarena.bohnanza.table.GameOver": "the card game's MatchOver",
    "bohnarena.referee.gamestate._Pause": "stops the rules where pause_after asked",
    "bohnarena.referee.replaylog.Stop": "ends a replay at stop_at",
    "bohnarena.referee.limits.DecisionTimeout": "a BaseException: a bot cannot swallow it",
    "bohnarena.core.stopping.Stopped": "a KeyboardInterrupt: Ctrl-C, SIGTERM, SIGHUP",
}


def exception_classes():
    """Every exception class defined in a module of bohnarena/."""
    found = {}
    for info in pkgutil.walk_packages(bohnarena.__path__, "bohnarena."):
        if ".templates" in info.name:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_error_is_a_bohnarena_error_or_a_listed_signal():
    classes = exception_classes()
    assert set(SIGNALS) <= set(classes)  # the list names only what exists
    outside = {name for name, cls in classes.items() if not issubclass(cls, BohnarenaError)}
    assert outside == set(SIGNALS)
    assert not any(issubclass(classes[name], BohnarenaError) for name in SIGNALS)


def test_decision_timeout_is_not_an_exception():
    from bohnarena.referee.limits import DecisionTimeout

    assert not issubclass(DecisionTimeout, Exception)


def test_an_illegal_answer_is_a_value_error():
    assert issubclass(IllegalAnswer, ValueError)
