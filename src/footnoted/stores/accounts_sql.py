"""Users and their tokens, managed and audited: one SQL implementation for both backends.

Every change (a user made, promoted, demoted or deleted; a token issued, revoked or
rotated) writes its ``audit_log`` row in the same transaction, so the log holds exactly
the changes that happened. Web sign-ins and sign-outs (session tokens) are not account
changes and are not logged. A token's last use is marked at most once a minute, so
authenticating stays a read.

Each backend supplies the dialect (``sql.py``); account changes take one lock, as the
last-admin rule counts admins.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import Conflict, Forbidden, NotFound
from ..records import CLI_ACTOR, Actor, AuditEntry, TokenInfo, TokenKind, User
from .encoding import loads, now
from .rows import user_from
from .sql import SQL, Conn

TOUCH_S = 60.0  # a token's last use is marked at most this often


def no_user(user_id: str) -> NotFound:
    return NotFound(f"No user with id {user_id!r}.", code="user_not_found")


def token_from(row: Any) -> TokenInfo:
    return TokenInfo(row["id"], row["user_id"], row["kind"], row["created_at"], row["last_used_at"])


def audit_from(row: Any) -> AuditEntry:
    return AuditEntry(
        int(row["id"]),
        row["at"],
        row["via"],
        row["actor"],
        row["action"],
        row["user_id"],
        row["user_name"],
        loads(row["detail"]) or {},
        row["target"],
    )


def owner_only(user: User) -> Forbidden:
    return Forbidden(
        f"{user.name!r} is the instance's owner: only they (or the command line on the "
        "server) may demote or delete that account.",
        code="owner_protected",
    )


class AccountsSQL(SQL):
    # -- users -------------------------------------------------------------------------------
    def create_user(self, name: str, is_admin: bool = False, actor: Actor = CLI_ACTOR) -> User:
        with self._writing() as db:
            self._lock(db, "accounts")
            if self._run(db, "SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise Conflict(f"A user named {name!r} exists.", code="user_exists")
            owner = (
                is_admin
                and not self._run(db, "SELECT 1 FROM users WHERE is_owner = ?", (True,)).fetchone()
            )
            user = User(secrets.token_hex(16), name, is_admin, now(), owner)
            self._run(
                db,
                "INSERT INTO users (id, name, is_admin, created_at, is_owner) "
                "VALUES (?, ?, ?, ?, ?)",
                (user.id, user.name, user.is_admin, user.created_at, owner),
            )
            self._audit(db, actor, "user_created", user, {"is_admin": is_admin})
        return user

    def get_user(self, user_id: str) -> User:
        with self._reading() as db:
            row = self._run(db, "SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()
        if row is None:
            raise no_user(user_id)
        return user_from(row)

    def find_user(self, name: str) -> User | None:
        with self._reading() as db:
            row = self._run(db, "SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else user_from(row)

    def list_users(self) -> list[User]:
        with self._reading() as db:
            rows = self._run(db, "SELECT * FROM users").fetchall()
        return sorted((user_from(r) for r in rows), key=lambda u: (u.created_at, u.name))

    def set_admin(self, user_id: str, is_admin: bool, actor: Actor = CLI_ACTOR) -> User:
        """Promote or demote; demoting the only admin is a ``Conflict`` (``last_admin``),
        the owner by anyone else a ``Forbidden`` (``owner_protected``)."""
        with self._writing() as db:
            self._lock(db, "accounts")
            user = self._user(db, user_id)
            if user.is_admin == is_admin:
                return user
            if not is_admin:
                self._keep_an_admin(db, user)
                self._hand_over(db, user, actor)
            self._run(
                db,
                "UPDATE users SET is_admin = ?, is_owner = ? WHERE id = ?",
                (is_admin, False, user_id),
            )
            self._audit(db, actor, "admin_granted" if is_admin else "admin_revoked", user, {})
        return replace(user, is_admin=is_admin, is_owner=user.is_owner and is_admin)

    def delete_user(self, user_id: str, actor: Actor = CLI_ACTOR) -> dict[str, int]:
        """Delete the user with their tokens, chats, refusals and rate counts; what went."""
        with self._writing(user_id) as db:
            self._lock(db, "accounts")
            user = self._user(db, user_id)
            if user.is_admin:
                self._keep_an_admin(db, user)
                self._hand_over(db, user, actor)
            gone: dict[str, int] = {}
            for table in (
                "chat_requests",
                "messages",
                "sessions",
                "rate_events",
                "refusals",
                "feedback",
                "tokens",
            ):
                cur = self._run(db, f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                gone[table] = max(cur.rowcount, 0)
            self._run(db, "DELETE FROM users WHERE id = ?", (user_id,))
            self._audit(db, actor, "user_deleted", user, gone)
        return gone

    def _user(self, db: Conn, user_id: str) -> User:
        row = self._run(db, "SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()
        if row is None:
            raise no_user(user_id)
        return user_from(row)

    def _hand_over(self, db: Conn, user: User, actor: Actor) -> None:
        """Before the owner stops being an admin (only by their own hand, or from the
        command line), ownership passes to the longest-standing other admin."""
        if not user.is_owner:
            return
        if actor.via != "cli" and actor.name != user.name:
            raise owner_only(user)
        heir = self._run(
            db,
            "SELECT id FROM users WHERE is_admin = ? AND id <> ? ORDER BY created_at, name",
            (True, user.id),
        ).fetchone()
        self._run(db, "UPDATE users SET is_owner = ? WHERE id = ?", (True, heir["id"]))

    def _keep_an_admin(self, db: Conn, user: User) -> None:
        row = self._run(
            db, "SELECT count(*) AS n FROM users WHERE is_admin = ? AND id <> ?", (True, user.id)
        ).fetchone()
        if int(row["n"]) == 0:
            raise Conflict(
                f"{user.name!r} is the only admin; make another user an admin first.",
                code="last_admin",
            )

    # -- tokens ------------------------------------------------------------------------------
    def add_token(
        self,
        user_id: str,
        token_hash: str,
        kind: TokenKind = "api",
        actor: Actor = CLI_ACTOR,
        parent_id: str | None = None,
    ) -> TokenInfo:
        """Keep a new token's hash; an API token's issue is audited. A web session names
        the API token it was opened with (``parent_id``): revoking that one ends it."""
        with self._writing() as db:
            user = self._user(db, user_id)
            token = self._insert_token(db, user_id, token_hash, kind, parent_id)
            if kind == "api":
                self._audit(db, actor, "token_issued", user, {"token_id": token.id})
        return token

    def _insert_token(
        self, db: Conn, user_id: str, token_hash: str, kind: TokenKind, parent_id: str | None
    ) -> TokenInfo:
        token = TokenInfo(secrets.token_hex(8), user_id, kind, now())
        self._run(
            db,
            "INSERT INTO tokens (hash, id, user_id, kind, created_at, parent_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (token_hash, token.id, user_id, kind, token.created_at, parent_id),
        )
        return token

    def _delete_token(self, db: Conn, token_id: str) -> int:
        """Forget a token and the web sessions opened with it; how many sessions ended."""
        self._run(db, "DELETE FROM tokens WHERE id = ?", (token_id,))
        cur = self._run(db, "DELETE FROM tokens WHERE parent_id = ?", (token_id,))
        return max(int(cur.rowcount), 0)

    def list_tokens(self, user_id: str | None = None) -> list[TokenInfo]:
        """A user's tokens (every user's with ``None``), oldest first."""
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        with self._reading() as db:
            rows = self._run(db, f"SELECT * FROM tokens {where}", params).fetchall()
        return sorted((token_from(r) for r in rows), key=lambda t: (t.created_at, t.id))

    def revoke_token(self, user_id: str, token_id: str, actor: Actor = CLI_ACTOR) -> None:
        with self._writing() as db:
            user = self._user(db, user_id)
            token = self._token(db, user_id, token_id)
            ended = self._delete_token(db, token_id)
            detail = {"token_id": token_id, "kind": token.kind, "sessions_ended": ended}
            self._audit(db, actor, "token_revoked", user, detail)

    def rotate_token(
        self, user_id: str, token_id: str, new_hash: str, actor: Actor = CLI_ACTOR
    ) -> TokenInfo:
        """Replace an API token by a new one in one transaction."""
        with self._writing() as db:
            user = self._user(db, user_id)
            old = self._token(db, user_id, token_id)
            if old.kind != "api":
                raise Conflict(
                    "A web session cannot be rotated; revoke it instead.", code="session_token"
                )
            ended = self._delete_token(db, token_id)
            new = self._insert_token(db, user_id, new_hash, "api", None)
            detail = {"token_id": token_id, "new_token_id": new.id, "sessions_ended": ended}
            self._audit(db, actor, "token_rotated", user, detail)
        return new

    def _token(self, db: Conn, user_id: str, token_id: str) -> TokenInfo:
        row = self._run(
            db, "SELECT * FROM tokens WHERE id = ? AND user_id = ?", (token_id, user_id)
        ).fetchone()
        if row is None:
            raise NotFound(f"No token {token_id!r} for this user.", code="token_not_found")
        return token_from(row)

    def authenticate(self, token_hash: str) -> User | None:
        """The token's user, with ``token_id`` the API token behind it (a web session's
        parent), marking the token used (at most once a minute); None for no such token."""
        with self._reading() as db:
            row = self._run(
                db,
                "SELECT u.*, t.last_used_at AS token_used, t.id AS token_id, "
                "t.parent_id AS token_parent FROM tokens t "
                "JOIN users u ON u.id = t.user_id WHERE t.hash = ?",
                (token_hash,),
            ).fetchone()
        if row is None:
            return None
        if row["token_used"] is None or row["token_used"] < _ago(TOUCH_S):
            with self._writing() as db:
                sql = "UPDATE tokens SET last_used_at = ? WHERE hash = ?"
                self._run(db, sql, (now(), token_hash))
        return replace(user_from(row), token_id=row["token_parent"] or row["token_id"])

    def token_alive(self, token_id: str) -> bool:
        """Whether the token is still there (not revoked, rotated or deleted)."""
        with self._reading() as db:
            found = self._run(db, "SELECT 1 FROM tokens WHERE id = ?", (token_id,)).fetchone()
        return found is not None

    def remove_token(self, token_hash: str) -> bool:
        """Forget a token by its hash (a web session at sign-out); not audited."""
        with self._writing() as db:
            cur = self._run(db, "DELETE FROM tokens WHERE hash = ?", (token_hash,))
            return bool(cur.rowcount > 0)

    # -- the audit log ------------------------------------------------------------------------
    def audit(self, actor: Actor, action: str, target: str, detail: dict[str, Any]) -> None:
        """Log a change an admin made to something other than an account (a collection's
        settings, a document, the LLM connection): ``target`` names it."""
        with self._writing() as db:
            self._audit(db, actor, action, None, detail, target)

    def list_audit(self, limit: int = 100, user_id: str | None = None) -> list[AuditEntry]:
        """Admins' changes, newest first (to one user with ``user_id``)."""
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        with self._reading() as db:
            rows = self._run(
                db, f"SELECT * FROM audit_log {where} ORDER BY id DESC LIMIT ?", (*params, limit)
            ).fetchall()
        return [audit_from(r) for r in rows]

    # -- the chat rate limit ---------------------------------------------------------------
    def take_rate_slot(
        self, user_id: str, bucket: str, limit: int, window_s: float, at: float
    ) -> float | None:
        """Count one request in the user's ``bucket`` (a client of theirs) in a sliding
        window; None if allowed, else seconds to wait.

        Counted in one transaction under the user's lock, so the limit holds across every
        process that shares the database. Refused requests are not counted.
        """
        with self._writing() as db:
            self._lock(db, "rate", user_id)
            self._run(
                db,
                "DELETE FROM rate_events WHERE user_id = ? AND bucket = ? AND at <= ?",
                (user_id, bucket, at - window_s),
            )
            row = self._run(
                db,
                "SELECT count(*) AS n, min(at) AS oldest FROM rate_events"
                " WHERE user_id = ? AND bucket = ?",
                (user_id, bucket),
            ).fetchone()
            if row is not None and row["n"] >= limit:
                return max(0.0, float(row["oldest"]) + window_s - at)
            self._run(
                db,
                "INSERT INTO rate_events (user_id, bucket, at) VALUES (?, ?, ?)",
                (user_id, bucket, at),
            )
        return None


def _ago(seconds: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="microseconds")
