"""PostgreSQL connections shared by every part of the PostgreSQL store.

The database URL names the role that owns the tables: it runs the migrations. Every
pooled connection then switches to ``footnoted_app`` (``SET ROLE``), a role without
ownership, so row-level security applies to everything the service does. Chat data is
read and written in transactions that name their user (``footnoted.user_id``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg import register_vector
from psycopg.rows import DictRow, dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import DatabaseUnavailable
from .encoding import dumps, loads, now
from .memo import Memo
from .postgres_migrations import APP_ROLE, migrate
from .sql import SQL

T = TypeVar("T")

__all__ = ["Connection", "PostgresBase", "dumps", "loads", "now"]

Connection = psycopg.Connection[DictRow]


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.execute(f"SET ROLE {APP_ROLE}")
    register_vector(conn)
    conn.commit()


def lock_key(*parts: str) -> str:
    """Text whose hash names an advisory lock (``pg_advisory_xact_lock``)."""
    return "\x1f".join(parts)


class PostgresBase(SQL):
    """A connection pool; each ``transaction()`` is all or nothing."""

    def __init__(self, url: str, dim: int, pool_size: int = 10) -> None:
        self.url = url
        self.dim = dim
        self._memo = Memo()
        try:
            migrate(url, dim)
        except psycopg.Error as exc:
            raise DatabaseUnavailable(f"PostgreSQL: {exc}".strip()) from exc
        self.pool: ConnectionPool[Connection] = ConnectionPool(
            url,
            connection_class=psycopg.Connection[DictRow],
            kwargs={"row_factory": dict_row},
            configure=_configure,
            check=ConnectionPool.check_connection,  # survive a database restart
            min_size=1,
            max_size=pool_size,
            open=False,
            name="footnoted",
        )
        try:
            self.pool.open(wait=True, timeout=30)
        except PoolTimeout as exc:
            self.pool.close()
            raise DatabaseUnavailable("Cannot open connections to PostgreSQL.") from exc

    @contextmanager
    def transaction(self, user_id: str | None = None) -> Iterator[Connection]:
        """One transaction; with ``user_id``, row-level security shows only that user's rows."""
        with self.pool.connection() as conn, conn.transaction():
            if user_id is not None:
                conn.execute("SELECT set_config('footnoted.user_id', %s, true)", (user_id,))
            yield conn

    def memo(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, shared by every thread until the documents change (``memo.py``)."""
        with self.transaction() as db:
            row = db.execute("SELECT value FROM documents_revision").fetchone()
        assert row is not None
        return self._memo.get(int(row["value"]), key, compute)

    def lock(self, conn: Connection, *key: str) -> None:
        """Serialise this transaction with every other one taking the same key."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (lock_key(*key),))

    # -- the dialect of the shared SQL (``sql.py``) -----------------------------------------
    PARAM = "%s"
    BYTEWISE = ' COLLATE "C"'

    def _reading(self, user_id: str | None = None) -> AbstractContextManager[Connection]:
        return self.transaction(user_id)

    def _writing(self, user_id: str | None = None) -> AbstractContextManager[Connection]:
        return self.transaction(user_id)

    def _lock(self, db: Connection, *key: str) -> None:
        self.lock(db, *key)

    def close(self) -> None:
        self.pool.close()
