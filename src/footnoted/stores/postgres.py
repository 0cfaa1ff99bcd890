"""The PostgreSQL store: pgvector (HNSW, cosine) for dense search, tsvector for keywords.

Connections, transactions, the app role and PostgreSQL's dialect live in
:mod:`.postgres_base`; users, tokens and the rate limit (:mod:`.accounts_sql`), sessions
and messages (:mod:`.chat_sql`), files, settings, refusals and secrets
(:mod:`.service_sql`) are SQL shared with SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg import sql

from ..errors import FootnotedError
from ..models import Chunk, Document, Progress
from .accounts_sql import AccountsSQL
from .base import StoredChunk, StoredFile, Vector
from .chat_sql import ChatSQL
from .encoding import pack_sentences
from .keywords import plan
from .postgres_base import Connection, PostgresBase, now
from .postgres_search import LIVE, dense_search, keyword_search, term_rows
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

_DOC_COLUMNS = (
    "id, collection, title, source, kind, content_hash, size, status, enabled, error, url, "
    "page_count, chunk_count, embedding_model, created_at, updated_at"
)
TERMS = (  # chunk text weighs most; the document title and the section path less
    "setweight(to_tsvector('english', %(text)s::text), 'A') || setweight(to_tsvector("
    "'english', %(title)s::text || ' ' || coalesce(%(section)s::text, '')), 'B')"
)


class PostgresStore(AccountsSQL, ChatSQL, ServiceDataSQL, PostgresBase):
    """Documents, chunks and retrieval here; users, chat and service data in the mixins."""

    def __init__(self, url: str, dim: int, pool_size: int = 10) -> None:
        super().__init__(url, dim, pool_size)
        with self.transaction() as db:
            row = db.execute(
                "SELECT atttypmod AS dim FROM pg_attribute "
                "WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
            ).fetchone()
            version = db.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
        if row is not None and row["dim"] != dim:
            self.close()
            raise FootnotedError(
                f"The database holds {row['dim']}-dimensional vectors but the embedding "
                f"model makes {dim}: use a new database for this model.",
                code="embedding_dimension_mismatch",
            )
        parts = str(version["extversion"] if version else "0").split(".")
        self.iterative_scan = tuple(int(p) for p in parts[:2]) >= (0, 8)

    # -- documents ---------------------------------------------------------------------
    def get_document(self, document_id: str) -> Document:
        with self.transaction() as db:
            return self._get(db, document_id)

    def _get(self, db: Connection, document_id: str) -> Document:
        row = db.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = %s", (document_id,)
        ).fetchone()
        if row is None:
            raise no_document(document_id)
        return document_from(row)

    def _find(self, db: Connection, collection: str, source: str) -> Document | None:
        row = db.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE collection = %s AND source = %s",
            (collection, source),
        ).fetchone()
        return None if row is None else document_from(row)

    def find_document(self, collection: str, source: str) -> Document | None:
        with self.transaction() as db:
            return self._find(db, collection, source)

    def list_documents(self, collection: str | None = None) -> list[Document]:
        query = f"SELECT {_DOC_COLUMNS} FROM documents"
        params: tuple[Any, ...] = ()
        if collection is not None:
            query += " WHERE collection = %s"
            params = (collection,)
        with self.transaction() as db:
            rows = db.execute(
                query + ' ORDER BY created_at COLLATE "C", title COLLATE "C"', params
            ).fetchall()
        return [document_from(r) for r in rows]

    def collections(self) -> list[str]:
        with self.transaction() as db:
            rows = db.execute(
                'SELECT DISTINCT collection COLLATE "C" AS name FROM documents ORDER BY 1'
            ).fetchall()
        return [r["name"] for r in rows]

    def save_document(
        self,
        document: Document,
        text: str,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector] = (),
    ) -> None:
        stamp = now()
        with self.transaction() as db:
            self.lock(db, "document", document.collection, document.source)
            old = self._find(db, document.collection, document.source)
            if old is not None:
                self._delete(db, old.id, keep_file=old.id == document.id)
            db.execute(
                f"INSERT INTO documents ({_DOC_COLUMNS}, text) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    document.id, document.collection, document.title, document.source,
                    document.kind, document.content_hash, document.size, document.status,
                    document.enabled, document.error, document.url, document.page_count,
                    len(chunks), document.embedding_model,
                    old.created_at if old else stamp, stamp, text,
                ),
            )  # fmt: skip
            self._insert_chunks(db, document, chunks, vectors, sentences)

    def _insert_chunks(
        self,
        db: Connection,
        document: Document,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector],
    ) -> None:
        packed = pack_sentences(sentences, len(chunks))
        rows = [
            {
                "id": c.id, "document_id": c.document_id, "collection": document.collection,
                "idx": c.index, "text": c.text, "char_start": c.char_start,
                "char_end": c.char_end, "page": c.page, "section": c.section,
                "token_count": c.token_count, "title": document.title,
                "embedding": np.asarray(v, dtype=np.float32), "sentence_embeddings": p,
            }
            for c, v, p in zip(chunks, vectors, packed, strict=True)
        ]  # fmt: skip
        with db.cursor() as cur:
            cur.executemany(
                "INSERT INTO chunks (id, document_id, collection, idx, text, char_start, "
                "char_end, page, section, token_count, embedding, sentence_embeddings, terms) "
                "VALUES (%(id)s, %(document_id)s, %(collection)s, %(idx)s, %(text)s, "
                "%(char_start)s, %(char_end)s, %(page)s, %(section)s, %(token_count)s, "
                f"%(embedding)s, %(sentence_embeddings)s, {TERMS})",
                rows,
            )

    def _delete(self, db: Connection, document_id: str, keep_file: bool = False) -> None:
        db.execute("DELETE FROM chunks WHERE document_id = %s", (document_id,))
        db.execute("DELETE FROM documents WHERE id = %s", (document_id,))
        db.execute("DELETE FROM document_progress WHERE document_id = %s", (document_id,))
        if not keep_file:
            db.execute("DELETE FROM document_files WHERE document_id = %s", (document_id,))

    def begin_upload(self, document: Document, file: StoredFile) -> None:
        """Record an uploaded file and its document (status ``processing``) in one transaction.

        A failed or unfinished earlier upload of the same content is replaced.
        """
        stamp = now()
        with self.transaction() as db:
            self.lock(db, "document", document.collection, document.source)
            old = self._find(db, document.collection, document.source)
            for stale in {old.id if old else None, document.id} - {None}:
                self._delete(db, str(stale))
            db.execute(
                f"INSERT INTO documents ({_DOC_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, "
                "'processing', TRUE, NULL, %s, NULL, 0, NULL, %s, %s)",
                (
                    document.id, document.collection, document.title, document.source,
                    document.kind, document.content_hash, document.size, document.url,
                    stamp, stamp,
                ),
            )  # fmt: skip
            db.execute(
                "INSERT INTO document_files (document_id, filename, title, media_type, data, "
                "created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                (document.id, file.filename, file.title, file.media_type, file.data, stamp),
            )

    def _update(self, document_id: str, assignments: str, params: tuple[Any, ...]) -> Document:
        with self.transaction() as db:
            return self._updated(db, document_id, assignments, params)

    def _updated(
        self, db: Connection, document_id: str, assignments: str, params: tuple[Any, ...]
    ) -> Document:
        row = db.execute(
            f"UPDATE documents SET {assignments}, updated_at = %s WHERE id = %s "
            f"RETURNING {_DOC_COLUMNS}",
            (*params, now(), document_id),
        ).fetchone()
        if row is None:
            raise no_document(document_id)
        return document_from(row)

    def set_status(self, document_id: str, status: str, error: str | None = None) -> Document:
        """Mark a document ``processing`` or ``failed`` (with a readable error); either way
        its progress starts over."""
        with self.transaction() as db:
            db.execute("DELETE FROM document_progress WHERE document_id = %s", (document_id,))
            return self._updated(db, document_id, "status = %s, error = %s", (status, error))

    def set_progress(self, document_id: str, progress: Progress) -> None:
        """Record where a ``processing`` document's work stands (nothing once it is not)."""
        with self.transaction() as db:
            db.execute(progress_upsert(self.PARAM), progress_params(document_id, progress))

    def progress(self) -> dict[str, Progress]:
        """The progress of every ``processing`` document that has one, by document id."""
        with self.transaction() as db:
            rows = db.execute(PROGRESS_QUERY).fetchall()
        return progress_by_document(rows)

    def fail_interrupted(self, error: str) -> int:
        """Mark documents left ``processing`` by a stopped server as failed."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE documents SET status = 'failed', error = %s, updated_at = %s "
                "WHERE status = 'processing'",
                (error, now()),
            )
            db.execute("DELETE FROM document_progress")
            return cur.rowcount

    def set_enabled(self, document_id: str, enabled: bool) -> Document:
        return self._update(document_id, "enabled = %s", (enabled,))

    def delete_document(self, document_id: str) -> None:
        with self.transaction() as db:
            self._get(db, document_id)
            self._delete(db, document_id)

    def document_text(self, document_id: str) -> str:
        with self.transaction() as db:
            row = db.execute("SELECT text FROM documents WHERE id = %s", (document_id,)).fetchone()
        if row is None:
            raise no_document(document_id)
        return str(row["text"])

    def document_chunks(self, document_id: str) -> list[Chunk]:
        with self.transaction() as db:
            self._get(db, document_id)
            rows = db.execute(
                "SELECT * FROM chunks WHERE document_id = %s ORDER BY idx", (document_id,)
            ).fetchall()
        return [chunk_from(r) for r in rows]

    # -- retrieval ---------------------------------------------------------------------
    def count_chunks(self, collection: str) -> int:
        def count() -> int:
            with self.transaction() as db:
                return self._count_live(db, collection)

        return self.memo(("count_chunks", collection), count)

    def _count_live(self, db: Connection, collection: str) -> int:
        row = db.execute(
            f"SELECT coalesce(sum(chunk_count), 0) AS n FROM documents d "
            f"WHERE collection = %s AND {LIVE}",
            (collection,),
        ).fetchone()
        return int(row["n"]) if row else 0

    def without_sentence_vectors(self, collection: str | None = None) -> set[str]:
        query = "SELECT DISTINCT document_id FROM chunks WHERE sentence_embeddings IS NULL"
        params: tuple[str, ...] = ()
        if collection is not None:
            query += " AND collection = %s"
            params = (collection,)
        with self.transaction() as db:
            return {r["document_id"] for r in db.execute(query, params).fetchall()}

    def embedding_models(self, collection: str) -> set[str]:
        def models() -> frozenset[str]:
            with self.transaction() as db:
                rows = db.execute(
                    "SELECT DISTINCT embedding_model FROM documents WHERE collection = %s "
                    "AND status = 'ready'",
                    (collection,),
                ).fetchall()
            return frozenset(r["embedding_model"] for r in rows if r["embedding_model"])

        return set(self.memo(("embedding_models", collection), models))

    def refresh_index(self, collection: str, save: bool = True) -> None:
        """Nothing to do: pgvector keeps its HNSW index current as rows are written."""

    def dense_search(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        query = np.asarray(vector, dtype=np.float32)
        with self.transaction() as db:
            hits = dense_search(db, collection, query, k, self.iterative_scan)
            if len(hits) < k and self._count_live(db, collection) > len(hits):
                hits = dense_search(db, collection, query, k, exact=True)
        return hits

    def keyword_search(self, collection: str, terms: Sequence[str], k: int) -> list[str]:
        if not terms:
            return []
        chosen = plan(terms, self._term_rows)
        with self.transaction() as db:
            return keyword_search(db, collection, chosen, k)

    def _term_rows(self, term: str, cap: int) -> int:
        def count() -> int:
            with self.transaction() as db:
                return term_rows(db, term, cap)

        return self.memo(("term_rows", term, cap), count)

    def fetch_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        if not chunk_ids:
            return []
        with self.transaction() as db:
            # Binary results: a vector arrives as packed floats, not as text to parse
            # (2 ms instead of 10 for 80 chunks).
            rows = db.execute(
                sql.SQL(
                    "SELECT c.id, c.document_id, c.idx, c.text, c.char_start, c.char_end, "
                    "c.page, c.section, c.token_count, c.embedding, c.sentence_embeddings, "
                    "d.title AS document_title, d.url AS document_url FROM chunks c "
                    "JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(%s) AND {live}"
                ).format(live=sql.SQL(LIVE)),
                (list(chunk_ids),),
                binary=True,
            ).fetchall()
        return stored_chunks(
            rows, [r["embedding"].to_numpy().astype(np.float32) for r in rows], chunk_ids
        )
