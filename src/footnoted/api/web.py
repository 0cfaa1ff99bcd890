"""The web UI: static files at ``/``, its session cookie, and the headers that guard it.

The UI is plain ES modules and CSS under ``footnoted/web`` (no build step). It signs in
by exchanging an API token for a new session token of its own, kept in an HttpOnly,
SameSite=Strict cookie and revoked on the server at sign-out; the API's auth accepts
that cookie as well as a bearer token, and cookie-authenticated writes must carry
``X-Requested-With`` (a header no cross-site form can send).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import Forbidden
from ..stores.base import Store
from .auth import (
    CSRF_HEADER,
    SESSION_COOKIE,
    SESSION_MAX_AGE_S,
    CurrentUser,
    issue_session,
    revoke_session,
    user_for,
)
from .docspolicy import with_docs_policy
from .errors import responses

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)
# The API docs' pages (/docs, /redoc) run inline scripts: they get their own policy
# (docspolicy). Their scripts and styles are served from here (fastapi-offline), never
# from a CDN.
DOCS_ASSETS = "/docs/assets"
_DOCS_PREFIXES = ("/docs", "/redoc")

router = APIRouter(tags=["web"])


class SessionIn(BaseModel):
    token: str = Field(min_length=1, max_length=200, description="An API token.")


class MeOut(BaseModel):
    name: str
    is_admin: bool


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html", media_type="text/html; charset=utf-8")


@router.get("/c/{session_id}", include_in_schema=False)
def conversation(session_id: str) -> FileResponse:
    """A conversation's own address: the UI opens it (or says it is not there)."""
    return index()


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    return FileResponse(WEB_DIR / "favicon.svg", media_type="image/svg+xml")


@router.post("/api/auth/session", responses=responses(401, 403, 422))
def sign_in(body: SessionIn, request: Request, response: Response) -> MeOut:
    """Exchange an API token for a new session token in the web UI's HttpOnly cookie."""
    user = user_for(request, body.token)  # a token that is not valid: 401 before all else
    if not request.headers.get(CSRF_HEADER):
        raise Forbidden(f"Send the {CSRF_HEADER} header.", code="csrf_failed")
    session = issue_session(_store(request), user)
    response.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=SESSION_MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return MeOut(name=user.name, is_admin=user.is_admin)


@router.delete("/api/auth/session", status_code=204)
def sign_out(request: Request) -> Response:
    """Revoke the session's token and forget the cookie (needs no valid session)."""
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        revoke_session(_store(request), token.strip())
    response = Response(status_code=204)
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.get("/api/auth/me", responses=responses(401))
def me(user: CurrentUser) -> MeOut:
    """Who the token or cookie belongs to."""
    return MeOut(name=user.name, is_admin=user.is_admin)


def _store(request: Request) -> Store:
    store: Store = request.app.state.footnoted.service.store
    return store


def static_files() -> StaticFiles:
    return StaticFiles(directory=WEB_DIR)


class SecurityHeaders:
    """ASGI middleware: a strict CSP, nosniff and no framing on every response; the docs
    get a policy of their own that allows just their inline scripts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")).startswith(_DOCS_PREFIXES):
            await with_docs_policy(self.app, scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() not in _SET_HERE
                ]
                headers += _HEADERS
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
_SET_HERE = {k for k, _ in _HEADERS}
