"""The SQL both backends share: their few differences, named once.

Records (users and tokens: ``accounts_sql.py``; chats: ``chat_sql.py``; the refusal
log) are written once, in SQLite's ``?`` placeholder style. Each backend's base class
(``SQLiteBase``, ``PostgresBase``) fills in the dialect: its placeholder, how to read
and to write (PostgreSQL scopes row-level security to a user), a lock that serialises
a check-then-write (SQLite's write transactions already are serialised) and the
collation that orders text byte by byte.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar, TypeVar

from ..records import Actor, RefusalEntry, User
from .encoding import dumps, now

Conn = Any  # sqlite3.Connection or psycopg.Connection: both execute() and name columns
T = TypeVar("T")


class SQL:
    PARAM: ClassVar[str] = "?"
    BYTEWISE: ClassVar[str] = ""  # appended to a text column to order it byte by byte

    def _reading(self, user_id: str | None = None) -> AbstractContextManager[Conn]:
        """A connection to read with; with ``user_id``, one that may see that user's rows."""
        raise NotImplementedError

    def _writing(self, user_id: str | None = None) -> AbstractContextManager[Conn]:
        """A transaction; with ``user_id``, one that may see and change that user's rows."""
        raise NotImplementedError

    def memo(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, shared by every thread until the documents change (``memo.py``)."""
        raise NotImplementedError

    def _lock(self, db: Conn, *key: str) -> None:
        """Serialise this transaction with every other one taking the same key."""

    def _run(self, db: Conn, sql: str, params: Sequence[Any] = ()) -> Any:
        return db.execute(sql if self.PARAM == "?" else sql.replace("?", self.PARAM), params)

    def _insert_refusal(self, db: Conn, entry: RefusalEntry, user_id: str | None) -> None:
        self._run(
            db,
            "INSERT INTO refusals (user_id, question, collection, max_score, threshold, "
            "reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                user_id, entry.question, entry.collection, entry.max_score, entry.threshold,
                entry.reason, entry.created_at or now(),
            ),
        )  # fmt: skip

    def _audit(
        self,
        db: Conn,
        actor: Actor,
        action: str,
        user: User | None,
        detail: dict[str, Any],
        target: str | None = None,
    ) -> None:
        self._run(
            db,
            "INSERT INTO audit_log (at, via, actor, action, user_id, user_name, detail, target) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                now(),
                actor.via,
                actor.name,
                action,
                user and user.id,
                user and user.name,
                dumps(detail),
                target,
            ),
        )
