"""The site served by a real uvicorn on a free loopback port, over small
ladders built here; requests made with httpcore. Reusable: ``serve(ladder)``
is a context manager (a second server over the same ladder is a restart),
``site`` a fixture serving a played ladder with two participants.

    pytestmark = SITE_MARKS                     # slow; skipped without the extra

    def test_x(site):                           # the played ladder, ann's and bob's tokens
        r = site.get("/")                       # an httpcore.Response
        r = site.api("POST", "/api/entries/ann/retire", site.tokens["ann"])

    def test_y(tmp_path):
        ladder = small_ladder(tmp_path / "l", tmp_path)   # unplayed; ladder run plays it
        with serve(ladder) as site: ...
"""

import contextlib
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.ladder.conftest import run

#: What the site's tests need: the `site` extra and httpcore (the test extra's).
MISSING = [m for m in ("starlette", "uvicorn", "python_multipart", "httpcore") if not find_spec(m)]
#: Every site test's marks: slow (a ladder played, a server started), and
#: skipped, saying why, without the extra.
SITE_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(MISSING), reason=f"needs the site extra: pip install '.[site]' ({', '.join(MISSING)})"
    ),
]

#: The most a server may take to answer its first request.
START_DEADLINE = 20.0
BOUNDARY = "bohnarena-test-boundary-7f3a"


def multipart(fields=(), file=None):
    """(content type, body) of a multipart form: ``fields`` (name, value)
    first, then ``file`` (name, bytes) as the field ``source``."""
    parts = []
    for name, value in fields:
        head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
        parts.append(f"{head}{value}\r\n".encode())
    if file is not None:
        name, data = file
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="source"; '
            f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        )
        parts.append(head.encode() + data + b"\r\n")
    parts.append(f"--{BOUNDARY}--\r\n".encode())
    return f"multipart/form-data; boundary={BOUNDARY}", b"".join(parts)


@dataclass
class Server:
    """A running site: ``get``/``request`` return httpcore responses."""

    ladder: Path
    port: int
    tokens: dict = field(default_factory=dict)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def request(self, method, path, headers=None, content=None):
        import httpcore

        return httpcore.request(
            method,
            self.url + path,
            headers=headers or {},
            content=content,
            extensions={"timeout": {"read": 60}},
        )

    def get(self, path, headers=None):
        return self.request("GET", path, headers)

    def api(self, method, path, token=None, fields=(), file=None, headers=None):
        headers = dict(headers or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        content = None
        if file is not None or fields:
            headers["Content-Type"], content = multipart(fields, file)
        return self.request(method, path, headers, content)


@contextlib.contextmanager
def serve(ladder, log_level="warning", access_log=False, **options):
    """``make_app(ladder, **options)`` served by uvicorn on a free loopback
    port, in a thread, until the block ends (its log records go to the
    logging module as they are: pytest's caplog sees them)."""
    import httpcore
    import uvicorn

    from bohnarena.site.app import make_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = make_app(ladder, **options)
    config = uvicorn.Config(
        app, log_level=log_level, access_log=access_log, log_config=None, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    site = Server(Path(ladder), port)
    deadline = time.monotonic() + START_DEADLINE
    while True:
        try:
            if site.get("/static/site.css").status == 200:
                break
        except httpcore.ConnectError:
            pass
        assert thread.is_alive(), "the server stopped as it started"
        assert time.monotonic() < deadline, "the server did not answer in time"
        time.sleep(0.05)
    try:
        yield site
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


#: What the played ladder's bots say as they plant: a line of stderr with
#: markup and a terminal escape in it, and a note; each names its own class.
TALKING = """
    def plant(self, view, card):
        import sys
        name = type(self).__name__
        print("<script>alert('" + name + "')</script>\\x1b[31m", file=sys.stderr, flush=True)
        self.note("note of " + name)
        return super().plant(view, card)
"""


def small_ladder(path, tmp, mb=None, extra="", fresh_decks=False):
    """A fresh ladder of four file bots (their check passed unplayed) run as
    processes: one table, 2 deals, 8 matches once played; ``extra``: more
    of each bot's class; ``fresh_decks``: as ``ladder init`` writes it (off:
    every match's contents hidden until the reveal)."""
    from bohnarena.ladder.catalog import Catalog
    from bohnarena.ladder.check import Verdict
    from bohnarena.ladder.settings import load_settings
    from bohnarena.ladder.submission import submit
    from tests.ladder.builders import file_bot

    assert run("ladder", "init", path).exit_code == 0
    text = (path / "ladder.toml").read_text().replace("deals = 10 ", "deals = 2 ")
    text = text.replace('isolation = "sandbox"', 'isolation = "process"')
    if not fresh_decks:
        text = text.replace("fresh_decks = true ", "fresh_decks = false")
    if mb is not None:
        text = text.replace("max_submission_mb = 50", f"max_submission_mb = {mb}")
    (path / "ladder.toml").write_text(text)
    settings, catalog = load_settings(path), Catalog(path)
    for i, name in enumerate(["ann", "bob", "cy", "dee"]):
        bot = file_bot(tmp, f"Bot{i}", extra)
        submit(path, settings, catalog, name, bot, None, None, lambda *_: Verdict())
    catalog.close()
    return path


@pytest.fixture(scope="session")
def played(tmp_path_factory):
    """A small ladder after one run (8 matches), built once: copy it."""
    tmp = tmp_path_factory.mktemp("played")
    ladder = small_ladder(tmp / "spring", tmp, extra=TALKING)
    r = run("ladder", "run", ladder, "--no-progress")
    assert r.exit_code == 0, r.output
    return ladder


@pytest.fixture
def ladder(played, tmp_path):
    """A copy of the played ladder, with tokens for ann and bob."""
    path = tmp_path / "spring"
    shutil.copytree(played, path)
    return path


def tokens_for(ladder, *names):
    from bohnarena.ladder.tokens import TokenBook

    book = TokenBook(ladder)
    return {name: book.add(name) for name in names}


@pytest.fixture
def site(ladder):
    """The played ladder's site, running; ``site.tokens``: ann's and bob's."""
    tokens = tokens_for(ladder, "ann", "bob")
    with serve(ladder) as server:
        server.tokens = tokens
        yield server
