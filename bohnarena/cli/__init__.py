"""The ``bohnarena`` command line."""

from __future__ import annotations

import sys
import time
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..core import untrusted
from ..core.errors import BohnarenaError, UsageError
from ..core.game import game_names, get_game
from ..core.plugins import list_bots, load_bot
from ..core.stopping import exit_code, interrupted, stop_on_signals
from ..league.file import BotEntry
from ..referee.limits import ISOLATION_ALIASES, ISOLATIONS

#: The longest error message printed (a bot's stderr or text may be in it).
ERROR_CHARS = 2000


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Everything the command line prints: text that came from a bot (its
    stderr, a fault, a plugin's name or version) may be in it, so every
    character that is not printable but a line break is escaped."""
    click.echo(untrusted.lines(text), err=err, nl=nl)


def one(text: str) -> str:
    """A text that may be a bot's (an exception's message, a plugin's import
    error), kept on its line: its own line breaks cannot forge lines of ours."""
    return untrusted.one_line(text, ERROR_CHARS)


class _Group(click.Group):
    """Turns bohnarena's own errors into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with stop_on_signals():
                return super().invoke(ctx)
        except BohnarenaError as e:
            echo(f"Error: {one(str(e))}", err=True)
            ctx.exit(2 if isinstance(e, UsageError) else 1)
        except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM or SIGHUP at any stage
            echo(interrupted(ctx.invoked_subcommand), err=True)
            ctx.exit(exit_code(stop))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bohnarena")
def cli() -> None:
    """Run Bohnanza (and Würfel Bohnanza) bot tournaments: play one match, run
    leagues across all cores or a Dask cluster, rank bots with TrueSkill, and
    replay any seeded match."""


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as TOML (numbers, strings, lists)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option takes key=value, not {pair!r}")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out[key.strip()] = value
    return out


# Not a click.Choice: games are read from entry points only when one is
# played, so a broken third-party game cannot break the CLI for the others.
game_option = click.option(
    "--game",
    default="bohnanza",
    show_default=True,
    help="Which game (a name registered in the entry-point group bohnarena.games).",
)
edition_option = click.option(
    "--edition",
    "-e",
    default=None,
    help="Rule set (bohnanza: classic, anniversary, riogrande). Default: the game's first.",
)
rule_option = click.option(
    "--option",
    "-o",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a rule parameter, e.g. -o extra_bean=jumping "
    "or -o max_trade_rounds=2. Repeatable.",
)


def _setup(
    game_name: str, edition: str | None, players: int, options: Sequence[str], specs: Sequence[str]
) -> tuple[Any, Any, list[type]]:
    game = get_game(game_name)
    edition = edition or game.editions()[0]
    rules = game.rules(edition, players, parse_options(options))
    classes = [load_bot(spec, game.bot_base) for spec in specs]
    return game, rules, classes


COMMAND_PREFIX = "cmd:"
SANDBOXED = "sandbox"
isolation_choice = click.Choice([*ISOLATIONS, *ISOLATION_ALIASES])


def _isolation(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return ISOLATION_ALIASES.get(value, value) if value else value


def command_entry(line: str, isolation: str, where: str, own: str | None = None) -> BotEntry:
    """A bot given as a command line (it cannot run in process: the sandbox
    then), its paths resolved against the working directory as a league's
    against its file's, and checked as a league's (:func:`.botfiles.check_layout`)."""
    import shlex

    from ..league.file import command_paths
    from ..sandbox.botfiles import check_layout

    try:
        command = shlex.split(line)
    except ValueError as e:
        raise UsageError(f"{where}cannot split {line!r}: {e}") from None
    if not command:
        raise UsageError(f"{where}needs a command line")
    command, own = command_paths(command, own, Path.cwd())
    entry = BotEntry(
        line,
        command=tuple(command),
        isolation=SANDBOXED if isolation == "inprocess" else isolation,
        dir=own,
    )
    check_layout(entry, None, None)
    return entry


def play_entries(bots: Sequence[str], isolation: str) -> list[BotEntry]:
    """League-style entries for `play`'s BOTS: ``cmd:COMMAND LINE`` is a
    program speaking JSON lines, anything else a spec run with ``isolation``."""
    entries = []
    for i, bot in enumerate(bots):
        if bot.startswith(COMMAND_PREFIX):
            entry = command_entry(
                bot[len(COMMAND_PREFIX) :], isolation, f"seat {i}: {COMMAND_PREFIX}"
            )
            entries.append(replace(entry, name=Path(entry.command[-1]).name))  # type: ignore[index]
        else:
            entries.append(BotEntry(bot, spec=bot, isolation=isolation))
    return entries


@cli.command()
@game_option
@edition_option
@rule_option
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Match seed.")
@click.option("--quiet", "-q", is_flag=True, help="Only the final result, no transcript.")
@click.option(
    "--isolation",
    type=isolation_choice,
    default="inprocess",
    show_default=True,
    callback=_isolation,
    help="Where spec bots run: in this process, or each in its own sandbox process.",
)
@click.argument("bots", nargs=-1, required=True)
def play(
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    seed: int,
    quiet: bool,
    isolation: str,
    bots: tuple[str, ...],
) -> None:
    """Play one match and print its transcript.

    BOTS are given in seat order (seat 0 starts), each as a registered bot
    name (see `bohnarena bots`), path/to/file.py:Class, module:Class, or
    'cmd:COMMAND LINE' for a program in any language that speaks the
    JSON-lines protocol (quote it; it always runs as its own process).

    \b
    Examples:
      bohnarena play --edition classic --seed 7 planner trader random random
      bohnarena play planner random 'cmd:bash bots/first_choice.sh'
      bohnarena play --isolation sandbox planner their_bot.py:TheirBot random
    """
    from ..referee.limits import Limits
    from ..run.provenance import preflight
    from ..run.seating import make_seat

    g = get_game(game)
    rules = g.rules(edition or g.editions()[0], len(bots), parse_options(options))
    entries = play_entries(bots, isolation)
    seats: list[Any] = []
    names: list[str] = []
    for entry in entries:
        # Named by its spec (the class of file.py:Class), however it runs.
        names.append(entry.name if entry.spec is None else entry.spec.rpartition(":")[2])
        if entry.isolation == "inprocess":
            # Built at the start: a constructor's error is a fault.
            seats.append(make_seat(g, entry))
            continue
        preflight(g, entry, rules)
        seats.append(make_seat(g, entry, Limits()))
    result, records = g.play(rules, seed, seats)
    opts = ", ".join(f"{k}={v}" for k, v in parse_options(options).items())
    echo(
        f"{g.title}, {rules.edition} edition, {len(bots)} players, seed {seed}"
        + (f", {opts}" if opts else "")
    )
    if not quiet:
        for line in g.transcript(records, names):
            echo(line)
    echo("\nResult:")
    order = sorted(range(len(bots)), key=lambda s: (result.ranks[s], s))
    for s in order:
        faults = f"  ({result.faults[s]} faults)" if result.faults[s] else ""
        echo(f"  {result.ranks[s]:>2}. seat {s} {names[s]:<16} {result.coins[s]:>3} coins{faults}")
    echo(
        f"Winner: {', '.join(f'seat {s} ({names[s]})' for s in result.winners)} "
        f"after {result.turns} turns"
    )


@cli.command()
@game_option
@edition_option
@rule_option
@click.option("--players", "-p", type=int, default=4, show_default=True)
@click.option(
    "--bot",
    "-b",
    "bot_specs",
    multiple=True,
    help="Bot spec; repeat to seat different bots in turn (cycled over the seats)."
    " Default: the game's first shipped bot (planner, wuerfel-greedy).",
)
@click.option("--games", "-n", type=int, default=1000, show_default=True, help="Games per round.")
@click.option(
    "--rounds",
    "-r",
    type=int,
    default=5,
    show_default=True,
    help="Timed rounds; the median is reported.",
)
@click.option(
    "--playouts",
    type=click.IntRange(min=0),
    default=200,
    show_default=True,
    help="Random playouts a round (clone + playout of the game's state; 0: none).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True)
def bench(
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    players: int,
    bot_specs: tuple[str, ...],
    games: int,
    rounds: int,
    playouts: int,
    seed: int,
) -> None:
    """Measure games per second on one core (no logging, no workers), and
    the playouts per second a search gets from the game's state."""
    from ..tools.bench import games_per_second, playouts_per_second

    bot_specs = bot_specs or (get_game(game).shipped_bots[0],)
    specs = [bot_specs[i % len(bot_specs)] for i in range(players)]
    g, rules, classes = _setup(game, edition, players, options, specs)
    if games < 1 or rounds < 1:
        raise UsageError("--games and --rounds must be at least 1")
    rates = games_per_second(g, rules, classes, games, rounds, seed)
    rates.sort()
    median = rates[len(rates) // 2]
    echo(f"{g.name} {rules.edition}, {players} players, bots {', '.join(specs)}")
    echo(
        f"{median:,.0f} games/s on one core (median of {rounds} rounds of {games}; "
        f"min {rates[0]:,.0f}, max {rates[-1]:,.0f})"
    )
    new_state = getattr(g, "new_state", None)
    if playouts and new_state is not None:
        rates = sorted(playouts_per_second(new_state, rules, playouts, rounds, seed))
        echo(
            f"{rates[len(rates) // 2]:,.0f} random playouts/s from the first decision "
            f"(state.clone() + state.playout(); median of {rounds} rounds of {playouts})"
        )


@cli.command()
@click.argument("league_file", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default=None,
    help="Results directory. Default: results/<league name>/.",
)
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes. Default: the league's [run] workers, else all cores.",
)
@click.option(
    "--restart", is_flag=True, help="Discard the results directory's earlier run and start over."
)
@click.option("--no-moves", is_flag=True, help="Do not log moves (matches and ranking only).")
@click.option("--no-report", is_flag=True, help="Do not write report.html at the end.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar. Default: only when stderr is a terminal.",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where batches run: a local process pool, or Dask (needs the dask extra).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="tcp://HOST:PORT",
    help="Dask scheduler address; without it --backend dask starts a LocalCluster.",
)
@click.option(
    "--shared-dir/--no-shared-dir",
    default=None,
    help="Dask workers can write to the results directory (a shared file system). "
    "Default: yes for a LocalCluster, no for a remote scheduler.",
)
@click.option(
    "--shard",
    default=None,
    metavar="K/N",
    help="Run only the K-th of N disjoint slices of the league (see `bohnarena merge`).",
)
def run(
    league_file: str,
    out: str | None,
    workers: int | None,
    restart: bool,
    no_moves: bool,
    no_report: bool,
    progress: bool | None,
    backend: str,
    scheduler: str | None,
    shared_dir: bool | None,
    shard: str | None,
) -> None:
    """Run a league: every table, deal and seat rotation, across processes.

    Running it again on the same results directory plays only what is
    missing (after Ctrl-C, SIGTERM, a crash or kill -9). Exit code 0 when
    every match was played, 1 when some could not be, 130 when interrupted
    by Ctrl-C (143 by SIGTERM, 129 by SIGHUP).
    """
    from ..league.file import load_league
    from ..run.dispatch import run_league
    from ..run.execution import DaskBackend
    from ..sandbox.jail import bwrap

    league = load_league(league_file)  # bad input is reported before any cluster starts
    if any(b.isolation == "sandbox" for b in league.bots.values()):
        bwrap()  # a missing sandbox is the error to see, before any warning

    part = parse_shard(shard)
    if scheduler and backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    pool = DaskBackend(scheduler, workers or 0, shared_dir) if backend == "dask" else None
    summary = run_league(
        league_file,
        out,
        workers,
        restart,
        False if no_moves else None,
        progress,
        backend=pool,
        shard=part,
        warn=lambda text: echo(f"Warning: {text}", err=True),
    )
    if summary.interrupted:
        echo(
            f"Interrupted: {summary.done_before + summary.played} of {summary.total} matches "
            f"are saved in {summary.out}; run the same command again to resume.",
            err=True,
        )
        sys.exit(summary.exit_code)
    if summary.ranking is not None:
        echo(summary.ranking.to_text())
        if not no_report:
            from ..report.html import write_report

            echo(f"report: {write_report(summary.out)}")
    echo(
        f"{summary.played} matches played now, {summary.done_before} before; "
        f"results in {summary.out}"
    )
    if summary.errors:
        echo(
            f"Error: {len(summary.errors)} matches could not be played "
            f"(see {summary.out / 'errors.json'}): {one(summary.errors[0][1])}",
            err=True,
        )
        sys.exit(1)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise UsageError(f"--shard takes K/N with 1 <= K <= N, not {text!r}")
    return int(k), int(n)


@cli.command()
@click.argument("out", type=click.Path(file_okay=False))
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
def merge(out: str, dirs: tuple[str, ...]) -> None:
    """Merge shard directories (bohnarena run --shard K/N) of one league into OUT.

    Refuses directories of different leagues, and matches two of them hold.
    OUT is then a run like any other: rank it, replay it, or run the league
    on it to finish what the shards did not.
    """
    from ..league.file import load_league
    from ..run.rankfiles import write_ranking
    from ..store.directory import merge as merge_runs

    target = merge_runs(out, list(dirs), lambda text: click.echo(f"Warning: {text}", err=True))
    league = load_league(target.path / "league.toml")
    total = len(league.schedule(0))
    done = target.done_ids()
    if len(done) == total:
        target.compact(0, total - 1)
    echo(write_ranking(target, league).to_text())
    echo(
        f"merged {len(done)} of {total} matches from {len(dirs)} directories into {out}"
        + ("" if len(done) == total else f"; run the league with --out {out} to finish it")
    )


resamples_option = click.option(
    "--resamples",
    type=click.IntRange(min=0),
    default=None,
    help="Deal-bootstrap resamples for the intervals (default 1000; 0: none).",
)
bootstrap_seed_option = click.option(
    "--bootstrap-seed",
    type=int,
    default=None,
    help="Seed of the deal bootstrap (default 0): the same intervals every time.",
)


@cli.command("rank")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "csv", "json"]),
    default="text",
    show_default=True,
)
@click.option(
    "--by",
    type=click.Choice(["bot", "seat"]),
    default="bot",
    show_default=True,
    help="seat: each bot's win rate in each seat, instead of the ranking.",
)
@click.option(
    "--head-to-head",
    is_flag=True,
    help="How often each bot finishes ahead of each other one, instead of the ranking.",
)
@resamples_option
@bootstrap_seed_option
def rank_command(
    results_dir: str,
    fmt: str,
    by: str,
    head_to_head: bool,
    resamples: int | None,
    bootstrap_seed: int | None,
) -> None:
    """Rank the bots of a results directory with TrueSkill, with 95% intervals
    from a bootstrap over deals (docs/statistics.md).

    --by seat and --head-to-head show those tables instead (both at once in
    text, Markdown or JSON).
    """
    from ..rating.results import read_results
    from ..rating.stats import RESAMPLES, SEED, league_stats
    from ..rating.statstables import render
    from ..store.directory import unchecked_warning

    views = [v for v, on in (("seat", by == "seat"), ("head-to-head", head_to_head)) if on]
    if fmt == "csv" and len(views) > 1:
        raise UsageError("CSV holds one table: give --by seat or --head-to-head, not both")
    data = read_results(results_dir)
    if data.unchecked:
        click.echo(f"Warning: {unchecked_warning(results_dir)}", err=True)
    figures = league_stats(
        data.matches,
        RESAMPLES if resamples is None else resamples,
        SEED if bootstrap_seed is None else bootstrap_seed,
    )
    echo(render(fmt, data.ranking, figures, views or ["ranking"]).rstrip("\n"))


@cli.command("report")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write the HTML file. Default: RESULTS_DIR/report.html.",
)
@resamples_option
@bootstrap_seed_option
def report_command(
    results_dir: str, output: str | None, resamples: int | None, bootstrap_seed: int | None
) -> None:
    """Write the league report: one self-contained HTML file (leaderboard with
    intervals, convergence, head to head, seats, coins, faults, match length,
    settings), readable offline. Works on an interrupted run too."""
    from ..rating.results import read_results
    from ..rating.stats import RESAMPLES, SEED
    from ..report.html import write_report
    from ..store.directory import unchecked_warning

    start = time.perf_counter()
    results = read_results(results_dir, rate=False)
    if results.unchecked:
        click.echo(f"Warning: {unchecked_warning(results_dir)}", err=True)
    path = write_report(
        results_dir,
        output,
        RESAMPLES if resamples is None else resamples,
        SEED if bootstrap_seed is None else bootstrap_seed,
        results,
    )
    echo(
        f"report: {path} ({path.stat().st_size / 1024:,.0f} kB, "
        f"{time.perf_counter() - start:.1f} s)"
    )


@cli.command()
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "--match",
    "-m",
    "match_id",
    type=click.IntRange(0, 2**63 - 1),
    help="The match id to show or check.",
)
@click.option(
    "--at",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Show the whole table as it stood after move N.",
)
@click.option(
    "--turn",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Show the match from the start of turn N on.",
)
@click.option("--seat", type=int, default=None, help="Show only what seat S could see.")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of text.")
@click.option(
    "--verify",
    is_flag=True,
    help="Rebuild the match from its seed and logged decisions through the rules; "
    "exit 1 at the first difference.",
)
@click.option(
    "--rerun",
    is_flag=True,
    help="Play the match again with the same bots and seed; exit 1 at the first move that differs.",
)
@click.option("--verify-all", is_flag=True, help="Verify every match of the run, in parallel.")
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for --verify-all (default: all cores).",
)
def replay(
    results_dir: str,
    match_id: int | None,
    at: int | None,
    turn: int | None,
    seat: int | None,
    as_json: bool,
    verify: bool,
    rerun: bool,
    verify_all: bool,
    workers: int | None,
) -> None:
    """Replay a logged match move by move, from the Parquet logs alone.

    \b
    Examples:
      bohnarena replay results/quickstart --match 7
      bohnarena replay results/quickstart --match 7 --turn 12
      bohnarena replay results/quickstart --match 7 --at 120 --seat 2
      bohnarena replay results/quickstart --match 7 --verify
      bohnarena replay results/quickstart --verify-all
    """
    from ..referee.replaylog import NoSuchTurn
    from ..run import replay as rp
    from ..store.directory import read_again, unchecked_warning

    if at is not None and turn is not None:
        raise UsageError(
            "--at shows the table after one move, --turn the moves from a turn on: give one"
        )
    if verify_all:
        checked, parts, failures = read_again(lambda: rp.verify_all(results_dir, workers or 0))
        for problem in parts[:10]:
            click.echo(problem)
        for mid, problem in failures[:10]:
            echo(f"match {mid}: {one(problem)}")
        echo(
            f"verified {checked} matches: "
            + (
                "every one replays to its logged result"
                if not failures
                else f"{len(failures)} do not"
            )
            + (f"; {len(parts)} part problem{'s' * (len(parts) > 1)}" if parts else "")
        )
        sys.exit(1 if failures or parts else 0)
    if match_id is None:
        raise UsageError("give --match ID (or --verify-all)")
    run = rp.Run.open(results_dir)
    if run.listing.unchecked:
        click.echo(f"Warning: {unchecked_warning(results_dir)}", err=True)
    row, log = run.match(match_id)
    seat = rp.parse_seat(seat, len(row["seats"]))
    names = row["seats"]
    if verify or rerun:
        problem = run.check(row, log) if verify else None
        if problem is None and rerun:
            problem = run.rerun(row, log)
        what = "the bots replay" if rerun else "the log replays under the rules"
        echo(f"match {match_id}: " + one(problem or f"OK, {what} move for move ({len(log)} moves)"))
        sys.exit(1 if problem else 0)
    if at is not None:
        if at >= len(log):
            raise UsageError(f"match {match_id} has {len(log)} moves (0-{len(log) - 1})")
        lines: Iterable[str] = run.game.table_at(
            run.rules, row["seed"], log, at, names, seat, as_json
        )
    else:
        try:
            lines = run.game.replay_lines(
                run.rules, row["seed"], log, names, seat, as_json, numbered=True, from_turn=turn
            )
        except NoSuchTurn as e:
            raise UsageError(f"match {match_id}: {e}") from None
    for line in lines:
        echo(line)


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
    "--decision-seconds",
    type=float,
    default=None,
    help="Time limit per decision (default: the league default).",
)
@click.option("--seed", type=int, default=0, show_default=True)
def check_bot(
    spec: str,
    game: str,
    isolation: str | None,
    is_command: bool,
    own: str | None,
    decision_seconds: float | None,
    seed: int,
) -> None:
    """Check that a bot conforms: it plays every seat of every player count
    of every edition against the shipped bots, twice, and must never answer
    illegally, raise or time out, and must play the same moves for the same
    seed. Exit code 0 only when it passes.

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
    else:
        if isolation == "inprocess":
            load_bot(spec, g.bot_base)
        else:
            locate(spec)
        entry = BotEntry(spec, spec=spec, isolation=isolation)
    limits = Limits.parse(
        {} if decision_seconds is None else {"decision_seconds": decision_seconds},
        "--decision-seconds",
    )
    if entry.isolation != "inprocess":
        edition, players, options = g.conformance_configs()[0]
        tail: list[str] = []
        try:
            preflight(g, entry, g.rules(edition, players, options), limits, tail)
        except BohnarenaError:
            if tail:
                echo("the bot's stderr ends with:", err=True)
                for line in tail:
                    echo(f"  | {line}", err=True)
            raise
    report = run_check(g, entry, limits, seed)
    for line in report.lines():
        echo(line)
    sys.exit(0 if report.passed else 1)


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
def new_bot(name: str, parent: str) -> None:
    """Create a pip-installable bot plugin package NAME (entry point, bot
    module, a conformance test and a league file), ready to edit.

    \b
    From nothing to a ranked bot:
      bohnarena new-bot mybot
      pip install -e mybot
      bohnarena run mybot/league.toml
    """
    from ..tools.newbot import create

    target, module = create(name, parent)
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


@cli.command("schema")
@game_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="Write it to this file (the published copies: docs/protocol.schema.json "
    "for the card game, docs/wuerfel.schema.json for the dice game).",
)
@click.option("--check", is_flag=True, help="With --out: fail if the file is not up to date.")
def schema_command(game: str, out: str | None, check: bool) -> None:
    """The JSON Schema of a game's JSON-lines bot protocol (every message
    both ways), generated from the code that speaks it."""
    import importlib

    from ..core.protocol_schema import schema_text

    g = get_game(game)
    protocol = getattr(importlib.import_module(g.wire), "protocol", None) if g.wire else None
    if protocol is None:
        raise UsageError(f"the game {game!r} publishes no JSON-lines protocol schema")
    if check and out is None:
        raise UsageError("--check needs --out FILE: the file to compare with")
    text = schema_text(protocol())
    if out is None:
        echo(text, nl=False)
        return
    path = Path(out)
    try:
        if not check:
            path.write_text(text, "utf-8")
            return
        current = path.read_text("utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot {'read' if check else 'write'} {out}: {e}") from None
    if current != text:
        raise click.ClickException(
            f"{out} is stale: run bohnarena schema --game {game} --out {out}"
        )


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option(
    "--results",
    type=click.Path(file_okay=False),
    default=None,
    help="Compare A and B (league bot names) in this results directory instead of playing.",
)
@click.option(
    "--against",
    "opponents",
    multiple=True,
    metavar="[NAME=]SPEC",
    help="An opponent (repeatable). Default: the game's quick shipped bots (not the searcher).",
)
@game_option
@edition_option
@rule_option
@click.option("--players", "-p", type=int, default=4, show_default=True)
@click.option(
    "--deals",
    "-n",
    type=click.IntRange(1),
    default=200,
    show_default=True,
    help="Deals to play (with --sprt: at most).",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Master seed.")
@click.option("--seatings", type=click.Choice(["rotations", "permutations"]), default="rotations")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Results directory. Default: results/compare-A-B/ (run again to resume).",
)
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None)
@click.option("--moves/--no-moves", default=False, help="Log every move (default: off).")
@click.option("--progress/--no-progress", default=None)
@click.option("--sprt", is_flag=True, help="Stop as soon as a sequential test decides.")
@click.option(
    "--metric",
    type=click.Choice(["coins", "place", "win"]),
    default="coins",
    show_default=True,
    help="What the SPRT tests.",
)
@click.option("--h0", type=float, default=0.0, show_default=True, help="SPRT: A - B under H0.")
@click.option(
    "--h1",
    type=float,
    default=None,
    help="SPRT: A - B under H1. Default: 0.5 coins, 0.1 places or 0.05 wins.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT: P(H1 | H0).")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT: P(H0 | H1).")
@click.option(
    "--min-deals",
    type=click.IntRange(2),
    default=20,
    show_default=True,
    help="SPRT: deals before it may decide.",
)
def compare(
    a: str,
    b: str,
    results: str | None,
    opponents: tuple[str, ...],
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    players: int,
    deals: int,
    seed: int,
    seatings: str,
    out: str | None,
    workers: int | None,
    moves: bool,
    progress: bool | None,
    sprt: bool,
    metric: str,
    h0: float,
    h1: float | None,
    alpha: float,
    beta: float,
    min_deals: int,
) -> None:
    """A paired A/B test of two bots (two versions of one, say).

    Both play the same deals in the same seats against the same opponents
    (format "paired": the schedule swaps A for B, nothing else); the mean
    per-deal difference A - B in coins, place and wins is printed with its
    95% interval and p-value. With --sprt the matches stop as soon as a
    sequential probability ratio test decides between H0 and H1.
    A and B are bot specs ([NAME=]SPEC), or with --results the league names
    of two bots of a finished (or partial) results directory. See
    docs/statistics.md.
    """
    from ..rating import compare as cmp
    from ..rating.paired import Sprt
    from ..run.dispatch import run_league

    test = None
    if sprt:
        if h1 is None:
            h1 = {"coins": 0.5, "place": 0.1, "win": 0.05}[metric]
        try:
            test = Sprt(h0, h1, alpha, beta, min_deals)
        except ValueError as e:
            raise UsageError(f"--sprt: {e}") from None
    if results is not None:
        pairing = compare_results(results, a, b, test, metric)
    else:
        g = get_game(game)
        (na, sa), (nb, sb) = cmp.bot_names([a, b])
        sparring: tuple[str, ...] = getattr(g, "sparring_bots", None) or g.shipped_bots
        field = cmp.bot_names(opponents or sparring, (na, nb))
        name = f"compare-{na}-{nb}"
        settings = {
            "name": name,
            "game": g.name,
            "edition": edition or g.editions()[0],
            "players": players,
            "deals": deals,
            "seed": seed,
            "seatings": seatings,
        }
        rules = parse_options(options)
        league = cmp.compare_league((na, sa), (nb, sb), field, settings, rules, moves)
        pairing = cmp.Pairing(na, nb, test, metric)
        summary = run_league(
            league,
            out or Path("results") / name,
            workers,
            progress=progress,
            follow=pairing.add,
            stop_when=lambda: pairing.decision is not None,
        )
        pairing.close()
        if summary.interrupted:
            sys.exit(summary.exit_code)
        echo(
            f"{summary.played} matches played now, {summary.done_before} before; "
            f"results in {summary.out}"
        )
    for line in cmp.report(pairing, test):
        echo(line)


def compare_results(results: str, a: str, b: str, test: Any, metric: str) -> Any:
    """Pair A's and B's matches in an existing results directory."""
    from ..league.file import load_league
    from ..rating.compare import pair_up
    from ..run.inorder import COLUMNS as FOLLOW_COLUMNS
    from ..store.audit import COLUMNS as AUDIT_COLUMNS
    from ..store.audit import Auditor
    from ..store.directory import ResultsError, RunDir, read_again

    store = RunDir(results)
    if not store.is_run():
        raise ResultsError(f"{results} is not a bohnarena results directory")
    league = load_league(store.path / "league.toml")
    for bot in (a, b):
        if bot not in league.bots:
            raise UsageError(f"{bot!r} is not a bot of {results} ({', '.join(league.bots)})")
    auditor = Auditor.for_run(league, store.meta())
    columns = sorted({*FOLLOW_COLUMNS, *AUDIT_COLUMNS})
    pairing = read_again(
        lambda: pair_up(auditor.audited(store.iter_matches(columns)), a, b, test, metric)
    )
    if not pairing.pairs:
        raise UsageError(
            f"{a} and {b} never played the same deal in the same seats against the same "
            f"opponents in {results} (with rotations, a round-robin pairs them only where "
            'their tables keep the seating order; seatings = "permutations" pairs them all)'
        )
    return pairing


def main() -> None:
    cli(prog_name="bohnarena")


if __name__ == "__main__":  # pragma: no cover
    main()
