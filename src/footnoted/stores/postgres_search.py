"""Dense (pgvector HNSW, cosine) and keyword (tsvector) search over enabled, ready chunks.

An HNSW scan yields at most ``hnsw.ef_search`` candidates before the collection and
document filters apply, so a filtered search can come back short. pgvector 0.8+ scans
on (``hnsw.iterative_scan``); with older versions the caller repeats a short search
exactly (``exact=True``), so a search always returns ``k`` hits when that many exist.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from psycopg import sql

from .keywords import KeywordQuery
from .library_sql import LIVE
from .postgres_base import Connection

EF_SEARCH_MAX = 1000  # pgvector's limit
_DENSE = (
    "SELECT c.id, c.embedding <=> %(q)s AS distance FROM chunks c "
    f"JOIN documents d ON d.id = c.document_id WHERE c.collection = %(collection)s AND {LIVE} "
    "ORDER BY c.embedding <=> %(q)s LIMIT %(k)s"
)
_KEYWORD = (
    "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id, "
    "(SELECT {query} AS q, {gate} AS g) AS query "
    f"WHERE c.terms @@ query.g AND c.collection = %s AND {LIVE} "
    "ORDER BY ts_rank_cd('{{0.1, 0.2, 0.5, 1.0}}', c.terms, query.q) DESC, c.seq LIMIT %s"
)
_TERM_ROWS = (
    "SELECT count(*) AS n FROM (SELECT 1 FROM chunks "
    "WHERE terms @@ phraseto_tsquery('english', %s) LIMIT %s) AS hits"
)


def dense_search(
    db: Connection,
    collection: str,
    vector: npt.NDArray[np.float32],
    k: int,
    iterative: bool = False,
    exact: bool = False,
) -> list[tuple[str, float]]:
    """(chunk id, cosine similarity), best first."""
    if exact:
        db.execute("SET LOCAL enable_indexscan = off")
    else:
        db.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef_search(k))))
        if iterative:
            db.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    rows = db.execute(_DENSE, {"q": vector, "collection": collection, "k": k}).fetchall()
    if exact:
        db.execute("SET LOCAL enable_indexscan = on")
    hits = [(str(r["id"]), 1.0 - float(r["distance"])) for r in rows]
    return sorted(hits, key=lambda hit: -hit[1])


EF_SEARCH_MIN = 400  # with the index of migration m010: recall@10 0.9996 on real text


def ef_search(k: int) -> int:
    """The HNSW candidate list for a search of ``k``."""
    return min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, 2 * k + 32))


def term_rows(db: Connection, term: str, cap: int) -> int:
    """How many chunks hold ``term``, counting no further than ``cap``."""
    return int(db.execute(_TERM_ROWS, (term, cap)).fetchone()["n"])  # type: ignore[index]


def keyword_search(db: Connection, collection: str, chosen: KeywordQuery, k: int) -> list[str]:
    """Chunk ids ranked by ``ts_rank_cd`` over text, title and section on every term.

    Which chunks may match follows ``keywords.plan``: any term while few rows match, else
    one of the rarest terms, else (only common words) all of them.
    """
    query = _tsquery(chosen.terms, " || ")
    gate = _tsquery(chosen.gate, " || ") if chosen.gate else _tsquery(chosen.terms, " && ")
    statement = sql.SQL(_KEYWORD).format(query=query, gate=gate)
    return [str(r["id"]) for r in db.execute(statement, (collection, k)).fetchall()]


def _tsquery(terms: Sequence[str], operator: str) -> sql.Composed:
    return sql.SQL(operator).join(
        sql.SQL("phraseto_tsquery('english', {})").format(sql.Literal(term)) for term in terms
    )
