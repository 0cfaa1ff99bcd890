"""``bench index`` on PostgreSQL: the same real vectors in a pgvector HNSW index.

The vectors (the real chunks, padded with sentence vectors up to the largest size asked
for, as in the in-process rows) go into a scratch table (dropped afterwards) with an HNSW
index (cosine) built with each of ``BUILDS`` in turn (pgvector's defaults, then the
chunks table's since migration m010), and each question is searched as
``postgres_search.dense_search`` searches (retrieval's depth of 50) at several
``hnsw.ef_search`` values (the second: the one it sets), against the exact order from a
sequential scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from ..retrieval import DEPTH
from ..stores.postgres_search import EF_SEARCH_MAX, ef_search
from .index import Corpus, K, Matrix, compare, matrix_of, share
from .report import Row

Progress = Callable[[str, int, int], None]
TABLE = "footnoted_bench_vectors"
EF = (132, ef_search(DEPTH), EF_SEARCH_MAX)  # 132: what was searched before m010
BUILDS = ((16, 64), (32, 256))  # (m, ef_construction): pgvector's defaults; migration m010


def pgvector_rows(
    url: str, corpus: Corpus, queries: Matrix, size: int, progress: Progress
) -> list[Row]:
    vectors = matrix_of(corpus, size)
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(db)
        db.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(TABLE)))
        db.execute(
            sql.SQL("CREATE TABLE {} (id integer PRIMARY KEY, embedding vector({}))").format(
                sql.Identifier(TABLE), sql.Literal(vectors.shape[1])
            )
        )
        try:
            return _measure(db, corpus, vectors, queries, progress)
        finally:
            db.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(TABLE)))


def _measure(
    db: psycopg.Connection[tuple[Any, ...]], corpus: Corpus, vectors: Matrix, queries: Matrix,
    progress: Progress,
) -> list[Row]:  # fmt: skip
    table = sql.Identifier(TABLE)
    copy = sql.SQL("COPY {} (id, embedding) FROM STDIN WITH (FORMAT BINARY)").format(table)
    with db.cursor().copy(copy) as writer:
        writer.set_types(["int4", "vector"])
        for i, vector in enumerate(vectors):
            writer.write_row((i, vector))
    search = sql.SQL("SELECT id FROM {} ORDER BY embedding <=> %s LIMIT %s").format(table)

    def top(i: int, k: int) -> list[int]:
        return [int(r[0]) for r in db.execute(search, (queries[i], k)).fetchall()]

    size = len(vectors)
    asked = [i for i, g in enumerate(corpus.gold) if g and max(g) < min(size, len(corpus.vectors))]
    db.execute("SET enable_indexscan = off")
    exact = [top(i, K) for i in asked]
    db.execute("RESET enable_indexscan")
    exact_gold = [bool(corpus.gold[i] & set(t)) for i, t in zip(asked, exact, strict=True)]
    base: Row = {"size": size, "chunks": min(size, len(corpus.vectors)),
                 "padded": max(0, size - len(corpus.vectors)),
                 "questions": len(asked), "exact_gold_at_10": share(exact_gold)}  # fmt: skip
    rows: list[Row] = []
    for m, construction in BUILDS:
        db.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(f"{TABLE}_hnsw")))
        started = time.perf_counter()
        db.execute(
            sql.SQL(
                "CREATE INDEX {} ON {} USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = {}, ef_construction = {})"
            ).format(
                sql.Identifier(f"{TABLE}_hnsw"), table, sql.Literal(m), sql.Literal(construction)
            )
        )
        build_s = round(time.perf_counter() - started, 1)
        for ef in EF:
            progress("pgvector", len(rows), len(EF) * len(BUILDS))
            db.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(ef)))
            label = f"pgvector m={m} ef_construction={construction} ef_search={ef}"
            scores = compare(asked, exact, corpus, lambda i: top(i, DEPTH))
            rows.append({**base, "index": label, **scores, "build_s": build_s})
    progress("pgvector", len(rows), len(rows))
    return rows
