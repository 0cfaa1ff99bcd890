"""Recall@10 of the approximate vector index against exact search, on the store's vectors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from ..stores.vectors import HNSW_FROM, VectorIndexes


def sqlite_recall(
    home: Path, collection: str, queries: int = 100, k: int = 10, fetch: int = 132
) -> float | None:
    """Share of the exact top ``k`` found in the index's top ``k`` when asked for ``fetch``
    (what retrieval asks for: twice its depth of 50, plus 32). None where search is exact."""
    db = sqlite3.connect(home / "footnoted.db")
    try:
        rows = db.execute(
            "SELECT rowid, embedding FROM chunks WHERE collection = ? ORDER BY rowid",
            (collection,),
        ).fetchall()
    finally:
        db.close()
    if len(rows) < HNSW_FROM:
        return None
    keys = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    index = VectorIndexes(home / "vectors", matrix.shape[1]).get(collection)
    if len(index) < len(rows):
        index.add((int(key), blob) for key, (_, blob) in zip(keys, rows, strict=True))
    rng = np.random.default_rng(0)
    probes = matrix[rng.choice(len(rows), queries, replace=False)]
    probes = probes + rng.normal(0, 0.03, probes.shape).astype(np.float32)
    hits = 0
    for probe in probes:
        exact = set(keys[np.argpartition(-(matrix @ probe), k)[:k]].tolist())
        hits += len(exact & {key for key, _ in index.search(probe, fetch)[:k]})
    return round(hits / (queries * k), 3)
