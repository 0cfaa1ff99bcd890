"""The one way to open (or migrate) the store that the settings ask for."""

from __future__ import annotations

import sqlite3
from types import ModuleType

from ..errors import DatabaseUnavailable, FootnotedError
from ..models import Retention
from ..settings import Settings
from .base import Store


def _postgres(url: str) -> ModuleType:
    if not url.startswith(("postgresql://", "postgres://")):
        raise FootnotedError(
            "FOOTNOTED_DATABASE_URL must be a postgresql:// URL.", code="invalid_setting"
        )
    try:
        from . import postgres
    except ImportError as exc:
        raise FootnotedError(
            "PostgreSQL support needs its extra: pip install 'footnoted[postgres]'",
            code="missing_extra",
        ) from exc
    return postgres


def open_store(settings: Settings, dim: int) -> Store:
    """PostgreSQL when ``database_url`` is set, else SQLite in ``home``."""
    store: Store
    if settings.database_url:
        postgres = _postgres(settings.database_url)
        store = postgres.PostgresStore(settings.database_url, dim, settings.database_pool_size)
    else:
        from .sqlite import SQLiteStore

        settings.home.mkdir(parents=True, exist_ok=True)
        store = SQLiteStore(settings.home / "footnoted.db", dim)
    store.retention = Retention(settings.versions_kept, settings.versions_days)
    return store


def migrate_database(settings: Settings, dim: int) -> list[str]:
    """Apply the configured database's pending migrations; their names."""
    if settings.database_url:
        _postgres(settings.database_url)
        import psycopg

        from .postgres_migrations import migrate

        try:
            return migrate(settings.database_url, dim)
        except psycopg.Error as exc:
            raise DatabaseUnavailable(f"PostgreSQL: {exc}".strip()) from exc
    from .migrations import migrate as migrate_sqlite

    settings.home.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(settings.home / "footnoted.db", isolation_level=None)
    try:
        return migrate_sqlite(db)
    finally:
        db.close()
