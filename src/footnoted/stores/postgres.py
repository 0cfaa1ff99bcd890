"""The PostgreSQL store: pgvector (HNSW, cosine) for dense search, tsvector for keywords.

Connections, transactions, the app role and PostgreSQL's dialect live in
:mod:`.postgres_base`; the document library (:mod:`.library_sql`), users, tokens and the
rate limit (:mod:`.accounts_sql`), sessions and messages (:mod:`.chat_sql`), settings,
refusals and secrets (:mod:`.settings_sql`) are SQL shared with SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from psycopg import sql

from ..errors import FootnotedError
from ..models import Chunk, Document
from .accounts_sql import AccountsSQL
from .base import StoredChunk, Vector
from .chat_sql import ChatSQL
from .encoding import pack_sentences
from .feedback_sql import FeedbackSQL
from .keywords import plan
from .library_sql import LIVE, LibrarySQL
from .postgres_base import Connection, PostgresBase
from .postgres_search import dense_search, keyword_search, term_rows
from .rows import keyword_context, rows_json, stored_chunks
from .settings_sql import SettingsSQL
from .signin_sql import SignInSQL

TERMS = (  # chunk text weighs most; the title, section path and table header less
    "setweight(to_tsvector('english', %(text)s::text), 'A') || setweight(to_tsvector("
    "'english', %(title)s::text || ' ' || %(context)s::text), 'B')"
)


class PostgresStore(
    LibrarySQL, AccountsSQL, ChatSQL, FeedbackSQL, SignInSQL, SettingsSQL, PostgresBase
):
    """The library's chunks and their search here; the rest is SQL shared with SQLite."""

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

    # -- the library's chunks: vectors in pgvector, keywords in a tsvector -------------------
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
                "context": keyword_context(c), "header": c.header, "rows": rows_json(c),
                "token_count": c.token_count, "title": document.title,
                "embedding": np.asarray(v, dtype=np.float32), "sentence_embeddings": p,
            }
            for c, v, p in zip(chunks, vectors, packed, strict=True)
        ]  # fmt: skip
        with db.cursor() as cur:
            cur.executemany(
                "INSERT INTO chunks (id, document_id, collection, idx, text, char_start, "
                "char_end, page, section, token_count, embedding, sentence_embeddings, header, "
                "rows, terms) VALUES (%(id)s, %(document_id)s, %(collection)s, %(idx)s, "
                "%(text)s, %(char_start)s, %(char_end)s, %(page)s, %(section)s, "
                "%(token_count)s, %(embedding)s, %(sentence_embeddings)s, %(header)s, "
                f"%(rows)s, {TERMS})",
                rows,
            )

    # -- retrieval ---------------------------------------------------------------------
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
                    "c.page, c.section, c.token_count, c.header, c.rows, c.embedding, "
                    "c.sentence_embeddings, "
                    "d.title AS document_title, d.url AS document_url, "
                    "d.version AS document_version FROM chunks c "
                    "JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(%s) AND {live}"
                ).format(live=sql.SQL(LIVE)),
                (list(chunk_ids),),
                binary=True,
            ).fetchall()
        return stored_chunks(
            rows, [r["embedding"].to_numpy().astype(np.float32) for r in rows], chunk_ids
        )
