"""``bohnarena bots``, ``check-bot``, ``check-game`` and ``new-bot``: the
installed bots, a bot checked against the protocol, a game checked against
the seam, a new bot package."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from tqdm import tqdm

from ..core.entry import DEFAULT_PACKAGES, BotEntry
from ..core.errors import BohnarenaError, UsageError
from ..core.game import game_names, get_game, load_game
from ..core.plugins import list_bots, load_bot
from ..core.services import is_url
from ..external.cmdline import SANDBOXED, command_entry, url_entry
from .group import _isolation, cli, echo, game_option, isolation_choice, one, progress_option


@cli.command("check-bot")
@click.argument("spec")
@game_option
@click.option(
    "--isolation",
    type=isolation_choice,
    default=None,
    callback=_isolation,
    help="Where the bot runs while it is checked. Default: in this process for "
    "the shipped bots, else in a sandbox process.",
)
@click.option(
    "--command",
    "is_command",
    is_flag=True,
    help="SPEC is a command line (a bot in any language), run in a sandbox "
    "(or as a process with --isolation process).",
)
@click.option(
    "--dir",
    "own",
    default=None,
    metavar="DIR",
    help="With --command: the bot's own directory, which its sandbox shows whole "
    "(without it, only the files its command names); it must hold no league "
    "file and no results.",
)
@click.option(
    "--package",
    "packages",
    multiple=True,
    metavar="NAME",
    help="An installed package the bot may import, as a league's packages = [...] "
    "allows (repeat it; default: bohnarena's shipped bots). Enforced out of process only.",
)
@click.option(
    "--decision-seconds",
    type=float,
    default=None,
    help="Time limit per decision (default: the league default).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--edition",
    "-e",
    default=None,
    help="Only this edition (as a league of it checks its bots). Default: every edition.",
)
@click.option(
    "--players",
    "-p",
    type=int,
    default=None,
    help="Only tables of this many players. Default: every player count.",
)
@progress_option
def check_bot(
    spec: str,
    game: str,
    isolation: str | None,
    is_command: bool,
    own: str | None,
    packages: tuple[str, ...],
    decision_seconds: float | None,
    seed: int,
    edition: str | None,
    players: int | None,
    progress: bool | None,
) -> None:
    """Check that a bot conforms: it plays every seat of every player count
    of every edition against the shipped bots (or of those --edition and
    --players name), twice, and must never answer illegally, raise or time
    out, and must play the same moves for the same seed. Exit code 0 only
    when it passes.

    A bot that is not shipped with bohnarena runs in the sandbox unless
    --isolation says otherwise: checking a bot does not import it here. A
    bot that does not start is reported with the end of its stderr.
    """
    from ..core.plugins import locate
    from ..referee.limits import Limits
    from ..run.provenance import preflight
    from ..tools.conformance import check_bot as run_check

    g = get_game(game)
    if isolation is None:
        isolation = "inprocess" if not is_command and spec.strip() in shipped_bots() else SANDBOXED
    if own is not None and not is_command:
        raise UsageError("--dir goes with --command")
    if is_command:
        entry = command_entry(spec, isolation, "--command: ", own)
    elif is_url(spec):  # served over HTTP: it runs where it is served
        entry = url_entry(spec)
    else:
        if isolation == "inprocess":
            load_bot(spec, g.bot_base)
        else:
            locate(spec)
        entry = BotEntry(
            spec, spec=spec, isolation=isolation, packages=packages or DEFAULT_PACKAGES
        )
        if isolation == "inprocess" and spec.strip() not in shipped_bots():
            echo(
                "warning: in process a bot can import anything installed; a league's "
                "packages are enforced only when it runs as a process or in a sandbox",
                err=True,
            )
    limits = Limits.parse(
        {} if decision_seconds is None else {"decision_seconds": decision_seconds},
        "--decision-seconds",
    )
    configs = [
        c for c in g.conformance_configs() if edition in (None, c[0]) and players in (None, c[1])
    ]
    if not configs:
        raise UsageError(
            f"{game} has no edition {edition!r} at {players} players"
            if edition and players
            else f"{game} has no edition {edition!r}"
            if edition
            else f"{game} has no table of {players} players"
        )
    if entry.isolation != "inprocess":
        tail: list[str] = []
        try:
            preflight(g, entry, g.rules(*configs[0]), limits, tail)
        except BohnarenaError:
            if tail:
                echo("the bot's stderr ends with:", err=True)
                for line in tail:
                    echo(f"  | {line}", err=True)
            raise
    seats = sum(n for _, n, _ in configs)
    with steps(seats, "seat", "check-bot", progress) as playing:
        report = run_check(g, entry, limits, seed, progress=playing, configs=configs)
    for line in report.lines():
        echo(line)
    sys.exit(0 if report.passed else 1)


@contextmanager
def steps(
    total: int, unit: str, desc: str, progress: bool | None
) -> Iterator[Callable[[str], None]]:
    """A bar over a check's steps (on a terminal, or as ``progress`` says);
    yields what the check calls with each step's label before it starts,
    so the step before it is done."""
    with tqdm(
        total=total,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
        leave=False,
    ) as bar:
        started = False

        def step(label: str) -> None:
            nonlocal started
            bar.update(started)
            started = True
            bar.set_postfix_str(label)

        yield step
        bar.update(bar.total - bar.n)
        bar.refresh()  # the whole count drawn, however soon after the last step


@cli.command("check-game")
@click.argument("spec", metavar="GAME")
@click.option("--seed", type=int, default=0, show_default=True)
@progress_option
def check_game(spec: str, seed: int, progress: bool | None) -> None:
    """Check that a game conforms (a registered game's name, or MODULE:GAME
    or file.py:GAME for one not yet registered): its sparring bots play
    every edition at every player count and every conformance
    configuration; playthroughs are reproducible, replay and keep to the
    game's layout; each seat's view shows nothing a re-deal of what it
    cannot see changes; the wire carries every view, record, argument and
    answer as JSON and back, valid under the protocol's schema; each
    declared capability works. One line a check (pass, FAIL, or skip: not
    declared), then a summary. Exit code 0 when every check passes, 1 when
    one fails (docs/adding-a-game.md).
    """
    from ..tools.gamecheck import check_game as run_check
    from ..tools.gamecheck import configs, summary

    g = load_game(spec)
    total = len(configs(g))
    with steps(total, "rule set", "check-game", progress) as step:
        verdicts = run_check(g, seed, progress=step)
    for verdict in verdicts:
        echo(verdict.line())
    echo(summary(verdicts))
    sys.exit(1 if any(v.passed is False for v in verdicts) else 0)


def shipped_bots() -> set[str]:
    """The names of the bots bohnarena ships, for every game."""
    names: set[str] = set()
    for game in game_names():
        try:
            names.update(get_game(game).shipped_bots)
        except UsageError:  # a broken game ships nothing
            continue
    return names


@cli.command("new-bot")
@click.argument("name")
@click.option(
    "--dir",
    "parent",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Where to create the NAME directory.",
)
@click.option(
    "--http",
    is_flag=True,
    help="A bot served over HTTP instead: a small service (docs/http-bots.md).",
)
def new_bot(name: str, parent: str, http: bool) -> None:
    """Create a pip-installable bot plugin package NAME (entry point, bot
    module, a conformance test and a league file), ready to edit; with
    --http, a small web service playing the same plan.

    \b
    From nothing to a ranked bot:
      bohnarena new-bot mybot
      pip install -e mybot
      bohnarena run mybot/league.toml
    """
    from ..tools.newbot import create

    target, module = create(name, parent, http)
    if http:
        echo(
            f"created {target}: edit {target / module / 'bot.py'}, then\n"
            f"  python {target / 'service.py'} &\n"
            "  bohnarena check-bot http://127.0.0.1:8000/\n"
            f"  bohnarena run {target / 'league.toml'}"
        )
        return
    echo(
        f"created {target}: edit {target / module / 'bot.py'}, then\n"
        f"  pip install -e {target}\n  bohnarena run {target / 'league.toml'}"
    )


@cli.command("bots")
@click.option(
    "--no-load",
    is_flag=True,
    help="List from the installed metadata only: import no bot (its game is not shown).",
)
def bots_command(no_load: bool) -> None:
    """List the registered bots (entry-point group bohnarena.bots): name,
    game, spec and the distribution that registers it.

    Each bot is imported to learn its game and whether it loads (a bot that
    does not is listed with the reason); --no-load imports none. A name that
    two distributions register is listed for both, and using it is an error.
    """
    from ..core.plugins import registered

    rows = list_bots(load=not no_load)
    if not rows:
        echo("no bots registered")
    for b in rows:
        status = f"  ({one(b.problem)})" if b.problem else ""
        echo(f"{b.name:<16} {b.game:<9} {b.spec:<44} {b.origin} {one(b.version)}{status}")
    for dist, reason in sorted(registered().broken.items()):
        echo(
            f"skipped distribution {dist}: its entry points do not parse ({one(reason)})", err=True
        )
