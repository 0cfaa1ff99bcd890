"""Sign-in through an OpenID Connect provider: the sign-ins under way, the users the
provider vouches for, and the web sessions it opened. One SQL implementation for both
backends (``sql.py``); the protocol itself is ``service/oidc.py``.

A sign-in under way is taken once: its state cannot be replayed. A user is matched by
the provider's subject (never by name or email); a new one is named after their email
(or another name when that one is taken), and an admin group, when the operator names
one, grants or revokes admin rights at every sign-in (audited like any change).
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from ..errors import Conflict
from ..records import Actor, PendingSignIn, User
from .encoding import now
from .rows import user_from
from .sql import SQL, Conn

SIGN_IN_MAX_AGE_S = 600.0  # from leaving for the provider to coming back


class SignInSQL(SQL):
    def begin_sign_in(self, state: str, pending: PendingSignIn, at: float) -> None:
        with self._writing() as db:
            self._run(db, "DELETE FROM oidc_logins WHERE created_at < ?", (at - SIGN_IN_MAX_AGE_S,))
            self._run(
                db,
                "INSERT INTO oidc_logins (state, nonce, verifier, next, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (state, pending.nonce, pending.verifier, pending.next, at),
            )

    def finish_sign_in(self, state: str, at: float) -> PendingSignIn | None:
        """The sign-in ``state`` began, taken once; None when it is unknown, was taken
        already or began more than :data:`SIGN_IN_MAX_AGE_S` ago."""
        with self._writing() as db:
            self._lock(db, "oidc", state)
            row = self._run(db, "SELECT * FROM oidc_logins WHERE state = ?", (state,)).fetchone()
            if row is None:
                return None
            self._run(db, "DELETE FROM oidc_logins WHERE state = ?", (state,))
        if float(row["created_at"]) < at - SIGN_IN_MAX_AGE_S:
            return None
        return PendingSignIn(row["nonce"], row["verifier"], row["next"])

    def provider_user(
        self, subject: str, name: str, email: str | None, admin: bool | None, actor: Actor
    ) -> User:
        """The user the provider knows as ``subject``: created on first sign-in, their
        email kept current, admin rights set when ``admin`` is not None (the last admin
        keeps them: ``last_admin`` never locks an instance out)."""
        with self._writing() as db:
            self._lock(db, "accounts")
            row = self._run(db, "SELECT * FROM users WHERE oidc_subject = ?", (subject,)).fetchone()
            if row is None:
                return self._create_provider_user(db, subject, name, email, bool(admin), actor)
            user = user_from(row)
            if email != user.email:
                self._run(db, "UPDATE users SET email = ? WHERE id = ?", (email, user.id))
                user = replace(user, email=email)
            if admin is None or admin == user.is_admin:
                return user
            if not admin and not self._other_admin(db, user.id):
                return user
            self._run(
                db,
                "UPDATE users SET is_admin = ?, is_owner = ? WHERE id = ?",
                (admin, user.is_owner and admin, user.id),
            )
            self._audit(db, actor, "admin_granted" if admin else "admin_revoked", user, {})
            return replace(user, is_admin=admin, is_owner=user.is_owner and admin)

    def _create_provider_user(
        self, db: Conn, subject: str, name: str, email: str | None, admin: bool, actor: Actor
    ) -> User:
        taken = {r["name"] for r in self._run(db, "SELECT name FROM users").fetchall()}
        unique = name
        for n in range(2, 10_000):
            if unique not in taken:
                break
            unique = f"{name} ({n})"
        else:  # pragma: no cover - ten thousand namesakes
            raise Conflict(f"Too many users named {name!r}.", code="user_exists")
        owner = (
            admin
            and not self._run(db, "SELECT 1 FROM users WHERE is_owner = ?", (True,)).fetchone()
        )
        user = User(secrets.token_hex(16), unique, admin, now(), bool(owner), email)
        self._run(
            db,
            "INSERT INTO users (id, name, is_admin, created_at, is_owner, email, oidc_subject) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (user.id, user.name, admin, user.created_at, user.is_owner, email, subject),
        )
        detail = {"is_admin": admin, "signed_in_with": "oidc"}
        self._audit(db, actor, "user_created", user, detail)
        return user

    def _other_admin(self, db: Conn, user_id: str) -> bool:
        row = self._run(
            db, "SELECT 1 FROM users WHERE is_admin = ? AND id <> ?", (True, user_id)
        ).fetchone()
        return row is not None

    # -- the web sessions a provider opened ---------------------------------------------------
    def vouch_session(self, token_hash: str, refresh_token: str | None, at: float) -> None:
        """The provider vouched for the web session ``token_hash`` at ``at`` (at sign-in,
        or by a refresh): keep its newest refresh token."""
        with self._writing() as db:
            self._run(
                db,
                "UPDATE tokens SET oidc_refresh = ?, oidc_checked_at = ? WHERE hash = ?",
                (refresh_token, at, token_hash),
            )

    def session_vouched(self, token_hash: str) -> tuple[str | None, float] | None:
        """A provider-opened web session's refresh token and when it was last vouched
        for; None for any other token."""
        with self._reading() as db:
            row = self._run(
                db,
                "SELECT oidc_refresh, oidc_checked_at FROM tokens WHERE hash = ?",
                (token_hash,),
            ).fetchone()
        if row is None or row["oidc_checked_at"] is None:
            return None
        return row["oidc_refresh"], float(row["oidc_checked_at"])

    def claim_vouch(self, token_hash: str, seen_at: float, at: float) -> bool:
        """Take the turn to have the session vouched for again: True for exactly one of
        the requests that saw it last vouched for at ``seen_at`` (a refresh token may be
        used once)."""
        with self._writing() as db:
            cur = self._run(
                db,
                "UPDATE tokens SET oidc_checked_at = ? WHERE hash = ? AND oidc_checked_at = ?",
                (at, token_hash, seen_at),
            )
            return bool(cur.rowcount == 1)
