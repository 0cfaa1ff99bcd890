"""Embedding precision: int8 vectors are a model of their own, so a switch needs reindex."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from footnoted.embedding import SentenceTransformerEmbedder, embedding_name, resolve_precision
from footnoted.settings import Settings


def test_int8_vectors_are_named_apart() -> None:
    assert embedding_name("all-MiniLM-L6-v2", "int8") == "all-MiniLM-L6-v2@int8"
    assert embedding_name("all-MiniLM-L6-v2", "fp32") == "all-MiniLM-L6-v2"
    assert resolve_precision("fp32") == "fp32"
    assert resolve_precision("auto") in ("fp32", "bf16")


@pytest.mark.slow
def test_int8_matches_fp32_closely(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    texts = ["Refunds for annual plans are prorated.", "Backups are kept for 30 days.", "x"]
    fp32 = SentenceTransformerEmbedder(Settings(home=tmp_path, embedding_precision="fp32"))
    int8 = SentenceTransformerEmbedder(Settings(home=tmp_path, embedding_precision="int8"))
    a, b = fp32.embed(texts), int8.embed(texts)
    assert b.shape == a.shape and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(a * b, axis=1))) > 0.95
    assert int8.name.endswith("@int8") and list((tmp_path / "models").glob("*-int8.onnx"))
    # int8 activations are scaled per batch, so a text alone differs slightly from in a batch
    single = int8.embed([texts[0]])[0]
    assert float(np.dot(single, b[0])) > 0.97
