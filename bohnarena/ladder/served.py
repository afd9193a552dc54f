"""A submission that is a URL: a bot served over HTTP. Nothing of it is
downloaded or run here. Its version is its URL and where its token is kept
(a ``BOHNARENA_TOKEN_<KEY>`` variable's name or a file's name in the
ladder's secrets directory, never the token, which is read when a match is
played): a service's code cannot be hashed, so a service
changed behind the same URL is not a new version."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.services import service, with_secrets
from .unpack import SubmissionError

KIND = "url"


def url_entry(
    source: str, token_env: str | None, token_file: str | None, secrets: Path | None
) -> dict[str, Any]:
    """The catalog's entry of a bot served at ``source``: its URL (checked as
    a league file's: http or https, no credentials) and its token's place
    (where the organiser keeps tokens: ``secrets`` for a file). Raises
    SubmissionError."""
    table: dict[str, Any] = {"spec": source}
    if token_env is not None:
        table["token_env"] = token_env
    if token_file is not None:
        table["token_file"] = token_file  # its name: read from the secrets at every run
    try:
        svc = with_secrets(service("url", table, "submit"), secrets, "submit: bot 'url'")
    except UsageError as e:
        raise SubmissionError(str(e).replace("submit: bot 'url': ", "")) from None
    entry: dict[str, Any] = {"url": svc.url}
    if svc.token_env is not None:
        entry["token_env"] = svc.token_env
    if svc.token_file is not None:
        entry["token_file"] = svc.token_file
    return entry


def url_hash(entry: dict[str, Any]) -> str:
    """The version of a served bot: its entry's hash (as long as a tree's)."""
    return hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:32]


def url_table(entry: dict[str, Any], allow_private: bool) -> dict[str, Any]:
    """The served bot as a league's bot table (services.py)."""
    table = {"spec": entry["url"], "allow_private": allow_private}
    return table | {k: entry[k] for k in ("token_env", "token_file") if k in entry}
