"""A bot served over HTTP submitted by its URL: nothing downloaded, its
version its URL; checked against the service; played in `ladder run`
beside a file bot; a private address refused unless ladder.toml allows
it; a service that is down rejected with nothing else changed; its token
never in the ladder's files (only the variable's or the file's name), and
taken only from where the organiser keeps tokens."""

import socket
import tomllib
from pathlib import Path

import pytest

from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.served import url_entry, url_hash
from tests.external.http.conftest import serve  # noqa: F401 (the fixture)

from ..conftest import faults_by_bot, sandboxed
from .builders import file_bot
from .conftest import run

pytest.importorskip("httpcore")

TOKEN = "s3cret-Token_for.the~ladder"
ENV = "BOHNARENA_TOKEN_LADDER"


def allow_private(ladder: Path) -> None:
    path = ladder / "ladder.toml"
    path.write_text(path.read_text().replace("allow_private = false", "allow_private = true"))


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def holds_token(ladder: Path) -> list[Path]:
    return [p for p in ladder.rglob("*") if p.is_file() and TOKEN.encode() in p.read_bytes()]


@sandboxed
def test_a_served_bot_plays_beside_a_file_bot_and_ranks(ladder, tmp_path, serve, monkeypatch):  # noqa: F811
    allow_private(ladder)
    monkeypatch.setenv(ENV, TOKEN)
    url = serve("planner", "--token-env", ENV, env={ENV: TOKEN})
    r = run("ladder", "submit", ladder, "hosted", url, "--token-env", ENV)
    assert r.exit_code == 0, r.output
    again = run("ladder", "submit", ladder, "hosted", url + "  ", "--token-env", ENV)
    assert again.exit_code == 2 and "already has this version active" in again.output
    assert run("ladder", "submit", ladder, "mine", file_bot(tmp_path)).exit_code == 0
    played = run("ladder", "run", ladder)
    assert played.exit_code == 0, played.output
    catalog = Catalog(ladder)
    (hosted,) = catalog.versions("hosted")
    catalog.close()
    assert (hosted.kind, hosted.source) == ("url", url)
    assert hosted.entry == {"url": url, "token_env": ENV}
    assert not (ladder / "bots" / hosted.hash).exists()  # nothing was brought in
    league = tomllib.loads((ladder / "league.toml").read_text())
    assert league["bots"][hosted.bot] == {
        "spec": url,
        "allow_private": True,
        "token_env": ENV,
    }
    table = run("ladder", "rank", ladder).output
    assert hosted.bot in table and "mine." in table
    faults = faults_by_bot(ladder / "results")  # its token went with every request
    assert faults[hosted.bot] == 0 and len(faults) == 2
    assert holds_token(ladder) == []


def test_a_private_address_is_refused_unless_the_ladder_allows_it(ladder, serve):  # noqa: F811
    before = (ladder / "ladder.toml").read_text()
    r = run("ladder", "submit", ladder, "hosted", serve())
    assert r.exit_code == 1
    assert "Rejected" in r.output and "private" in r.output, r.output
    catalog = Catalog(ladder)
    assert catalog.active() == [] and [v.state for v in catalog.versions()] == ["rejected"]
    catalog.close()
    assert (ladder / "ladder.toml").read_text() == before
    assert list((ladder / "bots").iterdir()) == []


def test_a_service_that_is_down_is_rejected_and_its_token_is_not_kept(ladder, tmp_path):
    allow_private(ladder)
    path = ladder / "ladder.toml"
    path.write_text(path.read_text().replace("[run]", 'secrets = "../keys"\n[run]'))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "token").write_text(TOKEN + "\n")
    url = f"http://127.0.0.1:{closed_port()}/bot"
    r = run("ladder", "submit", ladder, "hosted", url, "--token-file", "token")
    assert r.exit_code == 1
    assert r.output.startswith("Rejected: hosted.") and "127.0.0.1" in r.output, r.output
    catalog = Catalog(ladder)
    (version,) = catalog.versions()
    assert catalog.active() == []
    catalog.close()
    assert version.state == "rejected"
    assert version.entry == {"url": url, "token_file": "token"}
    assert list((ladder / "bots").iterdir()) == [] and holds_token(ladder) == []


def test_a_url_served_as_one_entry_is_refused_under_another(ladder):
    url = f"http://127.0.0.1:{closed_port()}/bot"
    catalog = Catalog(ladder)
    entry = url_entry(url, None, None, None)
    catalog.activate(catalog.add("hosted", url_hash(entry), "url", entry, url, "t"))
    (hosted,) = catalog.active()
    catalog.close()
    r = run("ladder", "submit", ladder, "again", url + " ")  # refused before any check
    assert r.exit_code == 2, r.output
    said = f"{url} is served as {hosted.bot} already: submit it as hosted, or retire that first"
    assert r.output == f"Error: {said}\n"
    catalog = Catalog(ladder)
    assert catalog.versions("again") == [] and catalog.active() == [hosted]
    catalog.close()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["http://user:pw@127.0.0.1:1/"], "must not hold credentials"),
        (["ftp://example.org/"], "does not exist"),
        (["http://127.0.0.1:1/", "--command", "bash bot.sh"], "takes no --bot or --command"),
        (["bot.py:Bot", "--token-env", "T"], "go with a URL"),
        (["http://127.0.0.1:1/", "--token-env", "T", "--token-file", "f"], "not both"),
        (["http://127.0.0.1:1/", "--token-env", "1-bad"], "must name an environment variable"),
        (["http://127.0.0.1:1/", "--token-env", "HOME"], "names only BOHNARENA_TOKEN_<KEY>"),
        (["http://127.0.0.1:1/", "--token-file", "../x"], "a bare file name"),
        (["http://127.0.0.1:1/", "--token-file", "/etc/passwd"], "a bare file name"),
        (["http://127.0.0.1:1/", "--token-file", "x"], "give --secrets DIR"),
    ],
)
def test_a_url_submission_that_cannot_be_used_is_a_usage_error(ladder, args, said):
    r = run("ladder", "submit", ladder, "hosted", *args)
    assert r.exit_code == 2 and said in r.output, r.output
    assert "pw" not in r.output
    catalog = Catalog(ladder)
    assert catalog.versions() == []
    catalog.close()
