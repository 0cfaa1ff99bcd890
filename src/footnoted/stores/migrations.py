"""Named, recorded SQLite migrations. Append new ones; never edit an applied one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction.

    (``executescript`` would commit first, breaking the migration's atomicity.)
    """
    for statement in script.split(";\n"):
        if statement.strip():
            db.execute(statement)


def m001_documents_and_chunks(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            collection TEXT NOT NULL,
            title TEXT NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
            enabled INTEGER NOT NULL DEFAULT 1,
            error TEXT,
            url TEXT,
            page_count INTEGER,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            embedding_model TEXT,
            text TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (collection, source)
        );
        CREATE INDEX documents_collection ON documents (collection, status, enabled);

        CREATE TABLE chunks (
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            collection TEXT NOT NULL,
            idx INTEGER NOT NULL,
            text TEXT NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL,
            page INTEGER,
            section TEXT,
            token_count INTEGER NOT NULL,
            embedding BLOB NOT NULL
        );
        CREATE INDEX chunks_document ON chunks (document_id, idx);
        CREATE INDEX chunks_collection ON chunks (collection, rowid);

        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, title, section, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        """,
    )


MIGRATIONS: list[Migration] = [m001_documents_and_chunks]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order, each in its own transaction; return their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied: list[str] = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if name in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                db.execute("ROLLBACK")
                continue  # another process applied it meanwhile
            migration(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (name,)
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied
