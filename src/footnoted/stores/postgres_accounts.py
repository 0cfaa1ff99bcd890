"""Users, their hashed API tokens, and the per-user chat rate limit (PostgreSQL)."""

from __future__ import annotations

import uuid

from psycopg.errors import UniqueViolation

from ..errors import Conflict, NotFound
from ..records import User
from .postgres_base import PostgresBase, now
from .rows import user_from


class AccountsMixin(PostgresBase):
    def create_user(self, name: str, is_admin: bool = False) -> User:
        user = User(uuid.uuid4().hex, name, is_admin, now())
        try:
            with self.transaction() as db:
                db.execute(
                    "INSERT INTO users (id, name, is_admin, created_at) VALUES (%s, %s, %s, %s)",
                    (user.id, user.name, user.is_admin, user.created_at),
                )
        except UniqueViolation as exc:
            raise Conflict(f"A user named {name!r} exists.", code="user_exists") from exc
        return user

    def find_user(self, name: str) -> User | None:
        with self.transaction() as db:
            row = db.execute("SELECT * FROM users WHERE name = %s", (name,)).fetchone()
        return None if row is None else user_from(row)

    def list_users(self) -> list[User]:
        with self.transaction() as db:
            rows = db.execute(
                'SELECT * FROM users ORDER BY created_at COLLATE "C", name COLLATE "C"'
            ).fetchall()
        return [user_from(r) for r in rows]

    def set_admin(self, user_id: str, is_admin: bool) -> None:
        with self.transaction() as db:
            cur = db.execute("UPDATE users SET is_admin = %s WHERE id = %s", (is_admin, user_id))
            if cur.rowcount == 0:
                raise NotFound(f"No user with id {user_id!r}.", code="user_not_found")

    def add_token(self, user_id: str, token_hash: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO tokens (hash, user_id, created_at) VALUES (%s, %s, %s)",
                (token_hash, user_id, now()),
            )

    def user_for_token(self, token_hash: str) -> User | None:
        with self.transaction() as db:
            row = db.execute(
                "SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = %s",
                (token_hash,),
            ).fetchone()
        return None if row is None else user_from(row)

    def remove_token(self, token_hash: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("DELETE FROM tokens WHERE hash = %s", (token_hash,))
            return cur.rowcount > 0

    def take_rate_slot(self, user_id: str, limit: int, window_s: float, at: float) -> float | None:
        """Count one request in a sliding window; None if allowed, else seconds to wait.

        The user's advisory lock serialises the count across every process that shares
        the database. Refused requests are not counted.
        """
        with self.transaction() as db:
            self.lock(db, "rate", user_id)
            db.execute(
                "DELETE FROM rate_events WHERE user_id = %s AND at <= %s",
                (user_id, at - window_s),
            )
            row = db.execute(
                "SELECT count(*) AS n, min(at) AS oldest FROM rate_events WHERE user_id = %s",
                (user_id,),
            ).fetchone()
            if row is not None and row["n"] >= limit:
                return max(0.0, float(row["oldest"]) + window_s - at)
            db.execute("INSERT INTO rate_events (user_id, at) VALUES (%s, %s)", (user_id, at))
        return None
