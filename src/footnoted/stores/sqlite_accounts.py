"""Users and tokens (``accounts_sql``, in SQLite's dialect) and the per-user chat rate limit."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager, nullcontext

from .accounts_sql import AccountsSQL
from .sqlite_base import SQLiteBase


class AccountsMixin(AccountsSQL, SQLiteBase):
    PARAM = "?"

    def _reading(self) -> AbstractContextManager[sqlite3.Connection]:
        return nullcontext(self.db)

    def _writing(self, user_id: str | None = None) -> AbstractContextManager[sqlite3.Connection]:
        return self.transaction()

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
