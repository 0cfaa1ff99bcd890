"""Conversations stored before sessions had an origin stay in the web UI's list, on both
stores, and new ones say where they began."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from footnoted import Settings
from footnoted.stores import migrations, postgres_migrations
from footnoted.stores.factory import open_store
from pghelpers import Postgres

STAMP = "2024-01-01T00:00:00+00:00"
OLD_ROWS = [
    f"INSERT INTO users (id, name, is_admin, created_at) VALUES ('u1', 'old', false, '{STAMP}')",
    "INSERT INTO sessions (id, user_id, title, created_at, updated_at, message_count) "
    f"VALUES ('s1', 'u1', 'Refund?', '{STAMP}', '{STAMP}', 2)",
]


def check_upgraded(settings: Settings) -> None:
    store = open_store(settings, 384)
    try:
        [old] = store.list_sessions("u1", origin="web")
        assert (old.id, old.origin, old.title) == ("s1", "web", "Refund?")
        assert store.list_sessions("u1", origin="api") == []
    finally:
        store.close()


def test_sqlite_sessions_from_before_are_web_ones(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = sqlite3.connect(home / "footnoted.db", isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, m in migrations.MIGRATIONS.ordered("session_origin"):
        db.execute("BEGIN")
        m(db)
        db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", (name,))
        db.execute("COMMIT")
    for row in OLD_ROWS:
        db.execute(row.replace("false", "0"))
    db.close()
    check_upgraded(Settings(home=home))


def test_postgres_sessions_from_before_are_web_ones(tmp_path: Path, postgres: Postgres) -> None:
    with postgres.temporary() as url:
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
            for name, m in postgres_migrations.MIGRATIONS.ordered("session_origin"):
                with db.transaction():
                    m(db, 384)
                    db.execute("INSERT INTO _migrations VALUES (%s, 'then')", (name,))
            for row in OLD_ROWS:
                db.execute(row)
        check_upgraded(Settings(home=tmp_path / "home", database_url=url))
