"""Sign-in through the operator's OpenID Connect provider (``service/oidc.py``): which
ways to sign in there are, leaving for the provider, and coming back with a web session.

Coming back is bound to the browser that left (a short-lived, ``SameSite=Lax`` cookie
holds the state, so one browser's sign-in cannot be finished in another) and to the
state, taken once (a replayed callback is refused). Failures come back to the web UI
as ``/?signin_error=CODE``, which it explains; the session cookie is the one a token
sign-in sets.
"""

from __future__ import annotations

import logging
import secrets

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from starlette.responses import RedirectResponse

from ...errors import FootnotedError, NotFound
from ...service import oidc
from ...service.accounts import hash_token
from ..auth import SESSION_COOKIE, SESSION_MAX_AGE_S, issue_session
from ..errors import responses
from ..state import State

router = APIRouter(tags=["web"])
log = logging.getLogger(__name__)
STATE_COOKIE = "footnoted_signin"
CALLBACK = "/api/auth/oidc/callback"


class ProviderOut(BaseModel):
    name: str = Field(description="What the web UI's button says: Sign in with …")
    login_url: str


class SignInWaysOut(BaseModel):
    token: bool = Field(description="An API token signs in (always).")
    oidc: ProviderOut | None = Field(description="The identity provider, when one is set.")


@router.get("/api/auth/providers")
def sign_in_ways(state: State) -> SignInWaysOut:
    """How one may sign in to the web UI (needs no token)."""
    settings = state.service.settings
    provider = None
    if state.signin is not None:
        provider = ProviderOut(name=settings.oidc_name, login_url="/api/auth/oidc/login")
    return SignInWaysOut(token=True, oidc=provider)


def _redirect_uri(request: Request, state: State) -> str:
    return state.service.settings.oidc_redirect_url or str(request.base_url).rstrip("/") + CALLBACK


def _local(path: str | None) -> str:
    """Only a path on this server (never ``//elsewhere`` or a URL) is a place to go."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


@router.get(
    "/api/auth/oidc/login", response_class=RedirectResponse, status_code=302,
    responses=responses(404),
)  # fmt: skip
def oidc_login(
    request: Request,
    state: State,
    next: str | None = Query(default=None, max_length=500),
) -> RedirectResponse:
    """Leave for the identity provider (404 when none is set)."""
    provider = _provider(state)
    secure = request.url.scheme == "https"
    try:
        url, signin_state = oidc.start(
            state.service.store, provider, _redirect_uri(request, state), _local(next)
        )
    except FootnotedError as exc:
        return _failed(exc, secure)
    response = RedirectResponse(url, status_code=302)
    response.set_cookie(
        STATE_COOKIE, signin_state, max_age=600, path="/api/auth/oidc", httponly=True,
        samesite="lax", secure=secure,
    )  # fmt: skip
    return response


@router.get(CALLBACK, response_class=RedirectResponse, status_code=303, responses=responses(404))
def oidc_callback(
    request: Request,
    state: State,
    code: str | None = Query(default=None, max_length=4000),
    signin_state: str | None = Query(default=None, alias="state", max_length=200),
    error: str | None = Query(default=None, max_length=200),
) -> RedirectResponse:
    """Come back from the identity provider: a web session, then the page asked for."""
    provider = _provider(state)
    store = state.service.store
    secure = request.url.scheme == "https"
    left_from = request.cookies.get(STATE_COOKIE, "")
    try:
        if not signin_state or not secrets.compare_digest(left_from, signin_state):
            raise oidc.SignInFailed(
                "This sign-in did not start in this browser, or was used already: start it again.",
                code="sign_in_state_invalid",
            )
        if error or not code:
            store.finish_sign_in(signin_state, 0.0)  # used up either way
            raise oidc.SignInFailed(
                f"The identity provider did not sign you in ({error or 'no code'}).",
                code="sign_in_refused",
            )
        signed_in = oidc.finish(store, provider, signin_state, code, _redirect_uri(request, state))
    except FootnotedError as exc:
        return _failed(exc, secure)
    session = issue_session(store, signed_in.user)
    store.vouch_session(hash_token(session), signed_in.refresh_token, oidc.now())
    response = RedirectResponse(signed_in.next, status_code=303)
    response.set_cookie(
        SESSION_COOKIE, session, max_age=SESSION_MAX_AGE_S, path="/", httponly=True,
        samesite="strict", secure=secure,
    )  # fmt: skip
    response.delete_cookie(STATE_COOKIE, path="/api/auth/oidc", httponly=True, samesite="lax",
                           secure=secure)  # fmt: skip
    return response


def _provider(state: State) -> oidc.Provider:
    if state.signin is None:
        raise NotFound("Sign-in with an identity provider is not set up here.",
                       code="oidc_not_configured")  # fmt: skip
    return state.signin


def _failed(exc: FootnotedError, secure: bool) -> RedirectResponse:
    log.warning("sign-in failed: %s (%s)", exc.message, exc.code)
    response = RedirectResponse(f"/?signin_error={exc.code}", status_code=303)
    response.delete_cookie(STATE_COOKIE, path="/api/auth/oidc", httponly=True, samesite="lax",
                           secure=secure)  # fmt: skip
    return response
