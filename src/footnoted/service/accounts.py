"""Users and API tokens: made, listed, revoked, rotated, promoted, demoted, deleted.

The one home of account management, for the command line (``footnoted user …``) and
the admin API alike; :class:`Accounts` acts for one :class:`~footnoted.records.Actor`,
and the store writes each change to the audit log in the change's own transaction.

Tokens carry 256 random bits and are shown once; only their SHA-256 hash is stored (a
fast hash is enough for random secrets) and looked up through the database index, so a
revoked token fails at once, in every process.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from ..errors import InvalidInput, NotFound
from ..records import Actor, AuditEntry, TokenInfo, User
from ..stores.base import Store

TOKEN_PREFIX = "fn_"
MAX_NAME = 100


def new_token(prefix: str = TOKEN_PREFIX) -> str:
    return prefix + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(store: Store, user: User) -> str:
    """Make an API token for the user (from the command line); only its hash is kept."""
    token = new_token()
    store.add_token(user.id, hash_token(token))
    return token


def valid_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise InvalidInput(
            f"A user name has 1 to {MAX_NAME} printable characters.", code="invalid_user_name"
        )
    return name


@dataclass(frozen=True, slots=True)
class Issued:
    """A token just made: shown this once."""

    info: TokenInfo
    token: str


@dataclass(frozen=True, slots=True)
class Accounts:
    store: Store
    actor: Actor

    def user(self, name: str) -> User:
        """The user by name, or ``NotFound``."""
        user = self.store.find_user(name)
        if user is None:
            raise NotFound(f"No user named {name!r}.", code="user_not_found")
        return user

    def add(self, name: str, is_admin: bool = False) -> tuple[User, Issued]:
        user = self.store.create_user(valid_name(name), is_admin, self.actor)
        return user, self.issue(user)

    def issue(self, user: User) -> Issued:
        token = new_token()
        info = self.store.add_token(user.id, hash_token(token), actor=self.actor)
        return Issued(info, token)

    def rotate(self, user: User, token_id: str) -> Issued:
        token = new_token()
        info = self.store.rotate_token(user.id, token_id, hash_token(token), self.actor)
        return Issued(info, token)

    def rotate_all(self, user: User) -> tuple[list[str], Issued]:
        """Issue a new API token, then revoke every other one; the ids revoked."""
        old = [t.id for t in self.store.list_tokens(user.id) if t.kind == "api"]
        issued = self.issue(user)
        for token_id in old:
            self.store.revoke_token(user.id, token_id, self.actor)
        return old, issued

    def revoke(self, user: User, token_id: str) -> None:
        self.store.revoke_token(user.id, token_id, self.actor)

    def revoke_all(self, user: User) -> list[str]:
        """Revoke every token (web sessions too); the ids revoked."""
        ids = [t.id for t in self.store.list_tokens(user.id)]
        for token_id in ids:
            self.store.revoke_token(user.id, token_id, self.actor)
        return ids

    def set_admin(self, user: User, is_admin: bool) -> User:
        return self.store.set_admin(user.id, is_admin, self.actor)

    def delete(self, user: User) -> dict[str, int]:
        return self.store.delete_user(user.id, self.actor)

    def tokens(self, user: User | None = None) -> list[TokenInfo]:
        return self.store.list_tokens(None if user is None else user.id)

    def audit(self, limit: int = 100, user: User | None = None) -> list[AuditEntry]:
        return self.store.list_audit(limit, None if user is None else user.id)
