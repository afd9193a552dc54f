"""https: the connection goes to the checked address, and the certificate
is checked against the name in the URL (the TLS server name stays the
name). A self-signed certificate for localhost, made here with openssl."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from bohnarena.core.errors import BotLoadError
from bohnarena.run.dispatch import run_league
from tests.external.http.conftest import league_text, served

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl"),
]


@pytest.fixture
def certificate(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "ec"),
            *("-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"),
            *("-addext", "subjectAltName=DNS:localhost"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_a_service_over_https_is_checked_by_its_name(tmp_path, serve, certificate, monkeypatch):
    cert, key = certificate
    rec = tmp_path / "rec.jsonl"
    port = serve("planner", "--tls", str(cert), str(key), "--record", str(rec)).rsplit(":", 1)[1]
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust the certificate made above
    path = tmp_path / "l.toml"
    url = f"https://localhost:{port}"
    path.write_text(league_text({"tls": served(url), "p": '"planner"', "r": '"random"'}))
    assert run_league(path, tmp_path / "out", workers=1, progress=False).complete
    seen = [json.loads(line) for line in rec.read_text().splitlines()]
    assert seen and {s["host"] for s in seen} == {f"localhost:{port.strip('/')}"}
    # The same service by its address: the certificate names no address.
    path.write_text(
        league_text({"tls": served(f"https://127.0.0.1:{port}"), "p": '"planner"'}, deals=1)
    )
    refused = r"no TLS connection to 127\.0\.0\.1: .*CERTIFICATE_VERIFY"
    with pytest.raises(BotLoadError, match=refused):
        run_league(path, tmp_path / "out2", workers=1, progress=False)
