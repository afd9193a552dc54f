"""One hierarchy of errors: every exception class bohnarena defines is a
BohnarenaError, but for the few signals below (core/errors.py says why).

Checked module by module: a module that needs an optional extra (the
PettingZoo adapter needs ``rl``) is skipped, with the reason, where that
extra is not installed, and every other module is still checked."""

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

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

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(bohnarena.__path__, "bohnarena.")
    if ".templates" not in info.name
)


def imported(name: str) -> ModuleType:
    """The module, or a skip naming the optional package it lacks."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        missing = (e.name or "").partition(".")[0]
        if missing in {"bohnarena", "bohnarena_bots", ""}:
            raise
        pytest.skip(f"{name} needs {missing}, from an optional extra not installed here")


def exception_classes(module: ModuleType) -> dict[str, type[BaseException]]:
    """Every exception class ``module`` defines."""
    return {
        f"{value.__module__}.{value.__qualname__}": value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == module.__name__
    }


@pytest.mark.parametrize("name", MODULES)
def test_every_error_is_a_bohnarena_error_or_a_listed_signal(name: str) -> None:
    for qualified, cls in exception_classes(imported(name)).items():
        if qualified in SIGNALS:
            assert not issubclass(cls, BohnarenaError), qualified
        else:
            assert issubclass(cls, BohnarenaError), qualified


@pytest.mark.parametrize("qualified", sorted(SIGNALS))
def test_the_list_names_only_what_exists(qualified: str) -> None:
    module = qualified.rpartition(".")[0]
    assert qualified in exception_classes(importlib.import_module(module))


def test_the_walk_finds_the_modules() -> None:
    # a walk that found nothing would pass every test above
    assert len(MODULES) > 100 and "bohnarena.core.errors" in MODULES


def test_decision_timeout_is_not_an_exception():
    from bohnarena.referee.limits import DecisionTimeout

    assert not issubclass(DecisionTimeout, Exception)


def test_an_illegal_answer_is_a_value_error():
    assert issubclass(IllegalAnswer, ValueError)
