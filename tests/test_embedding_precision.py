"""Embedding precision: which one ``auto`` picks, and every precision's vectors close to fp32's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from footnoted.inference import runtime
from footnoted.inference.embedding import SentenceTransformerEmbedder
from footnoted.inference.onnx import cpu_name
from footnoted.inference.runtime import float_precision, resolve_precision
from footnoted.settings import Settings

pytestmark = pytest.mark.precision


def embedders(home: Path, *precisions: str) -> list[SentenceTransformerEmbedder]:
    """One embedder per precision, sharing a model cache under ``home``."""
    return [
        SentenceTransformerEmbedder(
            Settings(home=home, embedding_precision=p, model_cache=home / "models")  # type: ignore[arg-type]
        )
        for p in precisions
    ]


def test_auto_picks_int8_where_the_cpu_multiplies_int8_natively_without_amx() -> None:
    flags = runtime._cpu_flags()
    int8 = bool(flags & {"avx512_vnni", "avx_vnni", "amx_int8"}) and "amx_bf16" not in flags
    bf16 = bool(flags & {"amx_bf16", "avx512_bf16"})
    assert resolve_precision("auto") == ("int8" if int8 else "bf16" if bf16 else "fp32")
    assert [resolve_precision(p) for p in ("fp32", "bf16", "int8")] == ["fp32", "bf16", "int8"]
    # what runs outside int8 (the reader's float runtime): never int8
    assert float_precision("auto") == float_precision("int8") == ("bf16" if bf16 else "fp32")
    assert float_precision("fp32") == "fp32" and float_precision("bf16") == "bf16"


@pytest.mark.slow
def test_int8_reads_each_text_alone_in_fp32s_space(tmp_path: Path) -> None:
    """int8 embeds each chunk alone and unpadded: a text's vector, and its sentences',
    are the same whatever is embedded with it, close to fp32's and stored under fp32's
    name; questions, one or several, still run the fp32 export. PyTorch never loads."""
    texts = [
        "Refunds for annual plans are prorated. Monthly plans are not refunded.",
        "Backups are kept for 30 days and then deleted.",
        "x",
        "The support team answers Starter customers within one business day. " * 6,
    ]
    spans = [[(0, 38), (39, len(texts[0]))], [], [], [(0, 69)]]
    fp32, int8 = embedders(tmp_path, "fp32", "int8")
    (a, sa), (b, sentences) = fp32.embed_passages(texts, spans), int8.embed_passages(texts, spans)
    assert b.shape == a.shape and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(a * b, axis=1))) > 0.97
    assert int8.name == fp32.name == "all-MiniLM-L6-v2"  # one space: no reindex
    for i in (0, 3):
        alone, (own,) = int8.embed_passages([texts[i]], [spans[i]])
        assert np.array_equal(alone[0], b[i]) and np.array_equal(own, sentences[i])
        assert float(np.min(np.sum(sa[i] * sentences[i], axis=1))) > 0.97
    question = "Who wrote the refund policy?"
    assert np.array_equal(int8.embed([question])[0], fp32.embed([question])[0])
    several = int8.embed([question, *texts])
    assert float(np.min(np.sum(several[1:] * a, axis=1))) > 0.9999
    assert int8._model is None
    (export,) = (tmp_path / "models").glob("*-int8-ffn0.onnx")
    nodes = onnx.load(str(export)).graph.node
    assert "IsNaN" not in {node.op_type for node in nodes}
    kept = [n.name for n in nodes if n.op_type == "MatMul" and "/dense/" in n.name]
    assert kept == ["/model/encoder/layer.0/output/dense/MatMul"]  # FP32_IN_INT8
    assert sum(n.op_type == "MatMulInteger" for n in nodes) == 6 * 6 - 1


@pytest.mark.slow
def test_single_texts_match_batches_and_the_export_is_cached(tmp_path: Path) -> None:
    """One text (a question) runs in ONNX Runtime fp32: the same vector as in a batch."""
    texts = ["Who wrote the refund policy?", "Backups are kept for 30 days.", "x"]
    settings = Settings(home=tmp_path, embedding_precision="fp32", model_cache=tmp_path / "c")
    embedder = SentenceTransformerEmbedder(settings)
    batch = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert float(np.min(np.sum(batch * alone, axis=1))) > 0.9999
    assert embedder.name == "all-MiniLM-L6-v2"  # same vector space: no reindex
    assert [p.name.endswith("-fp32.onnx") for p in (tmp_path / "c").glob("*.onnx")] == [True]


@pytest.mark.slow
def test_fp32_batches_run_in_the_runtime_this_cpu_runs_faster(tmp_path: Path) -> None:
    """Measured once per CPU and kept beside the export; another CPU's record is measured
    again."""
    import torch

    settings = Settings(home=tmp_path, embedding_precision="fp32", model_cache=tmp_path / "c")
    first = SentenceTransformerEmbedder(settings)
    want = first.embed(["Backups are kept for 30 days.", "x"])
    (record,) = (tmp_path / "c").glob("*-fp32.speed-*.json")
    saved = json.loads(record.read_text())
    assert saved["cpu"] == cpu_name() and saved["threads"] == torch.get_num_threads()
    assert saved["onnx_ms"] > 0 and saved["torch_ms"] > 0
    assert (first._onnx is not None) == (saved["onnx_ms"] < saved["torch_ms"])

    for onnx_ms, cpu, runs_onnx in ((1.0, saved["cpu"], True), (1e9, saved["cpu"], False)):
        record.write_text(json.dumps({**saved, "onnx_ms": onnx_ms, "cpu": cpu}))
        again = SentenceTransformerEmbedder(settings)
        got = again.embed(["Backups are kept for 30 days.", "x"])
        assert (again._onnx is not None) == runs_onnx  # this CPU's record is read
        assert float(np.min(np.sum(got * want, axis=1))) > 0.99999  # the same vectors

    record.write_text(json.dumps({**saved, "cpu": "another CPU", "onnx_ms": 1e9}))
    SentenceTransformerEmbedder(settings).embed(["x", "y"])
    assert json.loads(record.read_text())["cpu"] == cpu_name()


@pytest.mark.slow
def test_a_read_only_model_cache_exports_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    settings = Settings(home=tmp_path, embedding_precision="fp32", model_cache=blocked / "c")
    embedder = SentenceTransformerEmbedder(settings)
    vector = embedder.embed(["Who wrote the refund policy?"])[0]
    assert embedder._single is not None and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4


@pytest.mark.slow
def test_bf16_runs_bf16_weights_close_to_fp32(tmp_path: Path) -> None:
    """bf16 casts the weights (no autocast); questions still run the fp32 export."""
    import torch

    texts = [
        "Refunds for annual plans are prorated. Monthly plans are not refunded.",
        "Backups are kept for 30 days and then deleted.",
        "x",
    ]
    fp32, bf16 = embedders(tmp_path, "fp32", "bf16")
    a, b = fp32.embed(texts), bf16.embed(texts)
    assert {p.dtype for p in bf16.model.parameters()} == {torch.bfloat16}
    assert {p.dtype for p in fp32.model.parameters()} == {torch.float32}
    assert b.dtype == np.float32 and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(a * b, axis=1))) > 0.9995
    spans = [[(0, 38), (39, len(texts[0]))]]
    _, (sa,) = fp32.embed_passages(texts[:1], spans)
    _, (sb,) = bf16.embed_passages(texts[:1], spans)
    assert sb.shape == sa.shape == (2, 384)
    cosines = np.sum(sa * sb, axis=1) / np.linalg.norm(sa, axis=1) / np.linalg.norm(sb, axis=1)
    assert float(np.min(cosines)) > 0.999
    assert bf16.name == fp32.name  # same vector space: no reindex
    question = "Who wrote the refund policy?"
    assert float(np.dot(fp32.embed([question])[0], bf16.embed([question])[0])) > 0.99999


@pytest.mark.slow
def test_a_question_loads_the_model_in_pytorch_only_when_a_batch_needs_it(tmp_path: Path) -> None:
    """One text runs the ONNX export; the PyTorch model (bf16 batches) loads with the
    first batch. A later embedder, the export cached, asks without loading it at all."""
    first, later = embedders(tmp_path, "bf16", "bf16")
    question = "Who wrote the refund policy?"
    vector = first.embed([question])[0]  # exports from a model loaded for that alone
    assert first._model is None and first._single is not None
    first.embed([question, "Backups are kept for 30 days."])
    assert first._model is not None and first._onnx is None  # bf16 batches: PyTorch
    again = later.embed([question])[0]
    assert later._model is None and later._onnx is None and not later._batches_chosen
    assert np.array_equal(again, vector)
