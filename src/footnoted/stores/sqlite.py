"""The default store: one SQLite file (WAL) plus per-collection vector indexes.

Connections, write transactions and SQLite's dialect live in :mod:`.sqlite_base`; the
document library (:mod:`.library_sql`), users, tokens and the rate limit
(:mod:`.accounts_sql`), sessions and messages (:mod:`.chat_sql`), settings, refusals and
secrets (:mod:`.settings_sql`) are SQL shared with PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..models import Chunk, Document
from .accounts_sql import AccountsSQL
from .base import StoredChunk, Vector
from .chat_sql import ChatSQL
from .encoding import pack_sentences
from .feedback_sql import FeedbackSQL
from .keywords import fts5_match, phrase, plan
from .library_sql import LIVE, LibrarySQL
from .migrations import migrate
from .rows import keyword_context, rows_json, stored_chunks
from .settings_sql import SettingsSQL
from .signin_sql import SignInSQL
from .sqlite_base import SQLiteBase
from .vectors import CollectionIndex, VectorIndexes, fetch_depth


class SQLiteStore(
    LibrarySQL, AccountsSQL, ChatSQL, FeedbackSQL, SignInSQL, SettingsSQL, SQLiteBase
):
    """The library's chunks and their search here; the rest is SQL shared with PostgreSQL."""

    def __init__(self, path: Path, dim: int) -> None:
        super().__init__(path)
        migrate(self.db)
        (path.parent / "vectors").mkdir(exist_ok=True)
        self.vectors = VectorIndexes(path.parent / "vectors", dim)

    # -- the library's chunks: vectors in the row, keywords in FTS5 ---------------------------
    def _insert_chunks(
        self,
        db: sqlite3.Connection,
        document: Document,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector],
    ) -> None:
        packed = pack_sentences(sentences, len(chunks))
        for chunk, vector, sentence_vectors in zip(chunks, vectors, packed, strict=True):
            cur = db.execute(
                "INSERT INTO chunks (id, document_id, collection, idx, text, char_start, "
                "char_end, page, section, token_count, embedding, sentence_embeddings, header, "
                "rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    chunk.id, chunk.document_id, document.collection, chunk.index, chunk.text,
                    chunk.char_start, chunk.char_end, chunk.page, chunk.section,
                    chunk.token_count, np.asarray(vector, dtype=np.float32).tobytes(),
                    sentence_vectors, chunk.header, rows_json(chunk),
                ),
            )  # fmt: skip
            db.execute(  # a table's header is searched as its rows' section is
                "INSERT INTO chunks_fts (rowid, text, title, section) VALUES (?, ?, ?, ?)",
                (cur.lastrowid, chunk.text, document.title, keyword_context(chunk)),
            )

    def _delete_chunks(self, db: sqlite3.Connection, document_id: str) -> None:
        db.execute(
            "DELETE FROM chunks_fts WHERE rowid IN "
            "(SELECT rowid FROM chunks WHERE document_id = ?)",
            (document_id,),
        )
        db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))

    # -- retrieval ---------------------------------------------------------------------
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
            f"WHERE c.rowid IN ({marks}) AND {LIVE}",
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
                    f"WHERE c.rowid IN ({marks}) AND c.collection = ? AND {LIVE}",
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
            "SELECT c.*, d.title AS document_title, d.url AS document_url, "
            "d.version AS document_version FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks}) AND {LIVE}",
            list(chunk_ids),
        ).fetchall()
        return stored_chunks(
            rows, [np.frombuffer(r["embedding"], dtype=np.float32) for r in rows], chunk_ids
        )
