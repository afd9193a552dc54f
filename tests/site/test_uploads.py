"""Uploads as they stream: one over the ladder's limit is stopped there (the
server reads no further, its temporary file never passes the limit and is
removed), one declared over it is refused unread, a slow one is taken
while the site goes on answering."""

import json
import select
import socket
import subprocess
import sys
import threading
import time

import pytest

from bohnarena.ladder.catalog import Catalog
from tests.ladder.builders import BOT

from .conftest import BOUNDARY, SITE_MARKS, multipart, serve, small_ladder, tokens_for

pytestmark = SITE_MARKS

MB = 1 << 20
CHUNK = 64 * 1024
#: What a stopped upload may still have sent: the limit, the form, and the
#: socket buffers between the two ends on loopback (a few MB at most).
SLACK = 16 * MB


@pytest.fixture
def small(tmp_path):
    """An unplayed ladder whose submissions may be 1 MB, with ann's token."""
    ladder = small_ladder(tmp_path / "autumn", tmp_path, mb=1)
    return ladder, tokens_for(ladder, "ann")["ann"]


def request_head(token, extra):
    return (
        f"POST /api/entries/ann/versions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n{extra}\r\n"
    ).encode()


def file_head(name="big.whl"):
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="source"; filename="{name}"\r\n\r\n'
    ).encode()


def largest_upload(ladder):
    sizes = [p.stat().st_size for p in (ladder / "incoming").glob("*.upload/*") if p.is_file()]
    return max(sizes, default=0)


def status_of(sock):
    try:
        reply = sock.recv(4096)
    except ConnectionResetError:  # (closed with our bytes unread: the reply may be lost)
        return None
    return int(reply.split(b" ")[1]) if reply else None


def test_an_upload_over_the_limit_is_stopped_at_the_limit(small):
    ladder, ann = small
    with serve(ladder) as site:
        sock = socket.create_connection(("127.0.0.1", site.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, CHUNK)
        sock.settimeout(5)
        sock.sendall(request_head(ann, "Transfer-Encoding: chunked\r\n"))
        sent, largest, stopped = 0, 0, None
        data = file_head() + b"\0" * (CHUNK - len(file_head()))
        while sent < 50 * MB:
            if select.select([sock], [], [], 0)[0]:
                stopped = "answered"
                break
            try:
                sock.sendall(b"%x\r\n" % len(data) + data + b"\r\n")
            except TimeoutError:  # the server reads no more
                stopped = "stalled"
                break
            except (BrokenPipeError, ConnectionResetError):
                stopped = "closed"
                break
            sent += len(data)
            data = b"\0" * CHUNK
            largest = max(largest, largest_upload(ladder))
        assert stopped is not None, "the server read the whole 50 MB"
        status = status_of(sock)
        print(f"\nsent {sent:,} bytes, largest upload file {largest:,}: {stopped}, {status}")
        sock.close()
        assert status in (413, None)
        assert sent < MB + SLACK
        assert largest <= MB
        deadline = time.monotonic() + 10
        while list((ladder / "incoming").glob("*.upload")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not list((ladder / "incoming").glob("*.upload"))
        # the reply itself, with a body just over the limit sent whole
        r = site.api("POST", "/api/entries/ann/versions", ann, file=("big.whl", b"\0" * (MB + 1)))
        assert r.status == 413 and b"over the ladder's 1 MB" in r.content
    catalog = Catalog(ladder)
    assert [v.state for v in catalog.versions("ann")] == ["active"]
    catalog.close()


def test_an_upload_declared_over_the_limit_is_refused_unread(small):
    ladder, ann = small
    with serve(ladder) as site:
        sock = socket.create_connection(("127.0.0.1", site.port))
        sock.settimeout(10)
        sock.sendall(request_head(ann, f"Content-Length: {60 * MB}\r\n"))
        assert status_of(sock) == 413  # before a byte of the body was sent
        sock.close()
        assert not list((ladder / "incoming").glob("*.upload"))


def test_a_slow_upload_is_taken_while_the_site_answers(small):
    """The upload's last bytes wait until a page was served meanwhile: a
    server that read uploads before answering anything else never serves it."""
    ladder, ann = small
    content_type, body = multipart([("bot", "Slow")], ("slow.py", BOT.format(name="Slow").encode()))
    pieces = [body[i : i + 40] for i in range(0, len(body), 40)]
    answered = threading.Event()

    def slowly():
        for i, piece in enumerate(pieces):
            if i == len(pieces) - 1:
                answered.wait(60)
            time.sleep(0.05)
            yield piece

    with serve(ladder) as site:
        reply = {}

        def upload():
            headers = {"Authorization": f"Bearer {ann}", "Content-Type": content_type}
            reply["r"] = site.request("POST", "/api/entries/ann/versions", headers, slowly())

        thread = threading.Thread(target=upload)
        thread.start()
        deadline = time.monotonic() + 30
        while not list((ladder / "incoming").glob("*.upload")):  # (its reading begun)
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.05)
        assert site.get("/").status == 200
        assert "r" not in reply  # (served while the upload was still coming)
        answered.set()
        thread.join(60)
    assert reply["r"].status == 202, reply["r"].content
    assert json.loads(reply["r"].content)["state"] == "pending"


#: A site served by uvicorn in a process of its own (killed by the test).
SERVER = """import sys, uvicorn
from bohnarena.site.app import make_app
uvicorn.run(make_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def test_a_server_killed_during_an_upload_leaves_nothing_the_next_submission_keeps(small):
    """A real server killed -9 halfway through an upload: no version is
    recorded, and what it left in incoming/ holds no lock any more, so the
    next submission's recovery removes it (as it removes a killed
    submitter's tree)."""
    ladder, ann = small
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(ladder), str(port)])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                up = socket.create_connection(("127.0.0.1", port))
                break
            except ConnectionRefusedError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        up.sendall(request_head(ann, f"Content-Length: {MB - 4096}\r\n"))
        up.sendall(file_head("half.whl") + b"PK\3\4" + b"\0" * (MB // 2))
        while largest_upload(ladder) < MB // 4:  # (the server is writing it)
            assert time.monotonic() < deadline, "the upload never reached incoming/"
            time.sleep(0.05)
        server.kill()
        server.wait(10)
        up.close()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
    (left,) = (ladder / "incoming").glob("*.upload")
    catalog = Catalog(ladder)
    assert [v.state for v in catalog.versions("ann")] == ["active"]  # nothing recorded
    catalog.close()
    with serve(ladder) as site:
        r = site.api(
            "POST",
            "/api/entries/ann/versions",
            ann,
            [("bot", "Next")],
            ("next.py", BOT.format(name="Next").encode()),
        )
        assert r.status == 202
    assert not left.exists()
    assert not list((ladder / "incoming").glob("*.upload"))
