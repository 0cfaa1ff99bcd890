"""int8 embeddings: the sentence-transformers model run by ONNX Runtime, weights in int8.

On first use the model's transformer is exported to ONNX from the local weights and
quantised (dynamic int8, per channel) into ``<home>/models``; later processes load the
file. Nothing is downloaded. Pooling and normalisation match sentence-transformers.
Needs the ``int8`` extra: ``pip install 'footnoted[int8]'`` (onnxruntime and onnx).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import ModelUnavailable

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


def _require_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise ModelUnavailable(
            "int8 embeddings need ONNX Runtime: pip install 'footnoted[int8]'"
        ) from exc
    return onnxruntime


def quantised_path(model_dir: str, cache: Path) -> Path:
    """Where the int8 file for this model lives: named after the model's weights."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(model_dir)):
        if name.endswith((".safetensors", ".bin", "config.json")):
            stat = (Path(model_dir) / name).stat()
            digest.update(f"{name}:{stat.st_size}".encode())
    return cache / f"{Path(model_dir).name}-{digest.hexdigest()[:12]}-int8.onnx"


def export_int8(st_model: Any, target: Path) -> None:
    """Export the transformer of a SentenceTransformer to ONNX and quantise it to int8."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    class Transformer(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            out = self.model(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return out.last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32 = target.with_suffix(f".fp32.{os.getpid()}.onnx")
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    sample = st_model.tokenizer(["an example", "two more"], padding=True, return_tensors="pt")
    args = tuple(sample[name] for name in INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "hidden")}
    wrapper = Transformer(st_model[0].auto_model).eval()
    quiet = logging.getLogger()
    level = quiet.level
    try:
        quiet.setLevel(logging.ERROR)  # onnxruntime's quantiser advises on the root logger
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                wrapper, args, str(fp32), input_names=list(INPUTS), output_names=["hidden"],
                dynamic_axes=axes, opset_version=17, dynamo=False,
            )  # fmt: skip
            quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
        tmp.replace(target)
    finally:
        quiet.setLevel(level)
        fp32.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)


class Int8Encoder:
    """Encodes with an int8 ONNX model; mean or CLS pooling, L2-normalised output."""

    def __init__(self, st_model: Any, cache: Path, model_dir: str, threads: int) -> None:
        ort = _require_onnxruntime()
        path = quantised_path(model_dir, cache)
        with _export_lock:
            if not path.exists():
                export_int8(st_model, path)
        self.session = _session(ort, path, threads)
        self.single = _session(ort, path, 1)  # one short question: more threads only wait
        self.tokenizer = st_model.tokenizer
        self.max_tokens = int(st_model.max_seq_length)
        self.cls_pooling = _uses_cls(st_model)

    def encode(self, texts: Sequence[str], batch_size: int) -> npt.NDArray[np.float32]:
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), 0), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            idx = order[start : start + batch_size]
            vectors = self._batch([texts[i] for i in idx])
            if out.shape[1] == 0:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[idx] = vectors
        return out

    def _batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        session = self.single if len(texts) == 1 else self.session
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="np"
        )
        feeds = {name: encoded[name].astype(np.int64) for name in INPUTS if name in encoded}
        if "token_type_ids" not in feeds:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        hidden = session.run(None, feeds)[0]
        if self.cls_pooling:
            pooled = hidden[:, 0]
        else:
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)


def _session(ort: Any, path: Path, threads: int) -> Any:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that sleep instead of spinning cost little alone and help on a busy machine.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _uses_cls(st_model: Any) -> bool:
    for module in st_model:
        mode = getattr(module, "get_pooling_mode_str", None)
        if mode is not None:
            return bool(mode() == "cls")
    return False
