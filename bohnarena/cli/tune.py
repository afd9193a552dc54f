"""``bohnarena tune``: a bot's parameters searched on duplicate deals, then confirmed."""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import click

from ..core.errors import UsageError
from ..core.game import get_game, sparring_bots
from ..core.params import split_spec
from ..core.plugins import load_bot
from ..core.seeding import derive_seed
from .group import (
    cli,
    echo,
    edition_option,
    game_option,
    parse_options,
    progress_option,
    rule_option,
)


@cli.command()
@click.argument("spec")
@click.option(
    "--param",
    "params",
    multiple=True,
    required=True,
    metavar="NAME=LOW:HIGH[:int|:log]",
    help="A declared parameter to search, over this range (repeatable).",
)
@click.option(
    "--baseline",
    default=None,
    metavar="SPEC",
    help="What candidates are compared with. Default: SPEC at its defaults.",
)
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="[NAME=]SPEC",
    help="An opponent (repeatable), as compare's. Default: the game's quick shipped bots.",
)
# the old spelling (comma-separated, so no spec with parameters in it), kept for scripts
@click.option("--opponents", default=None, hidden=True)
@game_option
@edition_option
@rule_option
@click.option("--players", "-p", type=int, default=4, show_default=True)
@click.option(
    "--deals", "-n", type=click.IntRange(2), default=8, show_default=True, help="Deals a trial."
)
@click.option(
    "--rungs",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="A trial's rounds of --deals fresh deals at most: another while it stays above "
    "the median of the trials before it (Optuna's MedianPruner); 1: one round each.",
)
@click.option("--trials", type=click.IntRange(1), default=20, show_default=True)
@click.option(
    "--seed",
    "-s",
    type=int,
    default=1,
    show_default=True,
    help="The study's seed: its sampler's and every deal's.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory of the study, its page and its confirmation. Default: results/tune-NAME/.",
)
@click.option(
    "--study",
    "study_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="The study's SQLite file (run again to resume). Default: OUT/study.db.",
)
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes a trial's matches play on (trials run one after another). Default: all cores.",
)
@progress_option
@click.option(
    "--confirm-deals",
    type=click.IntRange(0),
    default=200,
    show_default=True,
    help="The confirmation's deals at most (0: no confirmation).",
)
@click.option(
    "--h1", type=float, default=0.5, show_default=True, help="Confirmation: coins under H1."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
def tune(
    spec: str,
    params: tuple[str, ...],
    baseline: str | None,
    against: tuple[str, ...],
    opponents: str | None,
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    players: int,
    deals: int,
    rungs: int,
    trials: int,
    seed: int,
    out: str | None,
    study_file: str | None,
    workers: int | None,
    progress: bool | None,
    confirm_deals: int,
    h1: float,
    fmt: str,
) -> None:
    """Search a bot's declared parameters with Optuna (docs/tuning.md).

    Each trial plays the candidate and the baseline on the same --deals
    deals in every seat rotation against the same opponents; its objective
    is the mean per-deal coin difference, so the deal's luck cancels. The
    study lives in an SQLite file: run the same command again to resume it
    (after Ctrl-C or a kill) or to add trials. It ends with `compare BEST
    BASELINE --sprt` on fresh deals, and exits as compare does: 0 H1
    accepted, 3 H0 accepted, 4 undecided (1 error, 2 usage, 130 interrupted).
    """
    from ..rating.paired import Sprt
    from ..run import compare as cmp
    from ..tune import study as st

    try:
        import optuna  # noqa: F401
    except ImportError:
        raise UsageError("tune needs Optuna: pip install 'bohnarena[tune]'") from None
    g = get_game(game)
    cls = load_bot(spec, g.bot_base)  # its fixed parameters checked too
    declared = st.bot_parameters(cls)
    fixed = split_spec(spec)[1]
    dims = tuple(st.parse_dimension(p, declared) for p in params)
    for d in dims:
        if d.name in fixed:
            raise UsageError(f"--param {d.name}: {spec} sets it already")
    if len({d.name for d in dims}) < len(dims):
        raise UsageError("--param: a parameter is given twice")
    base = baseline or split_spec(spec)[0]
    load_bot(base, g.bot_base)
    if opponents:
        if against:
            raise UsageError("--opponents is the old spelling of --against: give one of them")
        against = tuple(opponents.split(","))
    field = cmp.bot_names(against or sparring_bots(g), (st.CANDIDATE, st.BASELINE))
    name = cmp.bot_names([split_spec(spec)[0]])[0][0]
    setup = st.Setup(
        spec,
        dims,
        base,
        tuple(field),
        g.name,
        edition or g.editions()[0],
        players,
        deals,
        seed,
        rules=parse_options(options),
        rungs=rungs,
    )
    g.rules(setup.edition, players, setup.rules)  # a bad table or rule: an error now
    where = Path(out) if out else Path("results") / f"tune-{name}"
    db = Path(study_file) if study_file else where / "study.db"
    done, interrupted = _run(setup, db, trials, workers, progress)
    if interrupted:
        echo(f"interrupted: {len(done)} trials done; run again to resume", err=True)
        sys.exit(130)
    chosen = st.best(done)
    best_spec = setup.candidate(chosen.values)
    from ..tune.effects import effect
    from ..tune.page import page

    effects = [effect(d, done) for d in dims]
    importance = st.importances(db)
    test = Sprt(0.0, h1, 0.05, 0.05, 20) if confirm_deals else None
    confirmation: list[str] = ["(no confirmation: --confirm-deals 0)"]
    verdict_json: dict[str, Any] | None = None
    code = 0
    if test is not None:
        from ..run.paired import play_pairs
        from . import verdict

        settings = {
            **st.trial_settings(setup, 0, confirm_deals, derive_seed(seed, "confirm")),
            "name": f"tune-{name}-confirm",
        }
        played = play_pairs(
            ("best", best_spec),
            ("baseline", base),
            list(cmp.bot_names([s for _, s in field], ("best", "baseline"))),
            settings,
            setup.rules,
            # one directory a best: a resumed study's new best is confirmed afresh
            where / f"confirm-{hashlib.blake2b(best_spec.encode(), digest_size=4).hexdigest()}",
            workers,
            progress,
            test,
        )
        if played.summary.interrupted:
            sys.exit(played.summary.exit_code)
        # (compare's words, but here its deals are tune's --confirm-deals)
        confirmation = [
            line.replace("(--deals)", "(--confirm-deals)")
            for line in verdict.report(played.pairing, test)
        ]
        verdict_json = verdict.to_json(played.pairing, test)
        code = verdict.exit_code(played.pairing)
    where.mkdir(parents=True, exist_ok=True)
    html = where / "tune.html"
    html.write_text(page(setup, done, effects, importance, confirmation), "utf-8")
    low, high = chosen.estimate.interval()
    if fmt == "json":
        result = {
            "study": str(db),
            "page": str(html),
            "trials": len(done),
            "pruned": sum(t.pruned for t in done),
            "deals_per_trial": deals,
            "rungs": rungs,
            "best": {
                "trial": chosen.slot + 1,
                "spec": best_spec,
                "params": chosen.values,
                "objective": chosen.objective,
                "interval": [_num(low), _num(high)],
                "deals": chosen.estimate.n,
            },
            "effects": [
                {
                    "name": e.name,
                    "change": _num(e.change),
                    "interval": [_num(e.low), _num(e.high)],
                    "fitted_best": _num(e.fitted_best),
                }
                for e in effects
            ],
            "importance": importance,
            "confirmation": verdict_json,
            "exit_code": code,
        }
        echo(json.dumps(result, indent=2))
    else:
        echo(
            f"best of {len(done)} trials"
            + (f" ({pruned} pruned)" if (pruned := sum(t.pruned for t in done)) else "")
            + f": {best_spec}  {chosen.objective:+.3f} coins a deal "
            f"[{low:+.3f}, {high:+.3f}] over {chosen.estimate.n} deals"
        )
        for e in effects:
            echo(
                f"  {e.name}: {e.change:+.3f} low to high [{e.low:+.3f}, {e.high:+.3f}], "
                f"fitted best {e.fitted_best:.4g}"
            )
        echo(f"confirmation, {best_spec} against {base} on fresh deals:")
        for line in confirmation:
            echo(f"  {line}")
        echo(f"page: {html}")
    sys.exit(code)


def _num(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _run(
    setup: Any, db: Path, trials: int, workers: int | None, progress: bool | None
) -> tuple[list[Any], bool]:
    """The study's trials, under a bar with the best so far (on a terminal)."""
    from tqdm import tqdm

    from ..tune import study as st

    show = sys.stderr.isatty() if progress is None else progress
    bar = tqdm(total=trials, desc="trials", unit="trial", disable=not show, file=sys.stderr)

    def each(trial: Any, done: list[Any]) -> None:
        if trial is None:
            bar.n = len(done)
        else:
            bar.update(1)
        if done:
            top = st.best(done)
            bar.set_postfix_str(f"best {top.objective:+.2f} ({setup.candidate(top.values)})")
        bar.refresh()

    try:
        return st.run_study(setup, db, trials, workers, each)
    finally:
        bar.close()
