"""Where a league may take a served bot's token from: a BOHNARENA_TOKEN_<KEY>
variable, or a file by name in the secrets directory the run is given;
never another variable or path (core/services.py). Nothing here connects:
a refused token stops the run before anything starts."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.errors import BotLoadError
from bohnarena.core.services import SecretError, Service, token, with_secrets
from tests.external.http.conftest import league_text, served

URL = "http://127.0.0.1:9/"


def run(tmp_path, table, *more):
    path = tmp_path / "l.toml"
    path.write_text(league_text({"k": served(URL, **table), "p": '"planner"', "q": '"random"'}))
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "--no-progress", *more])
    assert not out.exists()  # refused before anything was written
    return r


@pytest.mark.parametrize(
    "table, says",
    [
        ({"token_env": '"AWS_SECRET_ACCESS_KEY"'}, "token_env 'AWS_SECRET_ACCESS_KEY' is refused"),
        ({"token_env": '"BOHNARENA_TOKENS"'}, "a league names only BOHNARENA_TOKEN_<KEY>"),
        ({"token_file": '"../x"'}, "token_file '../x' is refused"),
        ({"token_file": '"/etc/passwd"'}, "a bare file name in the secrets directory"),
        ({"token_file": '"sub/x"'}, "no path"),
        ({"token_file": '".hidden"'}, "token_file '.hidden' is refused"),
        ({"token_file": '"k.token"'}, "give --secrets DIR"),  # an old league: beside it no more
    ],
)
def test_a_token_from_anywhere_else_is_refused_in_one_line(tmp_path, monkeypatch, table, says):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "AKIAEXAMPLE")
    (tmp_path / "x").write_text("stolen\n")
    r = run(tmp_path, table)
    assert r.exit_code == 2, r.output
    assert says in r.output and "bot 'k'" in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert "AKIAEXAMPLE" not in r.output and "stolen" not in r.output


def test_the_secrets_directory_must_exist(tmp_path):
    r = run(tmp_path, {"token_file": '"k.token"'}, "--secrets", str(tmp_path / "none"))
    assert r.exit_code == 2 and "does not exist" in r.output


def test_a_token_file_is_read_from_the_secrets_directory_alone(tmp_path):
    home = tmp_path / "secrets"
    home.mkdir()
    (home / "k.token").write_text("good-token\n")
    (home / "also").symlink_to(home / "k.token")  # a link that stays inside is fine
    (tmp_path / "outside.token").write_text("outside-token\n")
    (home / "away").symlink_to(tmp_path / "outside.token")
    (home / "up").symlink_to("../outside.token")

    def read(name):
        return token(with_secrets(Service(URL, True, token_file=name), home, "bot 'k'"))

    assert read("k.token") == read("also") == b"good-token"
    for name in ("away", "up"):
        with pytest.raises(BotLoadError, match="leads out of the secrets directory") as e:
            read(name)
        assert "outside-token" not in str(e.value)
    with pytest.raises(BotLoadError, match="cannot read the token file missing"):
        read("missing")


def test_the_seat_refuses_what_the_run_would(monkeypatch):
    # A service that reached a seat without with_secrets (another way in)
    # still sends no other variable and no path.
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "AKIAEXAMPLE")
    monkeypatch.setenv("BOHNARENA_TOKEN_K", "good-token")
    with pytest.raises(BotLoadError, match="not a BOHNARENA_TOKEN_<KEY> variable"):
        token(Service(URL, token_env="AWS_SECRET_ACCESS_KEY"))
    with pytest.raises(BotLoadError, match="needs a secrets directory"):
        token(Service(URL, token_file="/etc/passwd"))
    assert token(Service(URL, token_env="BOHNARENA_TOKEN_K")) == b"good-token"
    with pytest.raises(SecretError):
        with_secrets(Service(URL, token_env="HOME"), None, "bot 'k'")


def test_the_command_lines_own_token_is_still_taken(monkeypatch):
    from bohnarena.core.services import cli_service

    monkeypatch.setenv("BOHNARENA_TOKEN", "typed-token")  # play, check-bot, compare
    svc = with_secrets(cli_service(URL), None, "bot 'k'")
    assert svc.token_env == "BOHNARENA_TOKEN" and token(svc) == b"typed-token"
