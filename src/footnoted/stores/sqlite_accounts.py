"""Users, their hashed API tokens, and the per-user chat rate limit (SQLite)."""

from __future__ import annotations

import uuid

from ..errors import Conflict, NotFound
from ..records import User
from .rows import user_from
from .sqlite_base import SQLiteBase, now


class AccountsMixin(SQLiteBase):
    def create_user(self, name: str, is_admin: bool = False) -> User:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise Conflict(f"A user named {name!r} exists.", code="user_exists")
            user = User(uuid.uuid4().hex, name, is_admin, now())
            db.execute(
                "INSERT INTO users (id, name, is_admin, created_at) VALUES (?, ?, ?, ?)",
                (user.id, user.name, int(user.is_admin), user.created_at),
            )
        return user

    def find_user(self, name: str) -> User | None:
        row = self.db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else user_from(row)

    def list_users(self) -> list[User]:
        rows = self.db.execute("SELECT * FROM users ORDER BY created_at, name").fetchall()
        return [user_from(r) for r in rows]

    def set_admin(self, user_id: str, is_admin: bool) -> None:
        with self.transaction() as db:
            cur = db.execute("UPDATE users SET is_admin = ? WHERE id = ?", (int(is_admin), user_id))
            if cur.rowcount == 0:
                raise NotFound(f"No user with id {user_id!r}.", code="user_not_found")

    def add_token(self, user_id: str, token_hash: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO tokens (hash, user_id, created_at) VALUES (?, ?, ?)",
                (token_hash, user_id, now()),
            )

    def user_for_token(self, token_hash: str) -> User | None:
        row = self.db.execute(
            "SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?",
            (token_hash,),
        ).fetchone()
        return None if row is None else user_from(row)

    def remove_token(self, token_hash: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("DELETE FROM tokens WHERE hash = ?", (token_hash,))
        return cur.rowcount > 0

    def take_rate_slot(self, user_id: str, limit: int, window_s: float, at: float) -> float | None:
        """Count one request in a sliding window; None if allowed, else seconds to wait.

        Counted in one ``BEGIN IMMEDIATE`` transaction, so the limit holds across every
        process that shares the database. Refused requests are not counted.
        """
        with self.transaction() as db:
            db.execute(
                "DELETE FROM rate_events WHERE user_id = ? AND at <= ?", (user_id, at - window_s)
            )
            count, oldest = db.execute(
                "SELECT count(*), min(at) FROM rate_events WHERE user_id = ?", (user_id,)
            ).fetchone()
            if count >= limit:
                return max(0.0, float(oldest) + window_s - at)
            db.execute("INSERT INTO rate_events (user_id, at) VALUES (?, ?)", (user_id, at))
        return None
