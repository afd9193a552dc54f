"""An upload read as it streams: its one file written under the ladder's
``incoming/`` area (never a path the client named), its size counted as it
arrives and the reading stopped at the ladder's limit, its short fields
kept; the form's CSRF field checked before any file byte is written.

Its directory, ``incoming/<token>.upload/``, is held as a submitter holds
its staging tree (``incoming/<token>.lock``), so a ``submit`` that recovers
what killed submitters left never takes it, and removes it once a killed
server has let go of it."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from python_multipart.multipart import MultipartParser, parse_options_header

from ..core.errors import BohnarenaError
from ..ladder.submission import INCOMING, SDIST, held
from ..ladder.unpack import SubmissionError, check_name

#: Under ``incoming/``: one private directory per upload (``<token>.upload``).
UPLOAD = ".upload"
#: The submissions a file can be (a ``.py`` names its class in the ``bot`` field).
KINDS = (".whl", *SDIST, ".py")
#: The most a field other than the file may hold, and the most fields.
FIELD_BYTES = 4096
FIELDS = 8
#: What a multipart body may hold beyond its file (boundaries, headers, fields).
OVERHEAD = FIELDS * (FIELD_BYTES + 1024)
#: A name kept for the file: letters, digits and ``._+-`` only (a wheel's and
#: an sdist's names are made of those), never starting with a dot.
SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")


class TooLarge(BohnarenaError):
    """The upload went past the ladder's limit: its reading stopped there."""


class BadUpload(SubmissionError):
    """An upload that is not one submission file, said in one line."""


def safe_name(given: str) -> str:
    """The uploaded file's name as the ladder keeps it: its last component
    (``../../x.whl`` is ``x.whl``), refused unless it is a plain name of a
    kind a submission can be."""
    base = re.split(r"[/\\]", given.strip())[-1]
    if not SAFE.match(base) or base in (".", ".."):
        raise BadUpload(
            "the file's name must be letters, digits and ._+- (a wheel, an sdist or a .py file)"
        )
    check_name(base, "the file")
    if not base.endswith(KINDS):
        raise BadUpload(f"{base}: a submission is a wheel (.whl), an sdist (.tar.gz, .zip) or .py")
    return base


@dataclass
class Upload:
    """What a multipart body held: its fields and its one file's path."""

    home: Path  # the upload's private directory (removed by :meth:`discard`)
    lock: ExitStack  # its lock, held until then
    fields: dict[str, str] = field(default_factory=dict)
    file: Path | None = None
    size: int = 0  # the file's bytes as written
    read: int = 0  # the body's bytes read

    def discard(self) -> None:
        with self.lock:
            for path in self.home.iterdir():
                path.unlink()
            self.home.rmdir()


class _Parts:
    """The parser's callbacks: each part's headers, then its data."""

    def __init__(self, up: Upload, limit: int, before_file: Callable[[dict[str, str]], None]):
        self.up, self.limit, self.before_file = up, limit, before_file
        self.name, self.value, self.disposition = b"", b"", b""
        self.part: str | None = None
        self.data = bytearray()
        self.out: IO[bytes] | None = None

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.name += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self.value += data[start:end]
        if len(self.value) > FIELD_BYTES:
            raise BadUpload("a part's header is too long")

    def header_end(self) -> None:
        if self.name.lower() == b"content-disposition":
            self.disposition = self.value
        self.name = self.value = b""

    def headers_finished(self) -> None:
        _, options = parse_options_header(self.disposition)
        self.disposition = b""
        self.part = options.get(b"name", b"").decode("utf-8", "replace")
        if b"filename" not in options:
            if len(self.up.fields) >= FIELDS:
                raise BadUpload("too many fields")
            return
        if self.part != "source" or self.up.file is not None:
            raise BadUpload("send one file, as the field 'source'")
        self.before_file(self.up.fields)
        name = safe_name(options[b"filename"].decode("utf-8", "replace"))
        self.up.file = self.up.home / name
        self.out = open(self.up.file, "xb")  # noqa: SIM115 (closed at its part's end)

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.out is None:
            self.data += data[start:end]
            if len(self.data) > FIELD_BYTES:
                raise BadUpload(f"the field {self.part!r} is too long")
            return
        self.up.size += end - start
        if self.up.size > self.limit:
            raise TooLarge
        self.out.write(data[start:end])

    def part_end(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None
        elif self.part is not None:
            self.up.fields[self.part] = self.data.decode("utf-8", "replace")
        self.data = bytearray()
        self.part = None

    def close(self) -> None:
        if self.out is not None:
            self.out.close()


def boundary_of(content_type: str) -> bytes:
    kind, options = parse_options_header(content_type)
    if kind != b"multipart/form-data" or not options.get(b"boundary"):
        raise BadUpload("send the submission as multipart/form-data (curl -F source=@FILE)")
    return options[b"boundary"]


async def receive(
    ladder: Path,
    content_type: str,
    body: AsyncIterator[bytes],
    limit: int,
    before_file: Callable[[dict[str, str]], None] = lambda fields: None,
) -> Upload:
    """The upload of ``body`` (a multipart form) read into a private
    directory under the ladder's incoming area; raises :class:`TooLarge` as
    soon as the file passes ``limit`` bytes (or the body passes it and the
    form's overhead), having read no further, and removes what it wrote
    when anything fails. ``before_file``: called with the fields read so far
    when the file begins (a form's CSRF check)."""
    boundary = boundary_of(content_type)
    token, lock = secrets.token_hex(8), ExitStack()
    lock.enter_context(held(ladder / INCOMING / f"{token}.lock"))
    home = ladder / INCOMING / f"{token}{UPLOAD}"
    try:
        home.mkdir(mode=0o700)
    except BaseException:
        lock.close()
        raise
    up = Upload(home, lock)
    parts = _Parts(up, limit, before_file)
    parser = MultipartParser(
        boundary,
        {
            "on_header_field": parts.header_field,
            "on_header_value": parts.header_value,
            "on_header_end": parts.header_end,
            "on_headers_finished": parts.headers_finished,
            "on_part_data": parts.part_data,
            "on_part_end": parts.part_end,
        },
    )
    try:
        async for chunk in body:
            up.read += len(chunk)
            if up.read > limit + OVERHEAD:
                raise TooLarge
            parser.write(chunk)
        parser.finalize()
        if up.file is None:
            raise BadUpload("no file: send it as the field 'source' (curl -F source=@FILE)")
    except BaseException:
        parts.close()
        up.discard()
        raise
    return up
