"""A per-collection dense index kept beside the SQLite database.

SQLite is the source of truth: every chunk row holds its vector. The index here is a
derived, rebuildable cache keyed by the chunk's never-reused integer row id:

- up to ``EXACT_UNTIL`` vectors it is exact: cosine against every vector, one matrix
  product (no recall lost; float32, 1.5 KiB a vector);
- from there on it is a usearch HNSW graph with the ``GRAPH`` settings, chosen from
  ``footnoted bench index`` on real text (recall@10 against exact search, and whether
  the chunk holding the answer stays in the top 10);
- it remembers the highest row id it holds; before each search it adds the rows written
  since (by this or any other process), so several workers stay current;
- ingestion saves it when it is done (``persist``), so no question waits for a build, and
  a process that finds a newer saved index on disk loads it instead of rebuilding (an
  exact one saved with ``EXACT_UNTIL`` vectors or more is rebuilt as a graph);
- deleted or disabled chunks may linger in it: searches over-fetch and the caller's join
  against SQLite drops them; when stale entries pile up it is rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401  (int8 embeddings) must load before usearch or it crashes

from usearch.index import Index

Rows = Iterable[tuple[int, bytes]]
Matrix = npt.NDArray[np.float32]
Keys = npt.NDArray[np.uint64]
Hits = list[tuple[int, float]]
BATCH = 50_000
SAVE_AFTER = 1000  # rows added since the last save that make saving worth it


@dataclass(frozen=True)
class IndexParams:
    """An HNSW graph's settings: links per node, and the candidate lists kept while
    adding and while searching (a search asking for more keeps that many)."""

    connectivity: int
    expansion_add: int
    expansion_search: int

    @property
    def label(self) -> str:
        """What a saved graph was built with; one saved under another label is rebuilt
        (those built on several threads, before ``one thread``, may hold unreachable
        vectors)."""
        return (
            f"hnsw M={self.connectivity} add={self.expansion_add} "
            f"search={self.expansion_search} one thread"
        )


# Measured with ``footnoted bench index`` (real text, 485 questions with a gold chunk):
# this graph finds every answer chunk exact search finds at 50k vectors (recall@10
# 1.000), all but one at 100k, all at 200k and 242k (2.1 ms a search, built in 64 s).
# Exact search reads every vector for each question (a server searches one question at
# a time on one thread): 13.7 ms at 100k on a 2-core AMD EPYC, against 2-5 ms for the
# graph; from 50k on, the graph cut the server's CPU per question by a tenth (``bench
# query`` at 100k, side by side: 107-112 ms against 120-128).
EXACT_UNTIL = 50_000
GRAPH = IndexParams(connectivity=32, expansion_add=256, expansion_search=512)


def fetch_depth(k: int) -> int:
    """How many neighbours to ask the index for when ``k`` are wanted: more than ``k``,
    since a wider search finds the true neighbours more often."""
    return 2 * k + 32


def exact_top(matrix: Matrix, vector: Matrix, k: int) -> Hits:
    """(row position, cosine) of the ``k`` rows closest to ``vector``, best first."""
    if len(matrix) == 0:
        return []
    scores: Matrix = matrix @ vector.astype(np.float32)
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(i), float(scores[i])) for i in top]


def _graph(dim: int, params: IndexParams) -> Index:
    """f16 halves the memory of f32 (a million 384-d vectors in about 0.8 GB)."""
    return Index(
        ndim=dim, metric="cos", dtype="f16", connectivity=params.connectivity,
        expansion_add=params.expansion_add, expansion_search=params.expansion_search,
    )  # fmt: skip


def _unit(vectors: Matrix) -> Matrix:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: Matrix = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class DenseIndex:
    """Keys and their vectors: exact search over a matrix, or an HNSW graph once the
    index holds ``EXACT_UNTIL`` vectors (or from the start, with ``graph=True``)."""

    def __init__(self, dim: int, params: IndexParams = GRAPH, graph: bool = False) -> None:
        self.dim = dim
        self.params = params
        self.keys: Keys = np.empty(0, dtype=np.uint64)
        self.matrix: Matrix = np.empty((0, dim), dtype=np.float32)
        self.size = 0  # rows of keys/matrix in use (they grow by doubling)
        self.graph: Index | None = _graph(dim, params) if graph else None

    def __len__(self) -> int:
        return int(self.graph.size) if self.graph is not None else self.size

    def add_vectors(self, keys: Keys, vectors: Matrix) -> None:
        if len(keys) == 0:
            return
        if self.graph is None and len(self) + len(keys) >= EXACT_UNTIL:
            held_keys, held = self.keys[: self.size], self.matrix[: self.size]
            self.graph = _graph(self.dim, self.params)
            self.keys, self.matrix, self.size = self.keys[:0], self.matrix[:0], 0
            self._add_to_graph(held_keys, held)
        if self.graph is not None:
            self._add_to_graph(keys, vectors)
            return
        needed = self.size + len(keys)
        if needed > len(self.keys):
            capacity = max(needed, 2 * len(self.keys), 1024)
            self.keys = np.resize(self.keys, capacity)
            grown = np.empty((capacity, self.dim), dtype=np.float32)
            grown[: self.size] = self.matrix[: self.size]
            self.matrix = grown
        self.keys[self.size : needed] = keys
        self.matrix[self.size : needed] = _unit(vectors)
        self.size = needed

    def _add_to_graph(self, keys: Keys, vectors: Matrix) -> None:
        # One thread: usearch's concurrent insertion (2.26) leaves some vectors with no
        # link into them, found by no search (of 50,000, 9 on two threads, more on more;
        # none on one), and a chunk dense search cannot reach is an answer never found.
        # Building on one takes about twice as long (96 s against 46 s for 50,000).
        if len(keys) and self.graph is not None:
            self.graph.add(keys, vectors, threads=1)

    def search(self, vector: Matrix, k: int) -> Hits:
        if len(self) == 0:
            return []
        if self.graph is None:
            top = exact_top(self.matrix[: self.size], vector, k)
            return [(int(self.keys[i]), score) for i, score in top]
        matches = self.graph.search(vector, min(k, len(self)))
        return [
            (int(key), 1.0 - float(dist))
            for key, dist in zip(matches.keys, matches.distances, strict=True)
        ]

    def save(self, path: Path) -> None:
        """Write the index beside ``path`` (``.usearch`` for a graph, ``.npz`` for the
        exact matrix), replacing the earlier file only once the new one is complete."""
        if self.graph is not None:
            tmp = path.with_suffix(".usearch.tmp")
            self.graph.save(str(tmp))
            tmp.replace(path.with_suffix(".usearch"))
            path.with_suffix(".npz").unlink(missing_ok=True)
        else:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, keys=self.keys[: self.size], matrix=self.matrix[: self.size])
            tmp.replace(path.with_suffix(".npz"))
            path.with_suffix(".usearch").unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path, dim: int) -> DenseIndex | None:
        index = cls(dim)
        if path.with_suffix(".usearch").exists():
            index.graph = _graph(dim, index.params)
            index.graph.load(str(path.with_suffix(".usearch")))
            return index
        if path.with_suffix(".npz").exists():
            with np.load(path.with_suffix(".npz")) as held:
                keys, matrix = held["keys"].astype(np.uint64), held["matrix"]
            if matrix.ndim != 2 or matrix.shape[1] != dim or len(keys) != len(matrix):
                return None
            if len(keys) >= EXACT_UNTIL:  # saved exact when the switch sat higher: rebuilt
                return None
            index.keys, index.matrix, index.size = keys, matrix.astype(np.float32), len(keys)
            return index
        return None


class CollectionIndex:
    """One collection's index, the highest row id it holds, and where it is saved."""

    def __init__(self, dim: int, path: Path | None = None) -> None:
        self.dim = dim
        self.path = path
        self.dense = DenseIndex(dim)
        self.watermark = 0  # highest chunk row id held
        self.saved = 0  # the watermark of what is on disk
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.dense)

    def add(self, rows: Rows) -> int:
        """Add (row id, float32 blob) rows in batches; returns how many were added."""
        added = 0
        keys: list[int] = []
        blobs: list[bytes] = []
        for key, blob in rows:
            keys.append(key)
            blobs.append(blob)
            if len(keys) == BATCH:
                added += self._add_batch(keys, blobs)
                keys, blobs = [], []
        return added + self._add_batch(keys, blobs)

    def _add_batch(self, keys: list[int], blobs: list[bytes]) -> int:
        if not keys:
            return 0
        vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(keys), self.dim)
        self.dense.add_vectors(np.asarray(keys, dtype=np.uint64), vectors)
        self.watermark = max(self.watermark, max(keys))
        return len(keys)

    def search(self, vector: Matrix, k: int) -> Hits:
        return self.dense.search(vector, k)

    def reset(self) -> None:
        self.dense = DenseIndex(self.dim)
        self.watermark = 0

    def save(self) -> None:
        if self.path is None or self.saved == self.watermark:
            return
        self.dense.save(self.path)
        graph = self.dense.params.label if self.dense.graph is not None else None
        meta = {"watermark": self.watermark, "graph": graph}
        self.path.with_suffix(".json").write_text(json.dumps(meta))
        self.saved = self.watermark

    def on_disk(self) -> int:
        """The watermark of the saved index (0: none, unreadable, or a graph built with
        other settings than ``GRAPH``, which is rebuilt instead)."""
        if self.path is None:
            return 0
        try:
            meta = json.loads(self.path.with_suffix(".json").read_text())
            if self.path.with_suffix(".usearch").exists() and meta.get("graph") != GRAPH.label:
                return 0
            return int(meta["watermark"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return 0

    def load(self) -> bool:
        """Replace what is held by the saved index, if there is a readable one."""
        watermark = self.on_disk()
        if self.path is None or watermark == 0:
            return False
        try:
            dense = DenseIndex.load(self.path, self.dim)
        except (OSError, ValueError, KeyError, RuntimeError):
            dense = None
        if dense is None:
            return False
        self.dense, self.watermark, self.saved = dense, watermark, watermark
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
        return self.directory / hashlib.sha256(collection.encode()).hexdigest()[:16]

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
        save: bool = False,
    ) -> CollectionIndex:
        """Bring the collection's index up to row id ``newest``: from a newer saved index
        when another process wrote one, else from the rows after its watermark; rebuild
        when mostly stale. It is saved when ``save`` (an ingest is done) or when
        ``SAVE_AFTER`` rows were added since the last save."""
        index = self.get(collection)
        with index.lock:
            if newest - index.watermark >= SAVE_AFTER and index.on_disk() > index.watermark:
                index.load()
            stale = len(index) - live
            if (stale > 1000 and stale > live // 4) or newest < index.watermark:
                index.reset()
            if newest > index.watermark:
                index.add(rows_after(index.watermark))
            if save or index.watermark - index.saved >= SAVE_AFTER:
                index.save()
        return index
