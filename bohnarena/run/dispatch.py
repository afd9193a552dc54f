"""Running a league: schedule, batches, execution, commits, resume, ranking.

Nothing here knows a game's rules: matches are played by
:func:`bohnarena.run.worker.play_batch` through the game interface.
"""

from __future__ import annotations

import logging
import multiprocessing
import secrets
import sys
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any

import multiprocessing_logging
import pyarrow as pa
from tqdm import tqdm

from .. import __version__
from ..analysis.results import LeagueResults, Results, read_results
from ..analysis.thinking import Timings
from ..core.errors import UsageError
from ..core.game import get_game, log_names
from ..core.seeding import commitment, new_salt
from ..core.stopping import exit_code
from ..core.textplay import text_version
from ..core.untrusted import LogFormatter
from ..external.botfiles import check_layout
from ..external.endpoint import close_sandboxes
from ..external.sandbox import cgroups
from ..league.file import League, guessable_seed, load_league, with_secrets_dir
from ..league.schedule import MatchSpec, Schedule
from ..rating.skill import Ranking
from ..store import layout
from ..store.audited import AuditedRun
from ..store.directory import RunDir
from ..store.logbook import LOG_FORMAT
from ..store.names import write_names
from ..store.parts import StorageError, part_name, storage_error, write_text
from .execution import Backend, LocalPool
from .inorder import COLUMNS as FOLLOW_COLUMNS
from .inorder import InOrder, Row
from .provenance import check_workers, preflight, run_facts, source_hash, started_before
from .rankfiles import _try_write_errors, errors_json, keep_curve, rated_before, write_ranking
from .standings import Standings, Watch
from .supervise import BatchLost
from .worker import BatchTask, built, play_batch

log = logging.getLogger("bohnarena")


@dataclass
class RunSummary:
    out: Path
    total: int
    done_before: int
    played: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)
    ranking: Ranking | None = None
    #: Rated as the matches finished: what the report of the run shows.
    results: LeagueResults | None = None
    interrupted: bool = False
    stopped: bool = False  # ``stop_when`` said enough before every match was played
    exit_code: int = 0  # when interrupted: 130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP)
    play_seconds: float = 0.0  # wall time of the playing phase (without ranking and compaction)
    #: The head of the results' chain after the run (store/chain.py), published in run.json.
    chain_head: str | None = None

    @property
    def complete(self) -> bool:
        return (
            not self.errors
            and not self.interrupted
            and not self.stopped
            and self.done_before + self.played == self.total
        )


def batch_size(league: League, pending: int, backend: Backend) -> int:
    if league.batch_size:
        return league.batch_size
    # About 8 batches per worker keeps every core busy to the end; the
    # backend's cap bounds a worker's memory and what a dead worker costs.
    return max(1, min(backend.max_batch, -(-pending // (backend.workers * 8))))


def batches(pending: Iterable[MatchSpec], size: int) -> Iterator[tuple[MatchSpec, ...]]:
    """Runs of consecutive match ids, at most ``size`` long (a part file
    covers one id range, see store.py)."""
    run: list[MatchSpec] = []
    for m in pending:
        if run and (len(run) == size or m.id != run[-1].id + 1):
            yield tuple(run)
            run = []
        run.append(m)
    if run:
        yield tuple(run)


def expecting(
    inorder: InOrder, runs: Iterator[tuple[MatchSpec, ...]]
) -> Iterator[tuple[MatchSpec, ...]]:
    """``runs`` as they are handed out, each announced to ``inorder``."""
    for run in runs:
        inorder.expect(run[0].id)
        yield run


@contextmanager
def run_log(path: Path, libraries: Iterable[str] = ()) -> Iterator[None]:
    """Log to ``path`` from the parent and (through multiprocessing-logging)
    from every forked worker; the loggers named in ``libraries`` (and those
    under them) write there instead of to their own handlers meanwhile."""
    handler = logging.FileHandler(path, encoding="utf-8")
    # (a bot's traceback and text reach it: escaped, see LogFormatter)
    handler.setFormatter(LogFormatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    # The library relays forked workers' records only; with another start
    # method the parent logs alone.
    if multiprocessing.get_start_method() == "fork":
        multiprocessing_logging.install_mp_handler(log)
    taken = _take_over(libraries, handler)
    try:
        yield
    finally:
        for logger, handlers in taken:
            logger.handlers = handlers
        for h in list(log.handlers):
            log.removeHandler(h)
            h.close()


def _take_over(
    libraries: Iterable[str], handler: logging.Handler
) -> list[tuple[logging.Logger, list[logging.Handler]]]:
    """Point every logger of ``libraries`` that has handlers at ``handler``;
    returns what they had, to put back."""
    names = tuple(libraries)
    under = tuple(n + "." for n in names)
    taken = [
        (logger, logger.handlers)
        for name, logger in list(logging.Logger.manager.loggerDict.items())
        if isinstance(logger, logging.Logger)
        and (name in names or name.startswith(under))
        and logger.handlers
    ]
    for logger, _ in taken:
        logger.handlers = [handler]
    return taken


def shard_range(total: int, shard: tuple[int, int] | None) -> range:
    """Match ids of shard K of N (1-based): the K-th of N contiguous, disjoint slices."""
    if shard is None:
        return range(total)
    k, n = shard
    return range((k - 1) * total // n, k * total // n)


def shard_spans(plan: Schedule, shard: tuple[int, int] | None) -> list[range]:
    """Match ids of shard K of N in a league that grew: the K-th slice of
    each generation's ids (so a shard's old matches stay its own)."""
    return [
        range(s.start + r.start, s.start + r.stop)
        for s in plan.spans
        for r in [shard_range(len(s), shard)]
    ]


def run_league(
    path: str | Path | League,
    out: str | Path | None = None,
    workers: int | None = None,
    restart: bool = False,
    moves: bool | None = None,
    progress: bool | None = None,
    backend: Backend | None = None,
    shard: tuple[int, int] | None = None,
    warn: Callable[[str], None] | None = None,
    follow: Callable[[Row], None] | None = None,
    stop_when: Callable[[], bool] | None = None,
    standings_every: int | None = None,
    home: Path | None = None,
    secrets_dir: Path | None = None,
    note: Callable[[str], None] | None = None,
    watch: Watch | None = None,
    drawn: tuple[int, str] | None = None,
) -> RunSummary:
    """Run (or resume) the league of ``path`` (a file, or a parsed league).

    ``follow`` gets every finished match of the directory in match-id order
    as the run goes (the ranking is built the same way); once ``stop_when()``
    is true no new batch starts, and the run ends when those playing finish.
    ``standings_every``: a standings line in the run log every this many
    matches (None: standings.every; 0: none). ``home``: where the bots' paths
    are hashed from (a ladder's directory: moved, its bots are the same).
    ``secrets_dir``: the directory of the served bots' token files. ``note``
    gets the secret seed's commitment before any match is played. ``watch``
    is told the standings as the run rates its matches (standings.Watch).
    ``drawn``: a secret seed and salt drawn before (a ladder's ``season
    new``), used by a new results directory instead of drawing them."""
    league = path if isinstance(path, League) else load_league(path)
    league = with_secrets_dir(league, secrets_dir)
    if moves is not None:
        league = replace(league, moves=moves)
    # Arrow's default allocator (mimalloc) keeps what compaction and batch
    # conversion freed; the system allocator gives it back, which keeps a
    # long league's memory flat (benchmarks/league_bench.py).
    pa.set_memory_pool(pa.system_memory_pool())
    game = get_game(league.game)
    out = Path(out) if out is not None else Path("results") / league.name
    for entry in league.bots.values():  # what a sandbox shows, before it starts
        check_layout(entry, league.file, out)
    hashes = {n: source_hash(entry, game.bot_base, home) for n, entry in league.bots.items()}
    rules = game.rules(league.edition, league.players, league.rules)
    # (a bot whose code the results already hold started when it joined: a
    # league that grows, or a ladder of hundreds, checks its new bots only;
    # a service has no code to hash, so whether it answers is checked each time)
    known = set() if restart else started_before(out, hashes)
    try:
        for name, entry in league.bots.items():  # before anything is written
            if entry.isolation != "inprocess" and (entry.service or name not in known):
                preflight(game, entry, rules, league.limits)
    finally:
        close_sandboxes()  # the workers start their own
    sandboxed = any(e.isolation == "sandbox" for e in league.bots.values())
    if sandboxed and warn is not None and not cgroups.cpu_contained():
        warn(cgroups.UNCONTAINED_CPU)
    if guessable_seed(league) and warn is not None:
        warn(
            f"seed {league.seed} is small enough for a sandboxed bot to find by trying seeds "
            'against its own hand; use seed = "secret" for untrusted bots.'
        )
    store = RunDir(out)
    meta = {
        "bohnarena": __version__,
        "log_format": LOG_FORMAT,
        "game": league.game,
        "rules_version": game.version,
        "text_version": text_version(game),
        "edition": league.edition,
        "bots": hashes,
        # each bot's parameters (docs/tuning.md), where a league sets some
        **({"params": params} if (params := league.params()) else {}),
        "shard": None if shard is None else f"{shard[0]}/{shard[1]}",
        **league.format_facts(),
        **run_facts(game, rules, league),
    }
    if league.seed is None:
        if shard is not None:
            raise UsageError(
                'a sharded league needs a master seed of its own: seed = "secret" '
                "is drawn by each run; write a large random number in a private "
                "copy of the league file"
            )
        meta["seed"], meta["seed_salt"] = drawn or (secrets.randbits(63), new_salt())
        # committed before any match is played (docs/fairness.md); the salt
        # stays with the seed until `reveal`
        meta["seed_commitment"] = commitment(meta["seed"], meta["seed_salt"])
    store.open_for_run(league.source, meta, restart)
    backend = backend or LocalPool(
        workers if workers is not None else league.workers,
        private=any(e.isolation == "process" for e in league.bots.values()),
    )
    try:
        # The backend closes inside the run log: a cluster's last words go there too.
        with run_log(store.path / layout.RUN_LOG, backend.loggers):
            try:
                # (derived from the game, so a run made before names were kept gets them now)
                write_names(store.path, log_names(game, rules))
                if league.seed is None:  # the run's own, kept in run.json (a resume reads it)
                    kept = store.meta()
                    league = replace(league, seed=kept.get("seed", meta["seed"]))
                    if note is not None and "seed_commitment" in kept:
                        note(f"seed commitment: {kept['seed_commitment']}")
                check_workers(backend, league)
                return _run(
                    league,
                    store,
                    backend,
                    progress,
                    shard,
                    follow,
                    stop_when,
                    standings_every,
                    watch,
                )
            finally:
                backend.close()
    finally:
        store.close()


def _run(
    league: League,
    store: RunDir,
    backend: Backend,
    progress: bool | None,
    shard: tuple[int, int] | None,
    follow: Callable[[Row], None] | None = None,
    stop_when: Callable[[], bool] | None = None,
    standings_every: int | None = None,
    watch: Watch | None = None,
) -> RunSummary:
    for part in store.drop_damaged(league.moves):
        log.warning("part %s does not read: its matches are played again", part)
    run = AuditedRun.of(store, league)
    auditor = run.auditor
    # What it resumes must be this league's, untouched: the parts not
    # audited before (or changed since) are audited now.
    done, listing = run.resume()
    # The schedule is generated lazily: the parent's memory does not grow
    # with the league. A league that grew plays its matches as it is now.
    plan = auditor.schedule
    spans = shard_spans(plan, shard)
    ids: Collection[int] = spans[0] if len(spans) == 1 else plan.standing_ids(spans)
    done = {i for i in done if i in ids}
    summary = RunSummary(store.path, len(ids), len(done))
    # Matches are rated as they finish, in id order, merged with those the
    # directory held: the ranking is ready with the last match, and it is
    # what rating the finished directory gives (tests/run/test_streaming.py).
    # A grown league's (or a resumed run's) first matches were rated by the
    # run that kept their curve: rating goes on from there.
    results = Results(list(league.bots), rated_before(store, plan, done, ids))
    standings = Standings(results.rater, summary.total, standings_every, watch)

    def rate_and_follow(row: Row) -> None:
        if not plan.stands(row["table"], row["deal"]):  # a removed bot's: out of the standings
            return
        results.add(row)
        standings.rated()
        if follow is not None:
            follow(row)

    held = store.iter_matches(FOLLOW_COLUMNS, listing=listing) if done else None
    inorder = InOrder(rate_and_follow, held)
    assert league.seed is not None, "a secret seed is drawn or read back before the run"
    log.info(
        "league %s: %d matches, %d already done, %d workers",
        league.name,
        summary.total,
        len(done),
        backend.workers,
    )
    pending = (
        (plan.spec(i) for i in span if i not in done and (plan.standing is None or i in ids))
        for span in spans
    )
    todo = summary.total - len(done)
    size = batch_size(league, todo, backend)
    spool = str(store.path) if backend.hand_over != "tables" else None  # (a disk it shares)
    tasks = (
        BatchTask(
            league.game,
            league.edition,
            league.players,
            league.rules,
            league.bots,
            b,
            league.moves,
            spool,
            league.limits,
            hand_over=backend.hand_over,
        )
        for b in expecting(inorder, chain.from_iterable(batches(p, size) for p in pending))
    )
    start = time.perf_counter()
    # progress None: a bar only when stderr is a terminal
    bar = tqdm(
        total=todo,
        unit="match",
        disable=None if progress is None else not progress,
        file=sys.stderr,
        dynamic_ncols=True,
    )
    standings.under(bar)
    standings.tell()
    timings = Timings(list(league.bots))  # the workers' summaries: the report reads no timing file
    try:
        Dispatcher(backend, store, summary, bar, inorder, stop_when, timings).run(tasks)
        inorder.finish()
    except StorageError:  # stop at the first: the rest would fail alike
        backend.close(now=True)
        _try_write_errors(store, summary)
        raise
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM/SIGHUP (stopping.Stopped)
        summary.interrupted = True
        summary.exit_code = exit_code(stop)
        log.warning("interrupted after %d matches", summary.played)
    finally:
        standings.close()
        bar.close()
        if summary.interrupted:
            backend.close(now=True)
        summary.play_seconds = time.perf_counter() - start
    write_text(store.path / layout.ERRORS, errors_json(summary))
    if summary.complete:  # each generation's parts into one (an older one's stay as they are)
        for span in spans:
            if span:
                store.compact(span.start, span.stop - 1)
    summary.chain_head = store.publish_head()  # (docs/fairness.md: noted, it proves what was)
    if not summary.interrupted:
        # (rated_before checked the kept curve leads: should it not have, the
        # directory is rated afresh rather than ranked on a wrong curve)
        summary.results = (
            results.of(store.path, league, store.meta())
            if results.trusted
            else read_results(store.path)
        )
        summary.results.timings = timings
        summary.ranking = write_ranking(store, league, summary.results.ranking)
        keep_curve(store, summary.results)
    log.info("played %d matches, %d errored", summary.played, len(summary.errors))
    return summary


HEALTH_SECONDS = 2.0  # how often a waiting run asks its backend whether it is still there
FOLLOW_SLICE = 16  # matches rated between two looks at the workers (a few ms)


class Dispatcher:
    """Keeps the backend busy with batches and commits what finishes.

    A task that failed (its worker died or hung, which on the local pool
    fails every task in flight with it) is played again carefully, in a
    watched process of its own (:func:`~bohnarena.run.worker.play_carefully`),
    beside the others: whatever its bots do cannot take a worker down, its
    bystanders are played as ever, and a match that kills its process
    charges the seat whose call it was. A careful task that fails all the
    same is retried alone (to pin it on the right task), then its matches
    are recorded as errored.
    """

    def __init__(
        self,
        backend: Backend,
        store: RunDir,
        summary: RunSummary,
        bar: tqdm,
        inorder: InOrder | None = None,
        stop_when: Callable[[], bool] | None = None,
        timings: Timings | None = None,
    ) -> None:
        self.backend, self.store, self.summary, self.bar = backend, store, summary, bar
        self.inorder, self.stop_when, self.timings = inorder, stop_when, timings
        self.retry: deque[BatchTask] = deque()  # pushed back after a failed submit
        self.suspects: deque[BatchTask] = deque()  # in flight when a worker died
        self.inflight: dict[Future[Any], tuple[BatchTask, int, bool]] = {}
        self.generation = 0
        self.executor = backend.executor()
        self.checked = time.monotonic()

    def run(self, tasks: Iterator[BatchTask]) -> None:
        cap = 2 * self.backend.workers
        while True:
            now = time.monotonic()
            if now - self.checked >= HEALTH_SECONDS:  # however busy: a hung worker is stopped
                self.checked = now
                self.backend.check()
            if self.suspects:
                if not self.inflight:  # alone, so a death can be pinned on it
                    self.submit(self.suspects.popleft(), alone=True)
            else:
                while len(self.inflight) < cap:
                    task = self.retry.popleft() if self.retry else self.next_task(tasks)
                    if task is None or not self.submit(task, alone=False):
                        break
            if not self.inflight:
                if self.suspects or self.retry:
                    continue
                return
            if self.inorder is not None and self.inorder.backlog:
                finished, _ = wait(self.inflight, timeout=0, return_when=FIRST_COMPLETED)
                if not finished:  # rate while the workers play
                    self.inorder.pump(FOLLOW_SLICE)
                    continue
            else:
                finished, _ = wait(
                    self.inflight, timeout=HEALTH_SECONDS, return_when=FIRST_COMPLETED
                )
            if not finished:  # a long batch, a hung worker, or a cluster that is gone
                continue
            if any(self.collect(f) for f in finished):
                self.restart()

    def next_task(self, tasks: Iterator[BatchTask]) -> BatchTask | None:
        if self.stop_when is not None and self.stop_when():
            self.summary.stopped = True
            return None
        return next(tasks, None)

    def submit(self, task: BatchTask, alone: bool) -> bool:
        try:
            self.inflight[self.executor.submit(play_batch, task)] = (task, self.generation, alone)
            return True
        except BrokenProcessPool:  # it broke before a future told us: task first, afresh
            (self.suspects if alone else self.retry).appendleft(task)
            self.restart()
            return False
        except Exception:  # a closed cluster client refuses work: say that, not its traceback
            self.backend.check()
            raise

    def restart(self) -> None:
        self.generation += 1
        self.executor = self.backend.executor()

    def collect(self, future: Future[Any]) -> bool:
        """Commit or requeue a finished task; True if it shows the current pool broke."""
        task, generation, alone = self.inflight.pop(future)
        try:
            result = built(future.result())
        except BrokenProcessPool:
            self.failed(task, alone, "a worker process died")
            return generation == self.generation
        except BatchLost as e:  # its own process died or hung (on Dask): pinned on it
            self.failed(task, True, str(e))
            return False
        except CancelledError:  # never by us: the cluster dropped it (its scheduler went away)
            self.backend.check()
            (self.suspects if alone else self.retry).appendleft(task)  # uncharged, sent again
            return False
        except OSError as e:  # a worker could not write its part: the disk, not the batch
            raise storage_error(Path(getattr(e, "filename", None) or self.store.path), e) from None
        except Exception as e:  # the task itself raised: treated the same way
            log.error("batch %d-%d raised", task.first, task.last, exc_info=e)
            self.failed(task, alone, f"{type(e).__name__}: {e}")
            return False
        self.store.commit(
            task.first, task.last, result.matches, result.moves, result.timing, result.exchanges
        )
        if self.timings is not None and result.timed is not None:
            self.timings.add(result.timed)
        if self.inorder is not None:
            matches = result.matches
            if isinstance(matches, Path):  # spooled by the worker, now in place
                matches = self.store.read_part(part_name(task.first, task.last), FOLLOW_COLUMNS)
            self.inorder.arrive(task.first, matches)
        self.summary.played += result.played
        self.summary.errors += result.errors
        self.bar.update(len(task.matches))
        return False

    def failed(self, task: BatchTask, alone: bool, reason: str) -> None:
        if not task.careful:
            log.warning(
                "batch %d-%d failed (%s); it is played again carefully, match by match",
                task.first,
                task.last,
                reason,
            )
            self.retry.append(replace(task, careful=True))
        elif not alone:
            self.suspects.append(task)  # maybe only a bystander of another batch's crash
        else:
            log.error(
                "batch %d-%d failed even played carefully (%s); its matches are recorded as"
                " errored",
                task.first,
                task.last,
                reason,
            )
            self.summary.errors += [(m.id, reason) for m in task.matches]
            if self.inorder is not None:
                self.inorder.arrive(task.first, None)
            self.bar.update(len(task.matches))
