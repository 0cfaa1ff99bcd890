"""Bearer-token auth: random tokens, shown once, stored as SHA-256 hashes (``accounts``).

Every request looks its token up in the database, so a revoked token, a deleted user or
a demoted admin is refused at once, in every process. A web session's token also names
the time it expires (the hash covers that time, so it cannot be changed), and is kept
with the API token it was opened with: revoking or rotating that token ends the session
too. The user a request is made by carries that API token's id (``User.token_id``).
"""

from __future__ import annotations

import logging
import time
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..errors import FootnotedError, Forbidden, Unauthorized
from ..records import Origin, User
from ..service.accounts import hash_token, new_token
from ..service.oidc import SignInFailed
from ..stores.base import Store

SESSION_PREFIX = "fns_"  # a web session's token: issued at sign-in, revoked at sign-out
SESSION_MAX_AGE_S = 12 * 3600
bearer = HTTPBearer(auto_error=False, description="An API token from `footnoted user add`.")
SESSION_COOKIE = "footnoted_session"  # the web UI's HttpOnly, SameSite=Strict cookie
CSRF_HEADER = "X-Requested-With"  # cross-site forms cannot send it; cookie writes need it
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RETRY_S = 60.0  # the identity provider could not be reached: ask again this much later
log = logging.getLogger(__name__)


def issue_session(store: Store, user: User) -> str:
    """A web session's token, valid for ``SESSION_MAX_AGE_S``, until sign-out, or until
    the API token ``user`` signed in with is revoked."""
    expires = int(time.time()) + SESSION_MAX_AGE_S
    token = new_token(f"{SESSION_PREFIX}{expires}_")
    store.add_token(user.id, hash_token(token), kind="session", parent_id=user.token_id)
    return token


def session_expired(token: str) -> bool:
    if not token.startswith(SESSION_PREFIX):
        return False
    expires, _, _ = token.removeprefix(SESSION_PREFIX).partition("_")
    return not expires.isdigit() or int(expires) < time.time()


def revoke_session(store: Store, token: str) -> None:
    """Forget a web session's token; API tokens are never revoked this way."""
    if token.startswith(SESSION_PREFIX):
        store.remove_token(hash_token(token))


def user_for(request: Request, token: str) -> User:
    """The user a token belongs to, or 401."""
    token = token.strip()
    if not token or len(token) > 200:
        raise Unauthorized("The API token is not valid.", code="invalid_token")
    store: Store = request.app.state.footnoted.service.store
    if session_expired(token):
        revoke_session(store, token)
        raise Unauthorized("The session has expired: sign in again.", code="session_expired")
    user = store.authenticate(hash_token(token))
    if user is None:
        raise Unauthorized("The API token is not valid.", code="invalid_token")
    return user


def _cookie_user(request: Request, token: str) -> User:
    """The web UI's session cookie's user (401 when it is not valid, or when the identity
    provider that opened it no longer vouches for it); writes through a valid one need
    the CSRF header (403)."""
    user = user_for(request, token)
    _still_vouched_for(request, token)
    if request.method not in SAFE_METHODS and not request.headers.get(CSRF_HEADER):
        raise Forbidden(
            f"Cookie-authenticated writes need the {CSRF_HEADER} header.", code="csrf_failed"
        )
    return user


def _still_vouched_for(request: Request, token: str) -> None:
    """A web session the identity provider opened is vouched for again (its refresh
    token) every ``FOOTNOTED_OIDC_REFRESH_S``, by one request at a time; when the provider
    refuses (the user was removed or disabled there) or the session has no refresh token,
    it ends. While the provider cannot be reached, it is asked again a minute later."""
    state = request.app.state.footnoted
    store: Store = state.service.store
    key = hash_token(token)
    vouched = store.session_vouched(key)
    if vouched is None:
        return
    refresh_token, seen_at = vouched
    settings = state.service.settings
    at = time.time()
    if at - seen_at < settings.oidc_refresh_s or not store.claim_vouch(key, seen_at, at):
        return
    provider = state.signin
    tokens = None
    if refresh_token is not None and provider is not None:
        try:
            tokens = provider.refresh(refresh_token)
            if tokens is not None and tokens.id_token:
                provider.verify(tokens.id_token, None)
        except SignInFailed:
            tokens = None
        except FootnotedError as exc:  # cannot say now: ask again in a minute
            log.warning("could not vouch for a session again: %s", exc.message)
            store.vouch_session(key, refresh_token, at - settings.oidc_refresh_s + RETRY_S)
            return
    if tokens is None:
        revoke_session(store, token)
        raise Unauthorized(
            f"Your sign-in with {settings.oidc_name} has ended: sign in again.",
            code="session_ended",
        )
    store.vouch_session(key, tokens.refresh_token, at)


def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User:
    """The user the bearer token (or the web UI's session cookie) belongs to, or 401."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie is not None:
            return _cookie_user(request, cookie)
        raise Unauthorized("Send an API token: Authorization: Bearer <token>.")
    return user_for(request, credentials.credentials)


def origin_of(request: Request) -> Origin:
    """Where a chat request comes from: the web UI signs in with its cookie (``web``);
    anything that sends a bearer token is a program (``api``)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return "api"
    return "web" if request.cookies.get(SESSION_COOKIE) else "api"


def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if not user.is_admin:
        raise Forbidden("Only an admin may do this.", code="admin_only")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]
