"""Users and tokens (``accounts_sql``, in PostgreSQL's dialect) and the per-user chat
rate limit."""

from __future__ import annotations

from contextlib import AbstractContextManager

from .accounts_sql import AccountsSQL
from .postgres_base import Connection, PostgresBase


class AccountsMixin(AccountsSQL, PostgresBase):
    PARAM = "%s"

    def _reading(self) -> AbstractContextManager[Connection]:
        return self.transaction()

    def _writing(self, user_id: str | None = None) -> AbstractContextManager[Connection]:
        return self.transaction(user_id)

    def _lock_accounts(self, db: Connection) -> None:
        self.lock(db, "accounts")

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
