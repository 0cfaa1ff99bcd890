"""Bearer-token auth: random tokens, shown once, stored as SHA-256 hashes.

Tokens carry 256 random bits, so a fast hash is enough (a slow password hash only
matters for guessable secrets); the hash is looked up through the database index.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..records import User
from ..stores.base import Store
from .responses import Forbidden, Unauthorized

TOKEN_PREFIX = "fn_"
bearer = HTTPBearer(auto_error=False, description="An API token from `footnoted user add`.")


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(store: Store, user: User) -> str:
    """Make a token for the user; only its hash is kept."""
    token = new_token()
    store.add_token(user.id, hash_token(token))
    return token


def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User:
    """The user the bearer token belongs to, or 401."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized("Send an API token: Authorization: Bearer <token>.")
    token = credentials.credentials.strip()
    if not token or len(token) > 200:
        raise Unauthorized("The API token is not valid.", code="invalid_token")
    store: Store = request.app.state.footnoted.service.store
    user = store.user_for_token(hash_token(token))
    if user is None:
        raise Unauthorized("The API token is not valid.", code="invalid_token")
    return user


def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if not user.is_admin:
        raise Forbidden("Only an admin may do this.", code="admin_only")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]
