"""The default store: one SQLite file (WAL) plus per-collection vector indexes.

Connections, write transactions and SQLite's dialect live in :mod:`.sqlite_base`; users,
tokens and the rate limit (:mod:`.accounts_sql`), sessions and messages
(:mod:`.chat_sql`), files, settings, refusals and secrets (:mod:`.service_sql`) are SQL
shared with PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..models import Chunk, Document, Progress
from .accounts_sql import AccountsSQL
from .base import StoredChunk, StoredFile, Vector
from .chat_sql import ChatSQL
from .encoding import pack_sentences
from .keywords import fts5_match, phrase, plan
from .migrations import migrate
from .rows import (
    PROGRESS_QUERY,
    chunk_from,
    document_from,
    no_document,
    progress_by_document,
    progress_params,
    progress_upsert,
    stored_chunks,
)
from .service_sql import ServiceDataSQL
from .sqlite_base import SQLiteBase, now
from .vectors import CollectionIndex, VectorIndexes, fetch_depth

_DOC_COLUMNS = (
    "id, collection, title, source, kind, content_hash, size, status, enabled, error, url, "
    "page_count, chunk_count, embedding_model, created_at, updated_at"
)
_LIVE = "d.status = 'ready' AND d.enabled = 1"


class SQLiteStore(AccountsSQL, ChatSQL, ServiceDataSQL, SQLiteBase):
    """Documents, chunks and retrieval here; users, chat and service data in the mixins."""

    def __init__(self, path: Path, dim: int) -> None:
        super().__init__(path)
        migrate(self.db)
        (path.parent / "vectors").mkdir(exist_ok=True)
        self.vectors = VectorIndexes(path.parent / "vectors", dim)

    # -- documents ---------------------------------------------------------------------
    def get_document(self, document_id: str) -> Document:
        row = self.db.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = ?", (document_id,)
        ).fetchone()
        if row is None:
            raise no_document(document_id)
        return document_from(row)

    def find_document(self, collection: str, source: str) -> Document | None:
        row = self.db.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE collection = ? AND source = ?",
            (collection, source),
        ).fetchone()
        return None if row is None else document_from(row)

    def list_documents(self, collection: str | None = None) -> list[Document]:
        sql = f"SELECT {_DOC_COLUMNS} FROM documents"
        params: tuple[Any, ...] = ()
        if collection is not None:
            sql += " WHERE collection = ?"
            params = (collection,)
        rows = self.db.execute(sql + " ORDER BY created_at, title", params).fetchall()
        return [document_from(r) for r in rows]

    def collections(self) -> list[str]:
        rows = self.db.execute("SELECT DISTINCT collection FROM documents ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def save_document(
        self,
        document: Document,
        text: str,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector] = (),
    ) -> None:
        stamp = now()
        packed = pack_sentences(sentences, len(chunks))
        with self.transaction() as db:
            old = self.find_document(document.collection, document.source)
            if old is not None:
                self._delete(db, old.id, keep_file=old.id == document.id)
            db.execute(
                f"INSERT INTO documents ({_DOC_COLUMNS}, text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document.id, document.collection, document.title, document.source,
                    document.kind, document.content_hash, document.size, document.status,
                    int(document.enabled), document.error, document.url, document.page_count,
                    len(chunks), document.embedding_model,
                    old.created_at if old else stamp, stamp, text,
                ),
            )  # fmt: skip
            for chunk, vector, sentence_vectors in zip(chunks, vectors, packed, strict=True):
                cur = db.execute(
                    "INSERT INTO chunks (id, document_id, collection, idx, text, char_start, "
                    "char_end, page, section, token_count, embedding, sentence_embeddings) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chunk.id, chunk.document_id, document.collection, chunk.index, chunk.text,
                        chunk.char_start, chunk.char_end, chunk.page, chunk.section,
                        chunk.token_count, np.asarray(vector, dtype=np.float32).tobytes(),
                        sentence_vectors,
                    ),
                )  # fmt: skip
                db.execute(
                    "INSERT INTO chunks_fts (rowid, text, title, section) VALUES (?, ?, ?, ?)",
                    (cur.lastrowid, chunk.text, document.title, chunk.section or ""),
                )

    def _delete(self, db: sqlite3.Connection, document_id: str, keep_file: bool = False) -> None:
        db.execute(
            "DELETE FROM chunks_fts WHERE rowid IN "
            "(SELECT rowid FROM chunks WHERE document_id = ?)",
            (document_id,),
        )
        db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        db.execute("DELETE FROM documents WHERE id = ?", (document_id,))
        db.execute("DELETE FROM document_progress WHERE document_id = ?", (document_id,))
        if not keep_file:
            db.execute("DELETE FROM document_files WHERE document_id = ?", (document_id,))

    def begin_upload(self, document: Document, file: StoredFile) -> None:
        """Record an uploaded file and its document (status ``processing``) in one transaction.

        A failed or unfinished earlier upload of the same content is replaced.
        """
        stamp = now()
        with self.transaction() as db:
            old = self.find_document(document.collection, document.source)
            for stale in {old.id if old else None, document.id} - {None}:
                self._delete(db, str(stale))
            db.execute(
                f"INSERT INTO documents ({_DOC_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'processing', 1, NULL, ?, NULL, 0, NULL, ?, ?)",
                (
                    document.id, document.collection, document.title, document.source,
                    document.kind, document.content_hash, document.size, document.url,
                    stamp, stamp,
                ),
            )  # fmt: skip
            db.execute(
                "INSERT INTO document_files (document_id, filename, title, media_type, data, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (document.id, file.filename, file.title, file.media_type, file.data, stamp),
            )

    def set_status(self, document_id: str, status: str, error: str | None = None) -> Document:
        """Mark a document ``processing`` or ``failed`` (with a readable error); either way
        its progress starts over."""
        with self.transaction() as db:
            self.get_document(document_id)
            db.execute(
                "UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ?",
                (status, error, now(), document_id),
            )
            db.execute("DELETE FROM document_progress WHERE document_id = ?", (document_id,))
        return self.get_document(document_id)

    def set_progress(self, document_id: str, progress: Progress) -> None:
        """Record where a ``processing`` document's work stands (nothing once it is not)."""
        with self.transaction() as db:
            db.execute(progress_upsert(self.PARAM), progress_params(document_id, progress))

    def progress(self) -> dict[str, Progress]:
        """The progress of every ``processing`` document that has one, by document id."""
        rows = self.db.execute(PROGRESS_QUERY).fetchall()
        return progress_by_document(rows)

    def fail_interrupted(self, error: str) -> int:
        """Mark documents left ``processing`` by a stopped server as failed."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE documents SET status = 'failed', error = ?, updated_at = ? "
                "WHERE status = 'processing'",
                (error, now()),
            )
            db.execute("DELETE FROM document_progress")
        return cur.rowcount

    def set_enabled(self, document_id: str, enabled: bool) -> Document:
        with self.transaction() as db:
            self.get_document(document_id)
            db.execute(
                "UPDATE documents SET enabled = ?, updated_at = ? WHERE id = ?",
                (int(enabled), now(), document_id),
            )
        return self.get_document(document_id)

    def delete_document(self, document_id: str) -> None:
        with self.transaction() as db:
            self.get_document(document_id)
            self._delete(db, document_id)

    def document_text(self, document_id: str) -> str:
        row = self.db.execute("SELECT text FROM documents WHERE id = ?", (document_id,)).fetchone()
        if row is None:
            raise no_document(document_id)
        return str(row[0])

    def document_chunks(self, document_id: str) -> list[Chunk]:
        self.get_document(document_id)
        rows = self.db.execute(
            "SELECT * FROM chunks WHERE document_id = ? ORDER BY idx", (document_id,)
        ).fetchall()
        return [chunk_from(r) for r in rows]

    # -- retrieval ---------------------------------------------------------------------
    def count_chunks(self, collection: str) -> int:
        def count() -> int:
            row = self.db.execute(
                "SELECT coalesce(sum(chunk_count), 0) FROM documents d WHERE collection = ? AND "
                + _LIVE,
                (collection,),
            ).fetchone()
            return int(row[0])

        return self.memo(("count_chunks", collection), count)

    def without_sentence_vectors(self, collection: str | None = None) -> set[str]:
        sql = "SELECT DISTINCT document_id FROM chunks WHERE sentence_embeddings IS NULL"
        params: tuple[str, ...] = ()
        if collection is not None:
            sql += " AND collection = ?"
            params = (collection,)
        return {r[0] for r in self.db.execute(sql, params).fetchall()}

    def embedding_models(self, collection: str) -> set[str]:
        def models() -> frozenset[str]:
            rows = self.db.execute(
                "SELECT DISTINCT embedding_model FROM documents WHERE collection = ? "
                "AND status = 'ready'",
                (collection,),
            ).fetchall()
            return frozenset(r[0] for r in rows if r[0])

        return set(self.memo(("embedding_models", collection), models))

    def refresh_index(self, collection: str, save: bool = True) -> None:
        self._dense_index(collection, save)

    def _dense_index(self, collection: str, save: bool = False) -> CollectionIndex:
        db = self.db
        newest, total = self.memo(
            ("chunk_watermark", collection),
            lambda: tuple(
                db.execute(
                    "SELECT coalesce(max(rowid), 0), count(*) FROM chunks WHERE collection = ?",
                    (collection,),
                ).fetchone()
            ),
        )
        return self.vectors.sync(
            collection,
            newest,
            total,
            lambda after: db.execute(
                "SELECT rowid, embedding FROM chunks WHERE collection = ? AND rowid > ? "
                "ORDER BY rowid",
                (collection, after),
            ),
            save,
        )

    def dense_search(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        index = self._dense_index(collection)
        want = fetch_depth(k)
        while True:
            hits = index.search(vector, want)
            ranked = self._live_hits(hits[:k])  # usually all live: look up only those
            if len(ranked) < k:
                ranked = self._live_hits(hits)
            if len(ranked) >= k or len(hits) < want:
                return ranked[:k]
            want *= 4  # disabled or stale entries crowded the top: look deeper

    def _live_hits(self, hits: list[tuple[int, float]]) -> list[tuple[str, float]]:
        if not hits:
            return []
        scores = dict(hits)
        marks = ",".join("?" * len(scores))
        rows = self.db.execute(
            f"SELECT c.rowid, c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE c.rowid IN ({marks}) AND {_LIVE}",
            list(scores),
        ).fetchall()
        return sorted(((r[1], scores[r[0]]) for r in rows), key=lambda t: -t[1])

    def keyword_search(self, collection: str, terms: Sequence[str], k: int) -> list[str]:
        """BM25 over the full-text index first, then live rows of the collection.

        Ranking inside FTS5 alone, and joining only its best rows, is several times
        faster on large indexes than filtering every match; when other collections or
        disabled documents crowd the top, it looks deeper. Common terms are left out
        when they would make the ranking slow (``keywords.plan``).
        """
        if not terms:
            return []
        query = fts5_match(plan(terms, self._term_rows))
        want = k
        while True:
            rowids = [
                r[0]
                for r in self.db.execute(
                    "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
                    "ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.5) LIMIT ?",
                    (query, want),
                )
            ]
            marks = ",".join("?" * len(rowids))
            live = dict(
                self.db.execute(
                    f"SELECT c.rowid, c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
                    f"WHERE c.rowid IN ({marks}) AND c.collection = ? AND {_LIVE}",
                    [*rowids, collection],
                ).fetchall()
            )
            ranked = [live[r] for r in rowids if r in live]
            if len(ranked) >= k or len(rowids) < want:
                return ranked[:k]
            want *= 4

    def _term_rows(self, term: str, cap: int) -> int:
        def count() -> int:
            row = self.db.execute(
                "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
                (phrase(term), cap),
            ).fetchone()
            return int(row[0])

        return self.memo(("term_rows", term, cap), count)

    def fetch_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            f"SELECT c.*, d.title AS document_title, d.url AS document_url FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks}) AND {_LIVE}",
            list(chunk_ids),
        ).fetchall()
        return stored_chunks(
            rows, [np.frombuffer(r["embedding"], dtype=np.float32) for r in rows], chunk_ids
        )
