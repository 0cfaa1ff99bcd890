"""``bench embed``: chunks/s of footnoted's embedding paths vs plain sentence-transformers.

The baseline is ``SentenceTransformer(path).encode(texts)`` with its defaults (fp32,
batch 32). Every path embeds the same real chunk texts in the same run, in alternating
rounds, so machine load hits them alike; the ratio is baseline median time over the
path's median time. Cosine similarity to the baseline's vectors shows what precision costs.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..inference.embedding import SentenceTransformerEmbedder, resolve_model_path
from ..inference.runtime import cpu_has_native_bf16
from ..service.facade import Footnoted
from ..settings import Settings
from .report import Row, median
from .texts import chunk_texts, scifact_files

Encode = Callable[[list[str]], npt.NDArray[np.float32]]
Progress = Callable[[str, int, int], None]


def baseline_encoder(model: str) -> Encode:
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(resolve_model_path(model), device="cpu")

    def encode(texts: list[str]) -> npt.NDArray[np.float32]:
        return np.asarray(st.encode(texts), dtype=np.float32)

    return encode


def footnoted_encoder(home: Path, precision: str) -> Encode:
    settings = Settings(home=home, embedding_precision=precision)  # type: ignore[arg-type]
    embedder = SentenceTransformerEmbedder(settings)
    embedder.warm_up(batches=True)
    return lambda texts: embedder.embed_passages(texts, [()] * len(texts))[0]


def precisions(requested: list[str] | None) -> list[str]:
    if requested:
        return requested
    return ["fp32", "int8", *(["bf16"] if cpu_has_native_bf16() else [])]


def run_embed(
    data: Path, texts_n: int, rounds: int, paths: list[str] | None, progress: Progress
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="footnoted-bench-") as tmp:
        home = Path(tmp)
        with Footnoted(Settings(home=home / "chunking")) as fn:
            texts = chunk_texts(fn, scifact_files(data), texts_n)
        encoders: dict[str, Encode] = {"sentence-transformers fp32": baseline_encoder(
            Settings().embedding_model)}  # fmt: skip
        for precision in precisions(paths):
            encoders[f"footnoted {precision}"] = footnoted_encoder(home, precision)
        for encode in encoders.values():
            encode(texts[:8])
        times: dict[str, list[float]] = {name: [] for name in encoders}
        vectors: dict[str, npt.NDArray[np.float32]] = {}
        for r in range(rounds):
            for i, (name, encode) in enumerate(encoders.items()):
                started = time.perf_counter()
                vectors[name] = encode(texts)
                times[name].append(time.perf_counter() - started)
                progress("rounds", r * len(encoders) + i + 1, rounds * len(encoders))
    return {"texts": len(texts), "rounds": rounds, "rows": _rows(texts, times, vectors)}


def _rows(
    texts: list[str], times: dict[str, list[float]], vectors: dict[str, npt.NDArray[np.float32]]
) -> list[Row]:
    names = list(times)
    base_time = median(times[names[0]])
    base = _unit(vectors[names[0]])
    rows: list[Row] = []
    for name in names:
        cosine = np.sum(base * _unit(vectors[name]), axis=1)
        rows.append({
            "path": name,
            "median_s": round(median(times[name]), 3),
            "chunks_per_s": round(len(texts) / median(times[name]), 1),
            "ratio": round(base_time / median(times[name]), 2),
            "cosine_min": round(float(cosine.min()), 4),
            "cosine_median": round(float(np.median(cosine)), 4),
        })  # fmt: skip
    return rows


def _unit(v: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return np.asarray(v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12), np.float32)
