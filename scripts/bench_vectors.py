"""Vector search: numpy brute force vs the usearch HNSW index footnoted uses at scale.

    .venv/bin/python scripts/bench_vectors.py [N]    # default 200000 vectors, 384 dims

Random unit vectors (labelled as such); reports build time, median query time over 200
queries for both methods, and HNSW recall@10 against the exact answer.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from footnoted.stores.vectors import CollectionIndex


def main(n: int, dim: int = 384, queries: int = 200) -> None:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((n, dim), dtype=np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    probes = data[rng.choice(n, queries, replace=False)] + 0.01 * rng.standard_normal(
        (queries, dim), dtype=np.float32
    )
    index = CollectionIndex(dim)
    start = time.perf_counter()
    index.add((i + 1, data[i].tobytes()) for i in range(n))
    build = time.perf_counter() - start
    brute, hnsw, recall = [], [], []
    for q in probes:
        t = time.perf_counter()
        exact = np.argpartition(-(data @ q), 10)[:10] + 1
        brute.append(time.perf_counter() - t)
        t = time.perf_counter()
        found = index.index.search(q, 10)
        hnsw.append(time.perf_counter() - t)
        recall.append(len(set(exact.tolist()) & set(found.keys.tolist())) / 10)
    print(f"{n} random unit vectors x {dim} (fp32); HNSW build {build:.1f} s")
    print(f"numpy brute force: median {statistics.median(brute) * 1000:.2f} ms/query")
    print(f"usearch HNSW:      median {statistics.median(hnsw) * 1000:.3f} ms/query, ", end="")
    print(f"recall@10 {statistics.mean(recall):.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
