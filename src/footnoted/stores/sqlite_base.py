"""SQLite connections shared by every part of the SQLite store.

Reads use one connection per thread; writes go through one lock per process and
SQLite's own file lock across processes (``BEGIN IMMEDIATE`` with a busy timeout).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from .encoding import dumps, loads, now
from .memo import Memo
from .sql import SQL

__all__ = ["SQLiteBase", "dumps", "loads", "now"]

T = TypeVar("T")


class SQLiteBase(SQL):
    """Connection handling: per-thread read connections and serialised write transactions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._memo = Memo()

    @property
    def db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30
            )
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 30000")
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def memo(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, shared by every thread until the documents change (``memo.py``)."""
        revision = self.db.execute("SELECT value FROM documents_revision").fetchone()[0]
        return self._memo.get(int(revision), key, compute)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all or nothing, serialised within and across processes."""
        with self._write_lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # -- the dialect of the shared SQL (``sql.py``) -----------------------------------------
    def _reading(self, user_id: str | None = None) -> AbstractContextManager[sqlite3.Connection]:
        return nullcontext(self.db)  # the query names the user

    def _writing(self, user_id: str | None = None) -> AbstractContextManager[sqlite3.Connection]:
        return self.transaction()

    def close(self) -> None:
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
