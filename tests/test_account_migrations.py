"""Tokens issued before tokens had ids keep working after the migration, on both stores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from footnoted import Settings
from footnoted.stores import migrations, postgres_migrations
from footnoted.stores.factory import open_store
from pghelpers import Postgres

OLD_HASH = "ab" * 32


def check_upgraded(settings: Settings) -> None:
    store = open_store(settings, 384)
    try:
        user = store.find_user("old")
        assert user is not None and store.authenticate(OLD_HASH) == user
        [token] = store.list_tokens(user.id)
        assert (token.id, token.kind) == (OLD_HASH[:16], "api")
        assert token.last_used_at is not None  # just used
        store.revoke_token(user.id, token.id)
        assert store.authenticate(OLD_HASH) is None
        assert [e.action for e in store.list_audit()] == ["token_revoked"]
    finally:
        store.close()


def test_sqlite_tokens_from_before_get_ids(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = sqlite3.connect(home / "footnoted.db", isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    steps = migrations.MIGRATIONS.ordered("token_ids_and_audit_log")
    real = [(name, m) for name, m in steps if name not in migrations.MIGRATIONS.why_nothing]
    for number, (name, m) in enumerate(real, 1):  # recorded as they were: m001_…, m002_…
        db.execute("BEGIN")
        m(db)
        db.execute(
            "INSERT INTO _migrations VALUES (?, datetime('now'))", (f"m{number:03d}_{name}",)
        )
        db.execute("COMMIT")
    db.execute("INSERT INTO users VALUES ('u1', 'old', 0, '2024-01-01T00:00:00+00:00')")
    db.execute("INSERT INTO tokens VALUES (?, 'u1', '2024-01-01T00:00:00+00:00')", (OLD_HASH,))
    db.close()
    check_upgraded(Settings(home=home))


def test_postgres_tokens_from_before_get_ids(tmp_path: Path, postgres: Postgres) -> None:
    with postgres.temporary() as url:
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
            for name, m in postgres_migrations.MIGRATIONS.ordered("token_ids_and_audit_log"):
                with db.transaction():
                    m(db, 384)
                    db.execute("INSERT INTO _migrations VALUES (%s, 'then')", (name,))
            db.execute("INSERT INTO users VALUES ('u1', 'old', false, '2024-01-01')")
            db.execute("INSERT INTO tokens VALUES (%s, 'u1', '2024-01-01')", (OLD_HASH,))
        check_upgraded(Settings(home=tmp_path / "home", database_url=url))
