"""A per-collection vector index kept beside the SQLite database.

SQLite is the source of truth: every chunk row holds its vector. The index here is a
derived, rebuildable cache keyed by the chunk's never-reused integer row id:

- small collections are searched exactly (brute force over a contiguous matrix);
- from ``HNSW_FROM`` vectors on, a usearch HNSW graph (cosine) answers in about a
  millisecond at a million vectors instead of ~130 ms of brute force;
- the index remembers the highest row id it holds; before each search it adds the rows
  written since (by this or any other process), so several workers stay current;
- deleted or disabled chunks may linger in the index: searches over-fetch and the
  caller's join against SQLite drops them; when stale entries pile up it is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt

with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401  (int8 embeddings) must load before usearch or it crashes

from usearch.index import Index

Rows = Iterable[tuple[int, bytes]]
HNSW_FROM = 20_000


def _new_index(dim: int) -> Index:
    """f16 halves the memory of f32 (a million 384-d vectors in about 0.8 GB) and
    expansion_add 64 builds faster than 128; ``footnoted bench query`` reports recall@10."""
    return Index(
        ndim=dim, metric="cos", dtype="f16", connectivity=16, expansion_add=64, expansion_search=64
    )


class CollectionIndex:
    def __init__(self, dim: int, path: Path | None = None) -> None:
        self.dim = dim
        self.path = path
        self.watermark = 0  # highest chunk row id held
        self.index = _new_index(dim)
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return int(self.index.size)

    def add(self, rows: Rows, batch: int = 50_000) -> int:
        """Add (row id, float32 blob) rows in batches; returns how many were added."""
        added = 0
        keys: list[int] = []
        blobs: list[bytes] = []
        for key, blob in rows:
            keys.append(key)
            blobs.append(blob)
            if len(keys) == batch:
                added += self._add_batch(keys, blobs)
                keys, blobs = [], []
        return added + self._add_batch(keys, blobs)

    def _add_batch(self, keys: list[int], blobs: list[bytes]) -> int:
        if not keys:
            return 0
        vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(keys), self.dim)
        self.index.add(np.asarray(keys, dtype=np.uint64), vectors, threads=os.cpu_count() or 1)
        self.watermark = max(self.watermark, max(keys))
        return len(keys)

    def search(self, vector: npt.NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        if len(self) == 0:
            return []
        k = min(k, len(self))
        exact = len(self) < HNSW_FROM
        matches = self.index.search(vector, k, exact=exact)
        return [
            (int(key), 1.0 - float(dist))
            for key, dist in zip(matches.keys, matches.distances, strict=True)
        ]

    def save(self) -> None:
        if self.path is None or len(self) < HNSW_FROM:
            return  # small indexes rebuild from SQLite in milliseconds
        tmp = self.path.with_suffix(".tmp")
        self.index.save(str(tmp))
        tmp.replace(self.path)
        self.path.with_suffix(".json").write_text(json.dumps({"watermark": self.watermark}))

    def load(self) -> bool:
        if self.path is None or not self.path.exists():
            return False
        meta = self.path.with_suffix(".json")
        try:
            self.index.load(str(self.path))
            self.watermark = int(json.loads(meta.read_text())["watermark"])
        except (OSError, ValueError, KeyError, RuntimeError):
            self.index = _new_index(self.dim)
            self.watermark = 0
            return False
        return True


class VectorIndexes:
    """All collections' indexes for one database, caught up lazily from SQLite."""

    def __init__(self, directory: Path | None, dim: int) -> None:
        self.directory = directory
        self.dim = dim
        self._indexes: dict[str, CollectionIndex] = {}
        self._lock = threading.Lock()

    def _path(self, collection: str) -> Path | None:
        if self.directory is None:
            return None
        import hashlib

        name = hashlib.sha256(collection.encode()).hexdigest()[:16]
        return self.directory / f"{name}.usearch"

    def get(self, collection: str) -> CollectionIndex:
        with self._lock:
            index = self._indexes.get(collection)
            if index is None:
                index = CollectionIndex(self.dim, self._path(collection))
                index.load()
                self._indexes[collection] = index
            return index

    def sync(
        self,
        collection: str,
        newest: int,
        live: int,
        rows_after: Callable[[int], Rows],
    ) -> CollectionIndex:
        """Bring the collection's index up to row id ``newest``; rebuild if mostly stale."""
        index = self.get(collection)
        with index.lock:
            stale = len(index) - live
            if (stale > 1000 and stale > live // 4) or newest < index.watermark:
                index.index = _new_index(self.dim)
                index.watermark = 0
            if newest > index.watermark:
                added = index.add(rows_after(index.watermark))
                if added >= 1000:
                    index.save()
        return index

    def drop(self, collection: str) -> None:
        with self._lock:
            self._indexes.pop(collection, None)
