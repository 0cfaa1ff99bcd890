"""Collection settings, the refusal log and generated secrets: one SQL implementation for
both backends (``sql.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..records import RefusalEntry
from .encoding import now
from .rows import refusal_from
from .sql import SQL


class SettingsSQL(SQL):
    # -- collection settings -------------------------------------------------------------
    def get_collection_settings(self, collection: str) -> dict[str, Any]:
        with self._reading() as db:
            row = self._run(
                db, "SELECT settings FROM collection_settings WHERE collection = ?", (collection,)
            ).fetchone()
        return {} if row is None else dict(json.loads(row["settings"]))

    def put_collection_settings(self, collection: str, values: dict[str, Any]) -> None:
        with self._writing() as db:
            self._run(
                db,
                "INSERT INTO collection_settings (collection, settings, updated_at) "
                "VALUES (?, ?, ?) ON CONFLICT (collection) DO UPDATE SET "
                "settings = excluded.settings, updated_at = excluded.updated_at",
                (collection, json.dumps(values), now()),
            )

    # -- refusal log -----------------------------------------------------------------------
    def log_refusal(self, entry: RefusalEntry, user_id: str | None = None) -> None:
        with self._writing() as db:
            self._insert_refusal(db, entry, user_id)

    def list_refusals(self, limit: int = 100, collection: str | None = None) -> list[RefusalEntry]:
        """Newest first."""
        where = "WHERE r.collection = ?" if collection is not None else ""
        params: tuple[Any, ...] = (collection,) if collection is not None else ()
        with self._reading() as db:
            rows = self._run(
                db,
                "SELECT r.*, u.name AS user_name FROM refusals r "
                f"LEFT JOIN users u ON u.id = r.user_id {where} ORDER BY r.id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [refusal_from(r) for r in rows]

    # -- secrets ---------------------------------------------------------------------------
    def secret(self, name: str, make: Callable[[], str]) -> str:
        """The named secret, made once and shared by every process using the database."""
        query = "SELECT value FROM secrets WHERE name = ?"
        with self._writing() as db:
            row = self._run(db, query, (name,)).fetchone()
            if row is None:
                self._run(
                    db,
                    "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (name, make()),
                )
                row = self._run(db, query, (name,)).fetchone()
        assert row is not None
        return str(row["value"])

    def set_secret(self, name: str, value: str) -> None:
        """Replace the named secret (or make it) for every process using the database."""
        with self._writing() as db:
            self._run(
                db,
                "INSERT INTO secrets (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )
