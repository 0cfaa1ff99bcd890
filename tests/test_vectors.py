"""The dense index: exact below the switch point, a graph above, saved and caught up."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from footnoted.service.facade import Footnoted
from footnoted.settings import Settings
from footnoted.stores import vectors
from footnoted.stores.vectors import CollectionIndex, DenseIndex, VectorIndexes, exact_top

DIM = 32


def unit_rows(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def blobs(matrix: np.ndarray, first_key: int = 1) -> list[tuple[int, bytes]]:
    return [(first_key + i, row.tobytes()) for i, row in enumerate(matrix)]


def test_below_the_switch_point_search_is_exact() -> None:
    matrix = unit_rows(3000)
    index = DenseIndex(DIM)
    index.add_vectors(np.arange(10, 3010, dtype=np.uint64), matrix)
    assert index.graph is None and len(index) == 3000
    for probe in unit_rows(20, seed=1):
        expected = [10 + i for i in np.argsort(-(matrix @ probe))[:15]]
        assert [key for key, _ in index.search(probe, 15)] == expected


def test_exact_top_orders_by_cosine() -> None:
    matrix = unit_rows(50)
    top = exact_top(matrix, matrix[7], 3)
    assert top[0][0] == 7 and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)


def test_crossing_the_switch_point_builds_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "EXACT_UNTIL", 1000)
    matrix = unit_rows(1500)
    index = DenseIndex(DIM)
    index.add_vectors(np.arange(900, dtype=np.uint64), matrix[:900])
    assert index.graph is None
    index.add_vectors(np.arange(900, 1500, dtype=np.uint64), matrix[900:])
    assert index.graph is not None and len(index) == 1500
    assert index.size == 0  # the matrix is given up: the graph holds the vectors
    held = np.stack(index.graph.get(np.arange(1500, dtype=np.uint64), dtype=np.float32))
    assert np.abs(held - matrix).max() < 2e-3  # those added before and after, in f16
    # every vector, added before the switch and after, finds itself among its 10 nearest:
    # built on several threads, usearch left some unreachable (0-5 of these 1,500 on two)
    missed = [i for i in range(1500) if i not in {key for key, _ in index.search(matrix[i], 10)}]
    assert missed == []


@pytest.mark.parametrize("size", [200, 1200])
def test_save_and_load_keep_every_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(vectors, "EXACT_UNTIL", 1000)
    held = CollectionIndex(DIM, tmp_path / "c")
    held.add(blobs(unit_rows(size)))
    held.save()
    again = CollectionIndex(DIM, tmp_path / "c")
    assert again.load() and again.watermark == size == len(again)
    assert (again.dense.graph is None) == (size < 1000)
    probe = unit_rows(1, seed=5)[0]
    assert again.search(probe, 5)[0][0] == held.search(probe, 5)[0][0]


def test_a_graph_built_with_other_settings_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "EXACT_UNTIL", 100)
    held = CollectionIndex(DIM, tmp_path / "c")
    held.add(blobs(unit_rows(300)))
    held.save()
    assert held.on_disk() == 300
    other = vectors.IndexParams(8, 32, 32)
    monkeypatch.setattr(vectors, "GRAPH", other)
    assert held.on_disk() == 0 and not CollectionIndex(DIM, tmp_path / "c").load()


def test_a_graph_built_on_several_threads_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saved before graphs were built on one thread, it may hold vectors no search reaches."""
    monkeypatch.setattr(vectors, "EXACT_UNTIL", 100)
    held = CollectionIndex(DIM, tmp_path / "c")
    held.add(blobs(unit_rows(300)))
    held.save()
    meta = tmp_path / "c.json"
    before = json.loads(meta.read_text())
    assert before["graph"].endswith(" one thread") and held.on_disk() == 300
    meta.write_text(json.dumps({**before, "graph": "hnsw M=32 add=256 search=512"}))
    assert held.on_disk() == 0 and not CollectionIndex(DIM, tmp_path / "c").load()


def test_an_exact_index_saved_past_a_lower_switch_point_is_rebuilt_as_a_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saved exact under a higher switch point, it is searched by a graph from now on:
    rebuilt from the rows, and saved as one (more than ``SAVE_AFTER`` rows were added)."""
    rows = blobs(unit_rows(1200))
    first = VectorIndexes(tmp_path, DIM)
    assert first.sync("c", 1200, 1200, lambda after: rows[after:], save=True).dense.graph is None
    monkeypatch.setattr(vectors, "EXACT_UNTIL", 1000)
    asked: list[int] = []

    def rows_after(after: int) -> list[tuple[int, bytes]]:
        asked.append(after)
        return rows[after:]

    index = VectorIndexes(tmp_path, DIM).sync("c", 1200, 1200, rows_after)
    assert asked == [0] and index.dense.graph is not None and len(index) == 1200
    assert list(tmp_path.glob("*.usearch")) and not list(tmp_path.glob("*.npz"))
    again = CollectionIndex(DIM, index.path)
    assert again.load() and again.dense.graph is not None and again.watermark == 1200


def test_a_process_behind_loads_the_newer_saved_index(tmp_path: Path) -> None:
    matrix = unit_rows(2500)
    rows = blobs(matrix)
    ahead, behind = VectorIndexes(tmp_path, DIM), VectorIndexes(tmp_path, DIM)
    behind.sync("c", 100, 100, lambda after: rows[after:100])
    ahead.sync("c", 2400, 2400, lambda after: rows[after:2400], save=True)

    asked: list[int] = []

    def rows_after(after: int) -> list[tuple[int, bytes]]:
        asked.append(after)
        return rows[after:2500]

    index = behind.sync("c", 2500, 2500, rows_after)
    assert asked == [2400]  # it read only what the saved index did not hold
    assert index.watermark == 2500 == len(index)


def test_ingest_leaves_the_index_saved(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"note-{i}.md").write_text(f"# Note {i}\n\nThe orchard has {i + 3} pear trees.\n")
    settings = Settings(home=tmp_path / "home", database_url=None)
    with Footnoted(settings) as fn:
        fn.ingest([docs])
        chunks = fn.store.count_chunks(settings.collection)
    saved = list((tmp_path / "home" / "vectors").glob("*.npz"))
    assert len(saved) == 1 and chunks > 0
    with Footnoted(settings) as fn:
        index = fn.store.vectors.get(settings.collection)  # type: ignore[attr-defined]
        assert len(index) == chunks and index.saved == index.watermark > 0
