"""Small-scale runs of every ``footnoted bench`` command: the numbers are printed and
written as JSON; only their shape and sanity are checked, never their speed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from footnoted.loaders.ocr import engine
from pghelpers import Postgres

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
pytestmark = [
    pytest.mark.bench,
    pytest.mark.slow,
    pytest.mark.skipif(not DATA.exists(), reason="needs the shared evaluation data"),
]


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bench")


def bench(name: str, tmp: Path, *args: str) -> dict[str, Any]:
    out = tmp / f"{name}.json"
    cmd = [sys.executable, "-m", "footnoted", "bench", name, "--small", "--data", str(DATA),
           "--json", str(out), *args]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print(done.stdout)
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text())
    assert data["bench"] == name and data["wall_seconds"] > 0
    return data


@pytest.mark.precision
def test_bench_embed(tmp_path: Path) -> None:
    data = bench("embed", tmp_path, "--precision", "fp32", "--precision", "int8")
    rows = {row["path"]: row for row in data["rows"]}
    assert set(rows) == {"sentence-transformers fp32", "footnoted fp32", "footnoted int8"}
    for row in rows.values():
        assert row["chunks_per_s"] > 0 and row["ratio"] > 0
    assert rows["footnoted fp32"]["cosine_min"] > 0.999
    assert rows["footnoted int8"]["cosine_median"] > 0.95


def test_bench_ingest(tmp_path: Path) -> None:
    rows = bench("ingest", tmp_path)["rows"]
    assert [r["corpus"] for r in rows] == ["SciFact abstracts", "PDFs"]
    for row in rows:
        assert row["chunks"] > 0 and row["chunks_per_s"] > 0 and row["peak_rss_mb"] > 0


def test_bench_ocr(tmp_path: Path) -> None:
    found = {e: engine(e) for e in ("tesseract", "rapidocr")}
    engines = [e for e, got in found.items() if got is not None and got[0] == e]
    if not engines:
        pytest.skip("no OCR engine is installed")
    data = bench("ocr", tmp_path, *[a for e in engines for a in ("--engine", e)])
    assert data["pages"] == ["haystack__sample_pdf_1.pdf:1", "haystack__sample_pdf_2.pdf:1"]
    assert [r["engine"] for r in data["rows"]] == engines
    for row in data["rows"]:  # a real scan read: most of its words come back
        assert row["pages"] == 2 and row["words_right"] > 0.6 and row["median_s"] > 0


PEER = Path(__file__).resolve().parents[1] / ".venv-peer" / "bin" / "python"


@pytest.mark.skipif(not PEER.exists(), reason="scripts/setup-peer did not install the peer")
def test_bench_ingest_against_the_peer(tmp_path: Path) -> None:
    """Whole processes, the real LangChain pipeline beside footnoted, on the shared PDFs."""
    data = bench("ingest", tmp_path, "--peer", "--rounds", "1", "--precision", "fp32",
                 "--peer-python", str(PEER))  # fmt: skip
    rows = {row["pipeline"]: row for row in data["rows"]}
    assert set(rows) == {"footnoted fp32", "LangChain + Chroma (fp32)"}
    ours, peer = rows["footnoted fp32"], rows["LangChain + Chroma (fp32)"]
    assert ours["pages"] == peer["pages"] == 68 and ours["files"] == 6  # the shared pdfs/
    for row in rows.values():
        assert row["chunks"] > 0 and row["seconds"] > 0 and row["peak_rss_mb"] > 100
        assert row["pages_per_s"] == pytest.approx(68 / row["seconds"], rel=0.01)
    assert peer["vs_peer"] == 1.0
    assert ours["vs_peer"] == pytest.approx(peer["seconds"] / ours["seconds"], rel=0.02)


def test_a_missing_peer_is_a_clear_error(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "footnoted", "bench", "ingest", "--peer", "--data", str(DATA),
           "--peer-python", str(tmp_path / "none")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "scripts/setup-peer" in done.stderr


def test_bench_query(bench_dir: Path) -> None:
    rows = bench("query", bench_dir, "--dir", str(bench_dir))["rows"]
    assert [r["clients"] for r in rows] == [1, 8]
    for row in rows:
        assert row["errors"] == 0 and row["answered"] > 0
        assert 0 < row["first_delta_p50_ms"] <= row["end_p50_ms"]
        assert row["real_chunks"] + row["generated_chunks"] == row["chunks"]
        assert row["server_peak_rss_mb"] > 0
        assert row["workers"] == 1 and row["server_cpu_ms_per_request"] > 0


def test_bench_load(bench_dir: Path) -> None:
    (row,) = bench("load", bench_dir, "--dir", str(bench_dir))["rows"]
    assert row["workers"] == 2 and row["requests"] > 0 and row["errors"] == 0
    assert row["per_s"] > 0 and row["end_p50_ms"] > 0


def test_bench_stages(bench_dir: Path) -> None:
    rows = bench("stages", bench_dir, "--dir", str(bench_dir))["rows"]
    stages = {r["stage"] for r in rows}
    assert {"embed question", "dense search", "keyword search", "rerank"} <= stages
    assert all(r["median_ms"] >= 0 for r in rows)


def test_bench_names_what_a_wrong_data_folder_lacks(tmp_path: Path) -> None:
    (tmp_path / "scifact").mkdir()
    (tmp_path / "scifact" / "corpus.jsonl").write_text("")
    cmd = [sys.executable, "-m", "footnoted", "bench", "embed", "--data", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    message = " ".join(done.stderr.replace("│", " ").split())
    assert "Invalid value for '--data'" in message
    assert "squad2/dev-16-articles.json, hotpotqa/dev-53.json, scifact/queries.jsonl" in message
    assert "scifact/corpus.jsonl" not in message


def test_bench_index(tmp_path: Path, postgres: Postgres) -> None:
    with postgres.temporary() as url:
        data = bench("index", tmp_path, "--dir", str(tmp_path), "--database-url", url)
    assert data["real_chunks"] > 200 and data["sentence_vectors"] > 1000
    rows = data["rows"]
    assert {r["size"] for r in rows} == {200, 1000}
    for size in (200, 1000):
        at = [r for r in rows if r["size"] == size]
        assert at[0]["index"] == "exact" and at[0]["recall_at_10"] == 1.0
        assert len(at) == 5 and all(r["index"].startswith("hnsw M=") for r in at[1:])
        for row in at:
            assert 0.0 <= row["recall_at_10"] <= 1.0 and row["search_p50_ms"] > 0
            assert row["questions"] > 0 and row["exact_gold_at_10"] == at[0]["gold_at_10"]
    padded = next(r for r in rows if r["size"] == 1000)
    assert padded["chunks"] == data["real_chunks"] and padded["padded"] == 1000 - padded["chunks"]
    pg = data["postgres"]
    assert len(pg) == 6 and pg[4]["index"] == "pgvector m=32 ef_construction=256 ef_search=400"
    for row in pg:
        assert row["chunks"] == data["real_chunks"] and 0.0 < row["recall_at_10"] <= 1.0
        assert 0.0 < row["gold_at_10"] <= 1.0 and row["build_s"] >= 0
