"""The ladder's site: a Starlette application over one ladder directory
(``make_app``), served by uvicorn (``bohnarena ladder serve``). It reads the
catalog and the results, stages uploads as submissions left pending (the
player process checks and plays them: nothing of a bot runs here), and
answers every request with a strict Content-Security-Policy."""

from __future__ import annotations

import logging
import time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..analysis.notable import SORTS
from ..core.errors import BohnarenaError
from ..core.pages import render
from ..ladder import live
from ..ladder.catalog import Catalog
from ..ladder.seasons import fairness
from ..ladder.settings import LadderError, load_settings
from ..ladder.standings import history_chart
from ..ladder.tokens import Holder, TokenError
from . import auth, shown
from .intake import Refused
from .limits import RateLimit, Submissions
from .own import own_seats, own_stderr
from .sessions import Sessions

#: Every page of the site: nothing but its own style sheet, no script, no
#: frame, forms only to itself. (The viewer pages send their own policy.)
POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'"
#: What every response says besides (frame-ancestors works only as a header).
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


log = logging.getLogger(__name__)


def header_policy(policy: str) -> str:
    return policy + "; frame-ancestors 'none'"


class Guard:
    """ASGI middleware: every response gets the security headers and, unless
    its handler set one (a viewer page), the site's policy; none is cached
    by a shared cache."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", header_policy(POLICY).encode()))
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


@cache
def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text("utf-8")


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


#: Where a request keeps its visitor once looked up (a key of its ASGI scope).
VISITOR = "bohnarena.visitor"


class Site:
    """The state a request handler needs: the ladder, its key, its caches."""

    def __init__(self, ladder: Path, rate: RateLimit) -> None:
        self.ladder = ladder
        self.key = auth.site_key(ladder)
        self.submissions = Submissions(ladder, rate)
        self.sessions = Sessions(ladder)
        self.matches = shown.MatchCache()

    def catalog(self) -> Catalog:
        return Catalog(self.ladder)

    def name(self) -> str:
        try:
            return str(load_settings(self.ladder).data.get("name", self.ladder.name))
        except LadderError:
            return self.ladder.name

    # -- who asks -----------------------------------------------------------

    def holder(self, request: Request) -> Holder | None:
        """The API's caller (its bearer token only: a cookie never acts on the API)."""
        try:
            return auth.holder_of(self.ladder, auth.bearer(request.headers.get("authorization")))
        except TokenError:
            return None

    def visitor(self, request: Request) -> Holder | None:
        """The logged-in participant of a page (its session cookie), looked
        up once a request (a page's handler and its frame both ask)."""
        if VISITOR not in request.scope:
            request.scope[VISITOR] = self.sessions.holder(request.cookies.get(auth.SESSION))
        found: Holder | None = request.scope[VISITOR]
        return found

    def csrf_ok(self, request: Request, sent: str | None) -> bool:
        return auth.csrf_ok(self.key, request.cookies.get(auth.CSRF), sent)

    # -- pages --------------------------------------------------------------

    def page(
        self, request: Request, template: str, title: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        """A page of the site, with the browser's CSRF cookie made if it has none."""
        cookie = request.cookies.get(auth.CSRF) or auth.new_csrf_cookie()
        visitor = self.visitor(request)
        body = render(
            __package__,
            template,
            policy=POLICY,
            title=title,
            ladder_name=self.name(),
            holder=visitor.name if visitor else None,
            csrf=auth.csrf_field(self.key, cookie),
            **context,
        )
        response = HTMLResponse(body, status)
        if cookie != request.cookies.get(auth.CSRF):
            set_cookie(request, response, auth.CSRF, cookie)
        return response

    def message(self, request: Request, title: str, text: str, status: int) -> HTMLResponse:
        return self.page(request, "message.html", title, status, message=text)


def set_cookie(request: Request, response: Response, name: str, value: str, age: int = 0) -> None:
    response.set_cookie(
        name,
        value,
        max_age=age or None,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def error(status: int, text: str, **more: Any) -> JSONResponse:
    return JSONResponse({"error": text, **more}, status)


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


# -- public pages ---------------------------------------------------------------


def standings_page(request: Request) -> Response:
    site = site_of(request)
    catalog = site.catalog()
    try:
        active, apart = shown.standings(catalog)
    finally:
        catalog.close()
    return site.page(
        request,
        "standings.html",
        "Standings",
        active=active,
        apart=apart,
        live=live.read(site.ladder),
    )


def entry_page(request: Request) -> Response:
    site, name = site_of(request), request.path_params["name"]
    catalog = site.catalog()
    try:
        versions = catalog.versions(name)
        snapshots = catalog.history(name)
    finally:
        catalog.close()
    if not versions:
        return site.message(request, "No such entry", f"The ladder has no entry {name!r}.", 404)
    bots = [v.bot for v in versions]
    chart = history_chart(snapshots)[0] if snapshots else None
    params = dict(request.query_params)
    problem, version, total = None, None, 0
    found: list[dict[str, Any]] = []
    results = site.matches.get(site.ladder)
    if results is not None:
        try:
            version, found, total = shown.entry_matches(results, bots, params)
        except shown.BadQuery as e:
            problem = str(e)
    for m in found:  # the seats by place, as `matches` lists them
        m["order"] = sorted(range(len(m["seats"])), key=lambda s: (m["places"][s], s))
    visitor = site.visitor(request)
    mine = visitor is not None and visitor.may_touch(name)
    status = 400 if problem else 200
    return site.page(
        request,
        "entry.html",
        f"Entry {name}",
        status,
        entry=name,
        versions=versions,
        when=_when,
        chart=chart,
        bots=[b for b in bots if results is not None and b in results.matches.bots],
        shown=version,
        params=params,
        sorts=SORTS,
        sort=params.get("sort") if params.get("sort") in SORTS else "id",
        matches=found,
        total=total,
        problem=problem,
        veil=shown.veil(site.ladder),
        may_retire=mine and any(v.state == "active" for v in versions),
        mine=mine,
    )


def match_page(request: Request) -> Response:
    """A finished match in the viewer, its own policy sent as the header."""
    from ..run.replay import Run
    from ..store.parts import ResultsError
    from ..viewer.match import viewer_page
    from ..viewer.page import policy

    site, match_id = site_of(request), request.path_params["match_id"]
    veil = shown.veil(site.ladder)
    if veil.hides(match_id):
        return site.message(request, f"Match {match_id}", f"A match is {veil.reason}.", 403)

    def make(run: Run) -> str:
        row, log = run.match(match_id)
        info = run.info(row, len(log))
        return viewer_page(run.game, run.rules, log, info, run.replies(match_id))

    try:
        html = site.matches.page(site.ladder, match_id, make)
    except ResultsError as e:
        return site.message(request, f"Match {match_id}", str(e), 404)
    return HTMLResponse(html, headers={"content-security-policy": header_policy(policy())})


def stderr_page(request: Request) -> Response:
    """What the logged-in participant's own bots wrote to stderr in a match."""
    site, match_id = site_of(request), request.path_params["match_id"]
    visitor = site.visitor(request)
    if visitor is None:
        return RedirectResponse("/login", 303)
    try:
        seats, mine = own_seats(site, visitor, match_id, "stderr is")
    except Refused as e:
        return site.message(request, f"Match {match_id}", e.text, e.status)
    found = own_stderr(site, match_id, seats, mine)
    title = f"Match {match_id}: your bots' stderr"
    return site.page(request, "stderr.html", title, match_id=match_id, found=found)


def settings_page(request: Request) -> Response:
    site = site_of(request)
    settings = load_settings(site.ladder)
    rows = [(k, shown.pretty(v)) for k, v in shown.settings_shown(settings.data).items()]
    rows += [
        ("isolation", settings.isolation),
        ("max_submission_mb", f"{settings.max_bytes / 2**20:g}"),
        ("suspend_fault_share", str(settings.suspend_fault_share)),
    ]
    return site.page(
        request,
        "settings.html",
        "Settings and rules",
        settings=rows,
        fairness=[line.partition(": ")[::2] for line in fairness(site.ladder)],
    )


def downloads_page(request: Request) -> Response:
    site = site_of(request)
    files = shown.downloads(site.ladder)
    return site.page(
        request,
        "downloads.html",
        "Downloads",
        run=shown.public_run(site.ladder) is not None,
        files=sorted(files.items()),
        hidden=shown.veil(site.ladder).reason,
    )


def run_json(request: Request) -> Response:
    run = shown.public_run(site_of(request).ladder)
    if run is None:
        return error(404, "no run yet")
    return JSONResponse(run, headers={"content-disposition": 'attachment; filename="run.json"'})


def download(request: Request) -> Response:
    from starlette.responses import FileResponse

    site = site_of(request)
    table, name = request.path_params["table"], request.path_params["name"]
    path = shown.download_path(site.ladder, table, name)
    if path is None:
        return site.message(request, "Not found", "No such file to download.", 404)
    hidden = shown.veil(site.ladder).reason
    if hidden is not None and table != "files":
        return site.message(request, "Not yet", f"The Parquet parts are {hidden}.", 403)
    return FileResponse(path, filename=name, media_type="application/octet-stream")


def live_page(request: Request) -> Response:
    site = site_of(request)
    return site.page(
        request, "live.html", "The run in progress", live=live.read(site.ladder), when=_when
    )


def static(request: Request) -> Response:
    """The site's style sheet and icon (the icon at /favicon.ico too, where
    a browser looks for it on a page that names none: the viewer's)."""
    name = request.path_params.get("name", "icon.svg")
    kind = {"site.css": "text/css", "icon.svg": "image/svg+xml"}.get(name)
    if kind is None:
        return PlainTextResponse("Not Found", 404)
    return Response(_static(name), media_type=kind, headers={"cache-control": "max-age=3600"})


class SiteApp(Starlette):
    """Starlette with :class:`Guard` outside everything, its error pages too."""

    def build_middleware_stack(self) -> ASGIApp:
        return Guard(super().build_middleware_stack())


async def trouble(request: Request, exc: Exception) -> Response:
    """A ladder whose files cannot be read now (being replaced, or broken by
    hand), or a fault of the site: one line in the log, none of it shown."""
    if isinstance(exc, BohnarenaError):
        log.error("%s %s: %s", request.method, request.url.path, exc)
        return PlainTextResponse(
            "The ladder cannot be read just now; the server's log says why.", 503
        )
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return PlainTextResponse("Internal Server Error", 500)


def make_app(ladder: Path, *, rate: RateLimit | None = None) -> Starlette:
    """The site of ``ladder`` (``rate``: each holder's submissions a window,
    10 an hour unless given)."""
    from . import api, forms

    ladder = Path(ladder)
    Catalog(ladder).close()  # (not a ladder: refused here, in one line)
    routes = [
        Route("/", standings_page),
        Route("/entries/{name}", entry_page),
        Route("/matches/{match_id:int}", match_page),
        Route("/matches/{match_id:int}/stderr", stderr_page),
        Route("/settings", settings_page),
        Route("/downloads", downloads_page),
        Route("/downloads/run.json", run_json),
        Route("/downloads/{table}/{name}", download),
        Route("/live", live_page),
        Route("/static/{name}", static),
        Route("/favicon.ico", static),
        *forms.routes(),
        *api.routes(),
    ]
    app = SiteApp(routes=routes, exception_handlers={BohnarenaError: trouble, 500: trouble})
    app.state.site = Site(ladder, rate or RateLimit())
    return app
