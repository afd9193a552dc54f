"""The site's forms: log in with a token (the browser keeps a session id
in an HttpOnly, SameSite=Strict cookie), log out (the login ends on the
server too), submit a file, retire one's entry. Every
form carries the MAC of the browser's own CSRF cookie and is refused
without it (a submission's before any byte of its file is written)."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..ladder.settings import LadderError, load_settings
from ..ladder.tokens import TokenError
from . import auth
from .app import set_cookie, site_of
from .intake import Refused, entry_for, intake
from .sessions import SESSION_SECONDS

#: The most a form without a file may hold.
FORM_BYTES = 8192
CSRF_REFUSED = "the form is stale or did not come from this site: reload it and send it again"


async def _fields(request: Request) -> dict[str, str] | None:
    """A small url-encoded form's fields (None: it is larger than any of ours)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            return None
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}


def login_form(request: Request) -> Response:
    return site_of(request).page(request, "login.html", "Log in", message=None)


async def login(request: Request) -> Response:
    fields = await _fields(request)
    return await run_in_threadpool(_login, request, fields)  # (files and SQLite: off the loop)


def _login(request: Request, fields: dict[str, str] | None) -> Response:
    site = site_of(request)
    if fields is None or not site.csrf_ok(request, fields.get("csrf")):
        return site.message(request, "Refused", CSRF_REFUSED, 403)
    token = fields.get("token", "").strip()
    try:
        holder = auth.holder_of(site.ladder, token)
    except TokenError:
        holder = None
    if holder is None:
        message = "That is not a token of this ladder (or it was revoked)."
        return site.page(request, "login.html", "Log in", 401, message=message)
    response = RedirectResponse("/", 303)
    session = site.sessions.open(holder, token, replacing=request.cookies.get(auth.SESSION))
    set_cookie(request, response, auth.SESSION, session, SESSION_SECONDS)
    return response


async def logout(request: Request) -> Response:
    fields = await _fields(request)
    return await run_in_threadpool(_logout, request, fields)


def _logout(request: Request, fields: dict[str, str] | None) -> Response:
    site = site_of(request)
    if fields is None or not site.csrf_ok(request, fields.get("csrf")):
        return site.message(request, "Refused", CSRF_REFUSED, 403)
    site.sessions.close(request.cookies.get(auth.SESSION))
    response = RedirectResponse("/", 303)
    response.delete_cookie(auth.SESSION, path="/")
    return response


def submit_form(request: Request) -> Response:
    site = site_of(request)
    visitor = site.visitor(request)
    if visitor is None:
        return RedirectResponse("/login", 303)
    return _form(request, visitor.name, None, 200)


def _form(request: Request, entry: str, message: str | None, status: int) -> Response:
    site = site_of(request)
    try:
        mb = f"{load_settings(site.ladder).max_bytes / 2**20:g}"
    except LadderError:
        mb = "?"
    return site.page(
        request, "submit.html", "Submit a version", status, entry=entry, message=message, max_mb=mb
    )


async def submit(request: Request) -> Response:
    site = site_of(request)
    visitor = await run_in_threadpool(site.visitor, request)

    def csrf(fields: dict[str, str]) -> None:
        if not site.csrf_ok(request, fields.get("csrf")):
            raise Refused(403, CSRF_REFUSED)

    try:
        version = await intake(site, request, visitor, "", csrf, entry_field=True)
    except Refused as e:
        if e.status == 401:
            return RedirectResponse("/login", 303)
        entry = visitor.name if visitor else ""
        return await run_in_threadpool(_form, request, entry, e.text, e.status)
    return RedirectResponse(f"/entries/{version.name}#v{version.id}", 303)


async def retire(request: Request) -> Response:
    fields = await _fields(request)
    return await run_in_threadpool(_retire, request, fields)


def _retire(request: Request, fields: dict[str, str] | None) -> Response:
    site, name = site_of(request), request.path_params["name"]
    if fields is None or not site.csrf_ok(request, fields.get("csrf")):
        return site.message(request, "Refused", CSRF_REFUSED, 403)
    visitor = site.visitor(request)
    try:
        entry_for(visitor, name)
        assert visitor is not None
        catalog = site.catalog()
        try:
            catalog.retire(name, f"retired by its holder {visitor.name}")
        except LadderError as e:
            raise Refused(409, str(e)) from None
        finally:
            catalog.close()
    except Refused as e:
        return site.message(request, "Refused", e.text, e.status)
    return RedirectResponse(f"/entries/{name}", 303)


def routes() -> list[Route]:
    return [
        Route("/login", login_form),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/submit", submit_form),
        Route("/submit", submit, methods=["POST"]),
        Route("/entries/{name}/retire", retire, methods=["POST"]),
    ]
