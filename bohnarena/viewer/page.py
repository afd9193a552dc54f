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

from ..core.untrusted import html_text

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


BODY = """<header><h1 id="title"></h1><p id="where"></p>
<details><summary>Result</summary><table><thead><tr><th>place</th><th>seat</th>
<th>bot</th><th>coins</th><th>faults</th></tr></thead><tbody id="result-rows"></tbody>
</table></details></header>
<div id="top"><div id="controls" role="toolbar" aria-label="Replay controls">
<button id="first" title="Home">|◀ First</button>
<button id="prev-turn" title="Up arrow or Page Up">◀◀ Turn</button>
<button id="prev" title="Left arrow">◀ Move</button>
<button id="play" aria-pressed="false" title="Space">Play</button>
<button id="next" title="Right arrow">Move ▶</button>
<button id="next-turn" title="Down arrow or Page Down">Turn ▶▶</button>
<button id="last" title="End">Last ▶|</button>
<label>Speed <select id="speed"><option value="1">1 move/s</option>
<option value="2">2 moves/s</option><option value="4" selected>4 moves/s</option>
<option value="10">10 moves/s</option><option value="30">30 moves/s</option></select></label>
<label for="scrub">Move</label><input id="scrub" type="range" min="0" max="0" value="0">
<label id="hands-switch"><input id="hands" type="checkbox"> Show every hand</label>
<label><input id="all-moves" type="checkbox"> Show decisions too</label>
</div>
<div id="now" aria-live="polite"><span id="head"></span>Move <b id="move-no"></b>
<span id="move-tag"></span><span id="move-text"></span></div></div>
<div id="view"><div id="board"><section id="table" aria-label="The table"><h2>The table</h2>
<div id="table-zones"></div></section><div id="seats"></div></div>
<aside id="list"><h2>Moves</h2><ol id="moves" aria-label="Moves: click one to go there"></ol>
</aside></div>"""


def page(title: str, film: dict[str, Any]) -> str:
    """The viewer page of a film (:meth:`.film.Film.as_json`)."""
    css, js = _static("viewer.css"), _static("viewer.js")
    policy = (
        f"default-src 'none'; style-src {_sha256(css)}; script-src {_sha256(js)}; "
        "base-uri 'none'; form-action 'none'"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f"<title>{html_text(title)}</title><style>{css}</style></head><body>{BODY}"
        f'<script type="application/json" id="film">{script_json(film)}</script>'
        f"<script>{js}</script></body></html>\n"
    )
