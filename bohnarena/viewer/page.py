"""The viewer page: one self-contained HTML file (inline style, script and
data) that nothing can make fetch anything.

Its Content-Security-Policy allows no request at all (``default-src
'none'``) and only the page's own style and script, by their SHA-256; the
match's data is a JSON block the script reads, escaped so that no text in
it (a bot's note) can close its tag, and the script shows every text of the
log as text, never as markup.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib import resources
from typing import Any

from ..core.pages import Markup, render

#: Characters a JSON text may hold that could end or open markup inside a
#: script element, or end a JavaScript line: written as escapes.
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@cache
def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: no
    ``</script>``, no ``<!--``, ASCII only."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    for char, escape in _UNSAFE.items():
        text = text.replace(char, escape)
    return text


@cache
def policy() -> str:
    """The page's Content-Security-Policy (a site serving it sends it as a header too)."""
    css, js = _static("viewer.css"), _static("viewer.js")
    return (
        f"default-src 'none'; style-src {_sha256(css)}; script-src {_sha256(js)}; "
        "base-uri 'none'; form-action 'none'"
    )


def page(title: str, film: dict[str, Any]) -> str:
    """The viewer page of a film (:meth:`.film.Film.as_json`)."""
    css, js = _static("viewer.css"), _static("viewer.js")
    # Markup as it is: the policy and the static files are ours, and the film
    # is JSON made safe inside a script element (which takes no HTML escape).
    return render(
        __package__,
        "viewer.html",
        title=title,
        policy=Markup(policy()),
        css=Markup(css),
        js=Markup(js),
        film=Markup(script_json(film)),
    )
