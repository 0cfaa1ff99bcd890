"""Uploaded files, collection settings, the refusal log and generated secrets (SQLite)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from ..records import RefusalEntry
from .base import StoredFile
from .rows import refusal_from
from .sqlite_base import SQLiteBase, now


def insert_refusal(db: sqlite3.Connection, entry: RefusalEntry, user_id: str | None) -> None:
    db.execute(
        "INSERT INTO refusals (user_id, question, collection, max_score, threshold, reason, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            user_id, entry.question, entry.collection, entry.max_score, entry.threshold,
            entry.reason, entry.created_at or now(),
        ),
    )  # fmt: skip


class ServiceDataMixin(SQLiteBase):
    # -- original files ------------------------------------------------------------------
    def get_file(self, document_id: str) -> StoredFile | None:
        row = self.db.execute(
            "SELECT filename, media_type, data, title FROM document_files WHERE document_id = ?",
            (document_id,),
        ).fetchone()
        if row is None:
            return None
        return StoredFile(row["filename"], row["media_type"], bytes(row["data"]), row["title"])

    # -- collection settings -------------------------------------------------------------
    def get_collection_settings(self, collection: str) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT settings FROM collection_settings WHERE collection = ?", (collection,)
        ).fetchone()
        return {} if row is None else dict(json.loads(row[0]))

    def put_collection_settings(self, collection: str, values: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO collection_settings (collection, settings, updated_at) "
                "VALUES (?, ?, ?) ON CONFLICT (collection) DO UPDATE SET "
                "settings = excluded.settings, updated_at = excluded.updated_at",
                (collection, json.dumps(values), now()),
            )

    # -- refusal log -----------------------------------------------------------------------
    def log_refusal(self, entry: RefusalEntry, user_id: str | None = None) -> None:
        with self.transaction() as db:
            insert_refusal(db, entry, user_id)

    def list_refusals(self, limit: int = 100, collection: str | None = None) -> list[RefusalEntry]:
        """Newest first."""
        where = "WHERE r.collection = ?" if collection is not None else ""
        params: tuple[Any, ...] = (collection,) if collection is not None else ()
        rows = self.db.execute(
            "SELECT r.*, u.name AS user_name FROM refusals r "
            f"LEFT JOIN users u ON u.id = r.user_id {where} ORDER BY r.id DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [refusal_from(r) for r in rows]

    # -- secrets ---------------------------------------------------------------------------
    def secret(self, name: str, make: Callable[[], str]) -> str:
        """The named secret, made once and shared by every process using the database."""
        row = self.db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
        if row is not None:
            return str(row[0])
        with self.transaction() as db:
            db.execute(
                "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (name, make()),
            )
            return str(
                db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0]
            )

    def set_secret(self, name: str, value: str) -> None:
        """Replace the named secret (or make it) for every process using the database."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO secrets (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )
