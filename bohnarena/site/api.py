"""The participants' JSON API (``/api/...``, described at
``/api/openapi.json``): submit a version, poll its state, retire one's own
entry, read one's own bot's stderr and notes. Every call that acts for a
participant takes ``Authorization: Bearer TOKEN`` (never a cookie, so no
page of another site can make a browser call it), and touches only the
entries its holder may touch."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..core.untrusted import lines
from ..ladder import live
from ..ladder.catalog import Version
from ..ladder.settings import LadderError
from ..store import botlogs
from ..store.parts import ResultsError
from . import shown
from .app import error, site_of
from .intake import Refused, entry_for, intake
from .openapi import CALLS, openapi
from .own import STDERR_BYTES, own_seats, own_stderr


def refused(e: Refused) -> JSONResponse:
    headers = {"retry-after": str(e.retry_after)} if e.retry_after else None
    response = error(e.status, e.text)
    if headers:
        response.headers.update(headers)
    if e.status == 401:
        response.headers["www-authenticate"] = 'Bearer realm="bohnarena"'
    return response


def _own(request: Request) -> Version:
    """The version of the path's ``id``, if the caller may touch its entry."""
    site = site_of(request)
    holder = site.holder(request)
    if holder is None:
        raise Refused(401, "a valid token is needed: Authorization: Bearer TOKEN")
    catalog = site.catalog()
    try:
        wanted = request.path_params["id"]
        version = next((v for v in catalog.versions() if v.id == wanted), None)
    finally:
        catalog.close()
    if version is None:
        raise Refused(404, "no such version")
    entry_for(holder, version.name)
    return version


def _poll(request: Request, version: Version) -> dict[str, Any]:
    return {**shown.version_json(version), "poll": f"/api/versions/{version.id}"}


async def submit_version(request: Request) -> Response:
    site = site_of(request)
    try:
        holder = await run_in_threadpool(site.holder, request)
        version = await intake(site, request, holder, request.path_params["name"])
    except Refused as e:
        return refused(e)
    return JSONResponse(_poll(request, version), 202)


def version_state(request: Request) -> Response:
    try:
        return JSONResponse(_poll(request, _own(request)))
    except Refused as e:
        return refused(e)


def retire(request: Request) -> Response:
    site, name = site_of(request), request.path_params["name"]
    try:
        holder = site.holder(request)
        entry_for(holder, name)
        assert holder is not None
        catalog = site.catalog()
        try:
            version = catalog.get(catalog.retire(name, f"retired by its holder {holder.name}").id)
        except LadderError as e:
            raise Refused(409, str(e)) from None
        finally:
            catalog.close()
    except Refused as e:
        return refused(e)
    return JSONResponse(shown.version_json(version))


def stderr(request: Request) -> Response:
    """The end of the version's newest stderr log (a bot's processes write
    one a worker: store/botlogs.py), escaped."""
    site = site_of(request)
    try:
        version = _own(request)
        hidden = shown.veil(site.ladder).reason  # (its logs span every match it played)
        if hidden is not None:
            raise Refused(403, f"a bot's stderr is {hidden}")
    except Refused as e:
        return refused(e)
    found = botlogs.newest(shown.results_of(site.ladder), version.bot, STDERR_BYTES)
    found = found or botlogs.Stderr("", 0, 0)
    return JSONResponse(
        {
            "version": version.bot,
            "bytes": found.size,
            "shown_from": found.shown_from,
            "lines": lines(found.text).splitlines(),
        }
    )


def notes(request: Request) -> Response:
    """The notes the caller's own bots wrote in a match (never another's)."""
    site = site_of(request)
    try:
        match_id = request.path_params["match_id"]
        seats, mine = own_seats(site, site.holder(request), match_id, "notes are")
        try:
            moves = site.matches.run(site.ladder).moves(match_id, match_id).to_pylist()
        except ResultsError:
            raise Refused(404, f"no finished match {match_id}") from None
    except Refused as e:
        return refused(e)
    found = [
        {"seat": m["seat"], "bot": seats[m["seat"]], "seq": m["seq"]}
        | {"note": lines(m.get("note") or m.get("text") or "")}
        for m in moves
        if m["kind"] == "note" and m["seat"] in mine
    ]
    return JSONResponse({"match_id": match_id, "seats": mine, "notes": found})


def match_stderr(request: Request) -> Response:
    """What the caller's own bots wrote to stderr in a match (never
    another's): each one's end, escaped."""
    site, match_id = site_of(request), request.path_params["match_id"]
    try:
        seats, mine = own_seats(site, site.holder(request), match_id, "stderr is")
    except Refused as e:
        return refused(e)
    found = [s.as_json() for s in own_stderr(site, match_id, seats, mine)]
    return JSONResponse({"match_id": match_id, "seats": mine, "stderr": found})


def standings(request: Request) -> Response:
    catalog = site_of(request).catalog()
    try:
        active, apart = shown.standings(catalog)
    finally:
        catalog.close()
    return JSONResponse(
        {"standings": [r.as_json() for r in active], "apart": [r.as_json() for r in apart]}
    )


def entry_matches(request: Request) -> Response:
    """An entry's matches, found as ``bohnarena matches`` finds them (its
    query's words: version, against, seat, deal, faults, sort, limit)."""
    site, name = site_of(request), request.path_params["name"]
    catalog = site.catalog()
    try:
        bots = [v.bot for v in catalog.versions(name)]
    finally:
        catalog.close()
    if not bots:
        return error(404, f"no entry {name!r}")
    results = site.matches.get(site.ladder)
    if results is None:
        return JSONResponse({"version": None, "total": 0, "matches": []})
    try:
        version, found, total = shown.entry_matches(results, bots, dict(request.query_params))
    except shown.BadQuery as e:
        return error(400, str(e))
    veil = shown.veil(site.ladder)
    found = [
        m if veil.hides(m["match_id"]) else {**m, "view": f"/matches/{m['match_id']}"}
        for m in found
    ]
    return JSONResponse({"version": version, "total": total, "matches": found})


def live_run(request: Request) -> Response:
    now = live.read(site_of(request).ladder)
    if now is None:
        return JSONResponse({"running": False})
    standings = [{"version": b, "mu": m, "sigma": s} for b, m, s in now.standings]
    return JSONResponse(
        {
            "running": True,
            "played": now.played,
            "planned": now.planned,
            "started": now.started,
            "standings": standings,
        }
    )


def description(request: Request) -> Response:
    return JSONResponse(openapi(str(request.base_url).rstrip("/")))


def api_page(request: Request) -> Response:
    calls = [(m.upper(), p, s) for p, m, s, _ in CALLS]
    return site_of(request).page(request, "api.html", "The API", calls=calls)


def routes() -> list[Route]:
    return [
        Route("/api", api_page),
        Route("/api/openapi.json", description),
        Route("/api/standings", standings),
        Route("/api/live", live_run),
        Route("/api/entries/{name}/matches", entry_matches),
        Route("/api/entries/{name}/versions", submit_version, methods=["POST"]),
        Route("/api/entries/{name}/retire", retire, methods=["POST"]),
        Route("/api/versions/{id:int}", version_state),
        Route("/api/versions/{id:int}/stderr", stderr),
        Route("/api/matches/{match_id:int}/notes", notes),
        Route("/api/matches/{match_id:int}/stderr", match_stderr),
    ]
