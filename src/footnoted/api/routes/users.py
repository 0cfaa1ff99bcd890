"""Admin API for users and tokens (``/api/admin/users``); every change is audited.

Auth reads users and tokens from the database on every request, so a revoked token, a
deleted user or a demoted admin is refused from the next request on, in every worker.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from ...records import Actor, User
from ...service.accounts import Accounts, Issued
from ..auth import AdminUser
from ..errors import responses
from ..schemas import (
    IssuedTokenOut,
    NewUserOut,
    TokenOut,
    UserDetailOut,
    UserIn,
    UserPatch,
)
from ..state import State

router = APIRouter(prefix="/users", tags=["admin"])


def _accounts(state: State, admin: User) -> Accounts:
    return Accounts(state.service.store, Actor("api", admin.name))


def _detail(accounts: Accounts, user: User) -> UserDetailOut:
    tokens = [TokenOut(**t.to_dict()) for t in accounts.tokens(user)]
    return UserDetailOut(**user.to_dict(), tokens=tokens)


def _issued(issued: Issued) -> IssuedTokenOut:
    return IssuedTokenOut(id=issued.info.id, token=issued.token, created_at=issued.info.created_at)


@router.get("")
def list_users(admin: AdminUser, state: State) -> list[UserDetailOut]:
    """Every user with their tokens (created, last used; never the tokens themselves)."""
    accounts = _accounts(state, admin)
    tokens = accounts.tokens()
    return [
        UserDetailOut(
            **u.to_dict(), tokens=[TokenOut(**t.to_dict()) for t in tokens if t.user_id == u.id]
        )
        for u in state.service.store.list_users()
    ]


@router.post("", status_code=201, responses=responses(409, 422))
def add_user(body: UserIn, admin: AdminUser, state: State) -> NewUserOut:
    """Create a user and their first API token (shown once)."""
    accounts = _accounts(state, admin)
    user, issued = accounts.add(body.name, body.is_admin)
    return NewUserOut(user=_detail(accounts, user), token=_issued(issued))


@router.get("/{user_id}", responses=responses(404))
def get_user(user_id: str, admin: AdminUser, state: State) -> UserDetailOut:
    accounts = _accounts(state, admin)
    return _detail(accounts, state.service.store.get_user(user_id))


@router.patch("/{user_id}", responses=responses(404, 409, 422))
def patch_user(user_id: str, body: UserPatch, admin: AdminUser, state: State) -> UserDetailOut:
    """Promote (``is_admin: true``) or demote; the only admin cannot be demoted (409)."""
    accounts = _accounts(state, admin)
    user = accounts.set_admin(state.service.store.get_user(user_id), body.is_admin)
    return _detail(accounts, user)


@router.delete("/{user_id}", status_code=204, responses=responses(404, 409))
def delete_user(user_id: str, admin: AdminUser, state: State) -> Response:
    """Delete the user with their tokens, chat history and logged refusals."""
    accounts = _accounts(state, admin)
    accounts.delete(state.service.store.get_user(user_id))
    return Response(status_code=204)


@router.get("/{user_id}/tokens", responses=responses(404))
def list_tokens(user_id: str, admin: AdminUser, state: State) -> list[TokenOut]:
    accounts = _accounts(state, admin)
    user = state.service.store.get_user(user_id)
    return [TokenOut(**t.to_dict()) for t in accounts.tokens(user)]


@router.post("/{user_id}/tokens", status_code=201, responses=responses(404))
def issue_token(user_id: str, admin: AdminUser, state: State) -> IssuedTokenOut:
    """Another API token for the user (shown once)."""
    accounts = _accounts(state, admin)
    return _issued(accounts.issue(state.service.store.get_user(user_id)))


@router.delete("/{user_id}/tokens/{token_id}", status_code=204, responses=responses(404))
def revoke_token(user_id: str, token_id: str, admin: AdminUser, state: State) -> Response:
    """Revoke the token: it is refused (401) from the next request on."""
    accounts = _accounts(state, admin)
    accounts.revoke(state.service.store.get_user(user_id), token_id)
    return Response(status_code=204)


@router.post("/{user_id}/tokens/{token_id}/rotate", status_code=201, responses=responses(404, 409))
def rotate_token(user_id: str, token_id: str, admin: AdminUser, state: State) -> IssuedTokenOut:
    """Replace an API token by a new one (shown once), atomically."""
    accounts = _accounts(state, admin)
    return _issued(accounts.rotate(state.service.store.get_user(user_id), token_id))
