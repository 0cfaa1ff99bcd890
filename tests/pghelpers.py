"""A real PostgreSQL 16 with pgvector (the ``pgserver`` wheel) for the tests.

One server runs for the whole test run. Every data directory (``home``) a test makes
gets its own fresh database while a module runs on PostgreSQL, so the helpers that
build a service, start ``footnoted serve`` or run the CLI ask :func:`database_settings`
or :func:`database_env` for the home's database.
"""

from __future__ import annotations

import itertools
import sqlite3
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg


class Postgres:
    """One PostgreSQL server; ``database()`` makes a fresh, empty database.

    Its data lives outside pytest's temporary directories: run as root, pgserver starts
    PostgreSQL as another system user, and pytest makes its own directories private.
    """

    def __init__(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="footnoted-pg-"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
            import pgserver

            self.server = pgserver.get_server(root, cleanup_mode="delete")
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):  # tests only
            self.server.psql(f"ALTER SYSTEM SET {setting} = off;")
        self.server.psql("SELECT pg_reload_conf();")
        self._numbers = itertools.count(1)
        self._by_home: dict[Path, str] = {}
        self._made: list[str] = []

    def database(self) -> str:
        name = f"footnoted_test_{next(self._numbers)}"
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        self._made.append(name)
        return str(self.server.get_uri(name))

    @contextmanager
    def temporary(self) -> Iterator[str]:
        """A fresh database, dropped afterwards."""
        url = self.database()
        name = self._made[-1]
        try:
            yield url
        finally:
            self._made.remove(name)
            self.drop(name)

    def for_home(self, home: Path) -> str:
        home = home.resolve()
        if home not in self._by_home:
            self._by_home[home] = self.database()
        return self._by_home[home]

    def drop(self, *names: str) -> None:
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            for name in names:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def drop_all(self) -> None:
        self.drop(*self._made)
        self._made.clear()
        self._by_home.clear()

    def stop(self) -> None:
        self.drop_all()
        self.server.cleanup()


class _Current:
    postgres: Postgres | None = None  # set while a module runs on PostgreSQL


current = _Current()


def database_settings(home: Path) -> dict[str, Any]:
    """``Settings`` fields that put the home's data in the current backend."""
    pg = current.postgres
    return {} if pg is None else {"database_url": pg.for_home(home)}


def database_env(home: Path) -> dict[str, str]:
    """The same, as environment variables for a ``footnoted`` subprocess."""
    pg = current.postgres
    return {} if pg is None else {"FOOTNOTED_DATABASE_URL": pg.for_home(home)}


class RawDatabase:
    """Plain SQL on a home's database, whichever the backend (``?`` placeholders)."""

    def __init__(self, home: Path) -> None:
        pg = current.postgres
        self.pg: psycopg.Connection[Any] | None = None
        self.lite: sqlite3.Connection | None = None
        if pg is None:
            self.lite = sqlite3.connect(home / "footnoted.db", timeout=30)
            self.lite.execute("PRAGMA busy_timeout = 30000")
        else:
            self.pg = psycopg.connect(pg.for_home(home), autocommit=True)

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self.pg is not None:
            return self.pg.execute(query.replace("?", "%s").encode(), params).fetchall()
        assert self.lite is not None
        return self.lite.execute(query, params).fetchall()

    def intact(self) -> bool:
        if self.lite is None:
            return True  # PostgreSQL recovers from its write-ahead log
        return bool(self.lite.execute("PRAGMA integrity_check").fetchone()[0] == "ok")

    def close(self) -> None:
        for conn in (self.pg, self.lite):
            if conn is not None:
                conn.close()


@contextmanager
def raw_database(home: Path) -> Iterator[RawDatabase]:
    db = RawDatabase(home)
    try:
        yield db
    finally:
        db.close()
