"""A submission taken through the site, by the API or the form: the holder
may touch the entry, is within its rate, and the upload is within the
ladder's limit (refused by its declared length before a byte is read,
stopped as it streams past it); the file is then staged and recorded
exactly as ``ladder submit`` does, and left pending for the player
process to check (``submit(check=None)``): nothing of it runs here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from python_multipart.exceptions import MultipartParseError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from ..core.errors import BohnarenaError
from ..ladder.catalog import Catalog, Version
from ..ladder.settings import load_settings
from ..ladder.submission import ENTRY_NAME, submit
from ..ladder.tokens import Holder
from ..ladder.unpack import SubmissionError
from .upload import OVERHEAD, BadUpload, TooLarge, receive

if TYPE_CHECKING:
    from .app import Site


@dataclass
class Refused(BohnarenaError):
    """A request refused: its HTTP status and the one line that says why."""

    status: int
    text: str
    retry_after: int | None = None


def entry_for(holder: Holder | None, entry: str) -> None:
    """Refused unless ``holder`` may touch the entry named ``entry``."""
    if holder is None:
        raise Refused(401, "a valid token is needed: Authorization: Bearer TOKEN")
    if not ENTRY_NAME.match(entry):
        raise Refused(400, "an entry's name is letters, digits, '_' or '-' (at most 64)")
    if not holder.may_touch(entry):
        raise Refused(403, f"this token may not touch the entry {entry!r}")


def _taken(ladder: Path, name: str, path: str, bot: str | None) -> Version:
    settings, catalog = load_settings(ladder), Catalog(ladder)
    try:
        version, _ = submit(ladder, settings, catalog, name, path, bot, None, None)
        return version
    finally:
        catalog.close()


async def intake(
    site: Site,
    request: Request,
    holder: Holder | None,
    entry: str,
    before_file: Callable[[dict[str, str]], None] = lambda fields: None,
    entry_field: bool = False,
) -> Version:
    """The new pending version of ``entry`` from the request's upload (with
    ``entry_field``, the entry is the form's ``entry`` field, checked when
    the file begins); raises :class:`Refused`."""
    if not entry_field:
        entry_for(holder, entry)
    elif holder is None:
        raise Refused(401, "log in first")
    limit = load_settings(site.ladder).max_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit + OVERHEAD:
        raise Refused(413, f"the submission is over the ladder's {limit / 2**20:g} MB")
    assert holder is not None
    wait = await run_in_threadpool(site.submissions.take, holder.name)
    if wait is not None:
        raise Refused(429, "too many submissions: wait and send it again", int(wait) + 1)
    chosen = [entry]

    def checked(fields: dict[str, str]) -> None:
        before_file(fields)
        if entry_field:
            chosen[0] = fields.get("entry", "").strip()
            entry_for(holder, chosen[0])

    try:
        upload = await receive(
            site.ladder, request.headers.get("content-type", ""), request.stream(), limit, checked
        )
    except TooLarge:
        raise Refused(413, f"the submission is over the ladder's {limit / 2**20:g} MB") from None
    except (BadUpload, MultipartParseError) as e:
        raise Refused(400, str(e) or "the upload is not a multipart form") from None
    try:
        assert upload.file is not None
        bot = upload.fields.get("bot", "").strip() or None
        return await run_in_threadpool(_taken, site.ladder, chosen[0], str(upload.file), bot)
    except SubmissionError as e:
        raise Refused(409 if "already has this version" in str(e) else 400, str(e)) from None
    finally:
        upload.discard()
