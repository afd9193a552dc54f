"""A submission taken into a ladder: staged in a private directory (copied
or unpacked, its declarations read, its requirements checked), renamed
into ``bots/<hash>/`` whole, recorded pending in one transaction, checked
in the sandbox, then made active (the entry's old version retired in the
same transaction) or rejected (its files removed again). A reader sees a
version all there or not at all; a ``ladder run`` plays only active ones.

A submitter holds a lock (``incoming/<token>.lock``) from staging to its
verdict: a pending or validating version whose lock is free was left by a
submitter that was killed, and is rejected by whoever finds it next.

A submission may instead be left pending (``check=None``: the site's
upload), marked DEFERRED, for :func:`validate` to check later under the
same lock (``ladder serve``'s player): one whose checker was killed is
pending again, not rejected."""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..core.entry import BotEntry
from ..core.errors import BotLoadError
from ..core.plugins import locate
from ..core.services import is_url
from ..core.trees import remove
from ..external.botfiles import ExposedError, check_layout
from ..external.packages import shadowing
from ..league.file import League
from .catalog import STATES, Catalog, Version
from .check import Verdict
from .metadata import Declared, check_requirements, chosen_bot, project, wheel
from .served import KIND as URL
from .served import url_entry, url_hash, url_table
from .settings import LEAGUE, RESULTS, Settings
from .unpack import (
    Budget,
    SubmissionError,
    check_name,
    copy_tree,
    single_top,
    tree_hash,
    untar,
    unzip,
    write_file,
)

BOTS = "bots"
INCOMING = "incoming"
#: Under ``incoming/``: staging trees that could not be removed, each with its reason.
QUARANTINE = ".quarantine"
ENTRY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
SDIST = (".tar.gz", ".tgz", ".tar", ".zip")
INTERRUPTED = "its submission was interrupted: submit it again"
#: The reason a version staged now and checked later carries until its verdict.
DEFERRED = "waiting for its check"


@dataclass
class Staged:
    kind: str
    entry: dict[str, Any]
    tree: Path


class Rejected(SubmissionError):
    """A submission its check refused; nothing of the ladder changed."""

    def __init__(self, version: Version, verdict: Verdict) -> None:
        super().__init__(f"{version.bot} is rejected: {verdict.reason}")
        self.verdict = verdict


def bot_dir(ladder: Path, digest: str) -> Path:
    return (ladder / BOTS / digest).resolve()


def bot_table(ladder: Path, version: Version, settings: Settings) -> dict[str, Any]:
    """``version`` as a bot of the ladder's league file: its paths relative
    to the ladder (``bots/<hash>/...``, which the league file's directory
    resolves), so that a ladder moved elsewhere plays the very same bots."""
    home = f"{BOTS}/{version.hash}"
    e, isolation = version.entry, settings.isolation
    if version.kind == URL:
        return url_table(e, settings.allow_private)
    if "command" in e:
        mine = bot_dir(ladder, version.hash)
        argv = [f"{home}/{a}" if a and (mine / a).exists() else a for a in e["command"]]
        return {"command": argv, "dir": home, "isolation": isolation}
    if "file" in e:
        return {"spec": f"{home}/{e['file']}:{e['attr']}", "isolation": isolation}
    root = f"{home}/{e['root']}" if e["root"] else home
    return {"spec": f"{root}/{e['module']}:{e['attr']}", "isolation": isolation}


def stage(
    source: str, bot: str | None, command: str | None, settings: Settings, tree: Path
) -> Staged:
    """``source`` brought into ``tree`` (which must not exist yet)."""
    budget = Budget(settings.max_bytes, settings.max_files, settings.max_dirs, settings.max_depth)
    path = Path(source)
    if command is not None:
        if not path.is_dir():
            raise SubmissionError(f"a command bot is a directory with its program: {source}")
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise SubmissionError(f"--command: cannot split {command!r}: {e}") from None
        if not argv:
            raise SubmissionError("--command needs a command line")
        for arg in argv:  # a path elsewhere would show the organiser's file in its sandbox
            check_name(arg, "--command's argument", path=True)
            if arg.startswith(("/", "~")) or ".." in Path(arg).parts:
                raise SubmissionError(
                    f"--command: {arg!r} is outside the bot's directory: a ladder's command "
                    "names its own files (relative to its directory) and programs by name"
                )
        copy_tree(path, tree, budget)
        return Staged("command", {"command": argv}, tree)
    where, sep, attr = source.rpartition(":")
    if sep and where.endswith(".py"):
        path = Path(where)
    elif source.endswith(".py"):
        attr = bot or ""
    if path.suffix == ".py":
        if not attr or not attr.isidentifier():
            raise SubmissionError(f"name the bot's class: {path}:Class")
        if not path.is_file():
            raise SubmissionError(f"{path} is not a file")
        tree.mkdir(parents=True)
        budget.place((path.name,), path.name, False)
        with open(path, "rb") as f:
            write_file(f, tree / path.name, budget, path.name, False)
        return Staged("file", {"file": path.name, "attr": attr}, tree)
    if not path.exists():
        raise SubmissionError(f"{source} does not exist")
    if path.is_dir():
        if (path / "__init__.py").is_file():  # the package itself
            copy_tree(path, tree / path.name, budget)
            return _python("package", tree, Declared(), bot, settings)
        copy_tree(path, tree, budget)
        return _python("package", tree, project(tree), bot, settings)
    if path.suffix == ".whl":
        unzip(path, tree, budget)
        return _python("wheel", tree, wheel(tree), bot, settings)
    if path.name.endswith(SDIST):
        raw = tree.with_name(tree.name + ".raw")
        try:
            (unzip if path.suffix == ".zip" else untar)(path, raw, budget)
            os.rename(single_top(raw), tree)
        finally:
            discard(raw)
        return _python("sdist", tree, project(tree), bot, settings)
    raise SubmissionError(
        f"{source}: a submission is file.py:Class, a package directory, a wheel (.whl), "
        "an sdist (.tar.gz, .zip), a directory with --command or an http(s):// URL"
    )


def _python(kind: str, tree: Path, declared: Declared, bot: str | None, s: Settings) -> Staged:
    check_requirements(declared.requirements, s.packages)
    module, sep, attr = chosen_bot(declared, bot).partition(":")
    module, attr = module.strip(), attr.strip()
    if not sep or not attr.isidentifier() or not all(p.isidentifier() for p in module.split(".")):
        raise SubmissionError(f"its bot must be module:Class, not {module}{sep}{attr}")
    top = module.partition(".")[0]
    roots = [r for r in ("", "src") if _holds(tree / r, top)]
    if not roots:
        raise SubmissionError(f"it holds no module {module}")
    try:  # found in the files alone, as the sandbox will find it
        found = locate(f"{(tree / roots[0]).resolve()}/{module}:{attr}")
    except BotLoadError as e:
        raise SubmissionError(str(e)) from None
    why = shadowing(found.paths, s.packages)  # its json.py would not be the one it imports
    if why is not None:
        raise SubmissionError(why)
    return Staged(kind, {"root": roots[0], "module": module, "attr": attr}, tree)


@contextmanager
def held(path: Path) -> Iterator[IO[str]]:
    """An exclusive lock on ``path`` for as long as the block runs. A lock
    file that :func:`recover` removed meanwhile is made again: the lock
    held is always the one at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        lock = open(path, "a")  # noqa: SIM115 (closed below)
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_ino == os.fstat(lock.fileno()).st_ino:
                break
        except FileNotFoundError:
            pass
        lock.close()
    try:
        yield lock
    finally:
        path.unlink(missing_ok=True)
        lock.close()


def _free(path: Path, drop: bool = False) -> bool:
    """Whether nobody holds ``path``'s lock (a missing file: nobody);
    ``drop``: a free lock file is removed (under its lock)."""
    try:
        with open(path) as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False
            if drop:
                path.unlink(missing_ok=True)
            return True
    except FileNotFoundError:
        return True


def recover(ladder: Path, catalog: Catalog) -> list[Version]:
    """Versions whose submitter was killed before their verdict, rejected
    (their files removed; returned), a DEFERRED one whose check was cut
    short pending again, and staging directories nobody holds, removed."""
    incoming = ladder / INCOMING
    left = []
    for version in catalog.versions(states=("pending", "validating")):
        if not _free(incoming / f"{version.token}.lock"):
            continue
        # (each change only if the version is as it was read: its holder may have just ended)
        if version.reason == DEFERRED:  # its files all there: checked again
            if version.state == "validating":
                catalog.set_state(version.id, "pending", DEFERRED, was="validating")
        elif catalog.set_state(version.id, "rejected", INTERRUPTED, was=version.state):
            _drop_files(ladder, catalog, version.hash)
            left.append(version)
    if incoming.is_dir():
        for staged in sorted(incoming.iterdir(), key=lambda p: p.suffix != ".lock"):
            token = staged.name.partition(".")[0]
            if staged.name == QUARANTINE:
                continue
            if staged.is_dir() and _free(incoming / f"{token}.lock"):
                discard(staged)
            elif staged.suffix == ".lock":
                _free(staged, drop=True)
    return left


def discard(staged: Path) -> None:
    """A staging tree removed; one that cannot be (a tree too deep for any
    path to reach, a file that will not go) is moved aside whole, into
    ``incoming/.quarantine/``, with a file that says why: it never stops
    another submit or run. The organiser removes it at leisure."""
    try:
        remove(staged)
    except OSError as e:
        aside = staged.parent / QUARANTINE
        where = aside / f"{staged.name}-{secrets.token_hex(4)}"
        try:
            aside.mkdir(exist_ok=True)
            os.rename(staged, where)  # one rename: however deep the tree is
            why = f"{staged.name} could not be removed: {e.strerror or e}: {e.filename}\n"
            where.with_name(where.name + ".reason").write_text(why, "utf-8", "backslashreplace")
        except OSError:  # not even moved: left where it is, and tried again next time
            pass


def _drop_files(ladder: Path, catalog: Catalog, digest: str) -> None:
    """A version's files, unless another version (of any entry) keeps them."""
    kept = [s for s in STATES if s != "rejected"]  # (a suspended one may come back)
    if not any(v.hash == digest for v in catalog.versions(states=kept)):
        with suppress(OSError):  # left behind under its hash, in no one's way
            remove(bot_dir(ladder, digest))


def submit(
    ladder: Path,
    settings: Settings,
    catalog: Catalog,
    name: str,
    source: str,
    bot: str | None,
    command: str | None,
    check: Callable[[League, BotEntry], Verdict] | None,
    token_env: str | None = None,
    token_file: str | None = None,
) -> tuple[Version, Version | None]:
    """Take ``source`` (files, or the URL of a bot served over HTTP, whose
    token is in ``token_env`` or ``token_file``) as the new version of
    ``name``: (it, the version it retired). Raises SubmissionError
    (Rejected after its check). ``check`` None: the version is left
    pending (staged, hashed and recorded, nothing of it run) for a later
    :func:`validate`."""
    if not ENTRY_NAME.match(name):
        raise SubmissionError(
            f"entry name {name!r} must be letters, digits, '_' or '-' (at most 64; "
            "no '.': a version is NAME.hash8)"
        )
    served = is_url(source)
    # What the league file, the catalog and the logs will name it by.
    check_name(source if served else Path(source).name, "the submission", path=served)
    for kept in (token_env, token_file):
        if kept is not None:
            check_name(kept, "its token's place", path=True)
    if served and (bot is not None or command is not None):
        raise SubmissionError("a URL is a bot served over HTTP: it takes no --bot or --command")
    if not served and (token_env is not None or token_file is not None):
        raise SubmissionError("--token-env and --token-file go with a URL (a bot served over HTTP)")
    recover(ladder, catalog)
    token = secrets.token_hex(8)
    incoming = ladder / INCOMING
    with held(incoming / f"{token}.lock"):
        tree = incoming / token
        try:
            if served:  # nothing to bring in: its version is its URL (served.py)
                table = url_entry(source, token_env, token_file, settings.secrets)
                staged = Staged(URL, table, tree)
                digest, shown = url_hash(staged.entry), staged.entry["url"]
            else:
                staged = stage(source, bot, command, settings, tree)
                how = f"{staged.kind} {sorted(staged.entry.items())}"
                digest, shown = tree_hash(tree, how), Path(source).name
            why = _taken(catalog, name, digest, staged.entry.get("url") if served else None)
            if why:
                raise SubmissionError(why)
            if not served:
                _keep(tree, bot_dir(ladder, digest))
        finally:
            discard(tree)
        queued = DEFERRED if check is None else ""
        vid = catalog.add(name, digest, staged.kind, staged.entry, shown, token, queued)
        if check is None:
            return catalog.get(vid), None
        return _judge(ladder, settings, catalog, catalog.get(vid), check)


def validate(
    ladder: Path,
    settings: Settings,
    catalog: Catalog,
    version: Version,
    check: Callable[[League, BotEntry], Verdict],
) -> tuple[Version, Version | None]:
    """A version :func:`submit` left pending checked now, as ``ladder
    submit`` checks one: pending -> validating -> active (returned, with the
    version it retired) or rejected (Rejected raised). Raises
    SubmissionError if it is pending no more (another validate took it)."""
    with held(ladder / INCOMING / f"{version.token}.lock"):
        version = catalog.get(version.id)
        if version.state != "pending":
            raise SubmissionError(f"{version.bot} is {version.state}, not pending")
        why = _taken(catalog, version.name, version.hash, version.entry.get("url"), version.id)
        if why:  # (since it was staged, an earlier submission was accepted)
            return _verdict(ladder, catalog, version, Verdict(why))
        return _judge(ladder, settings, catalog, version, check)


def _judge(
    ladder: Path,
    settings: Settings,
    catalog: Catalog,
    version: Version,
    check: Callable[[League, BotEntry], Verdict],
) -> tuple[Version, Version | None]:
    """A pending ``version`` (its lock held) checked and its verdict kept."""
    try:
        # (a deferred one keeps its mark: a killed checker's is pending again, see recover)
        catalog.set_state(version.id, "validating", version.reason)
        league = settings.league({version.bot: bot_table(ladder, version, settings)}, ladder)
        entry = league.bots[version.bot]
        check_layout(entry, ladder / LEAGUE, ladder / RESULTS)  # it shows nothing of ours
        verdict = check(league, entry)
    except BaseException as e:
        if version.reason == DEFERRED and not isinstance(e, Exception):  # a stop: checked anew
            catalog.set_state(version.id, "pending", DEFERRED)
            raise
        reason = str(e) if isinstance(e, ExposedError) else INTERRUPTED
        catalog.set_state(version.id, "rejected", reason)
        _drop_files(ladder, catalog, version.hash)
        raise
    return _verdict(ladder, catalog, version, verdict)


def _verdict(
    ladder: Path, catalog: Catalog, version: Version, verdict: Verdict
) -> tuple[Version, Version | None]:
    if verdict.reason:
        catalog.set_state(version.id, "rejected", verdict.reason)
        _drop_files(ladder, catalog, version.hash)
        raise Rejected(catalog.get(version.id), verdict)
    old = catalog.activate(version.id)
    return catalog.get(version.id), old


def _taken(catalog: Catalog, name: str, digest: str, url: str | None, other_than: int = 0) -> str:
    """Why a version (of ``name``, ``digest``; served from ``url``) cannot
    be taken: the same already active or waiting for its check, or its
    service another entry's; empty if it can."""
    for v in catalog.versions(name, ("active", "pending", "validating")):
        if v.hash == digest and v.id != other_than:
            return f"{name} already has this version {v.state}: {v.bot}"
    return "" if url is None else _served_once(catalog, name, url)


def _served_once(catalog: Catalog, name: str, url: str) -> str:
    """A service is one entry: under two it would be rated twice and play
    itself. Its own entry may take it again (with its token kept elsewhere)."""
    for v in catalog.versions(states=("active", "validating")):
        if v.kind == URL and v.name != name and v.entry["url"] == url:
            instead = f"submit it as {v.name}, or retire that first"
            return f"{url} is served as {v.bot} already: {instead}"
    return ""


def _keep(tree: Path, home: Path) -> None:
    """A staged ``tree`` moved to its ``home`` under ``bots/``."""
    home.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tree, home)  # whole, or not at all
    except OSError:
        if not home.is_dir():
            raise
        # the same files are there already (another entry's, or an earlier try)


def _holds(root: Path, top: str) -> bool:
    """Whether ``root`` holds the top-level package or module ``top``."""
    return (root / top).is_dir() or (root / f"{top}.py").is_file()
