"""The sentence-transformers model run by ONNX Runtime, in fp32 or with int8 weights.

Two uses. fp32 embeds one text at a time, which is what a question is: PyTorch spends
most of such a call on per-operator overhead, ONNX Runtime about a third of it, and the
vectors are the same (cosine to PyTorch's above 0.99999). int8 embeds chunks, each
alone and unpadded, where the embedding precision is int8 (``auto`` on CPUs that
multiply int8 natively, without AMX).

On first use the transformer is exported to ONNX from the local weights (and, for int8,
quantised: dynamic, per channel, all but ``FP32_IN_INT8``) into the model cache; later
processes load the file.
Where the cache cannot be written, the export is kept in memory. Nothing is downloaded.
Pooling and normalisation are :func:`footnoted.inference.sentence_model.pool`, as for PyTorch.
The reader's fp32 path is exported, cached and run by the same functions
(``export_module``, ``cached_export``, ``session``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import platform
import statistics
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .sentence_model import ModelConfig, pool

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()
log = logging.getLogger(__name__)


def onnx_path(model_dir: str, cache: Path, precision: str) -> Path:
    """Where the exported file for this model lives: named after the model's weights."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(model_dir)):
        if name.endswith((".safetensors", ".bin", "config.json")):
            stat = (Path(model_dir) / name).stat()
            digest.update(f"{name}:{stat.st_size}".encode())
    return cache / f"{Path(model_dir).name}-{digest.hexdigest()[:12]}-{precision}.onnx"


def export_module(
    module: Any,
    args: tuple[Any, ...],
    inputs: Sequence[str],
    outputs: Sequence[str],
    target: Path,
    int8: bool = False,
    unpadded: bool = False,
    fp32_matmuls: Sequence[str] = (),
) -> None:
    """Export a PyTorch module to ONNX at ``target`` (every input and output dynamic in
    batch and tokens); ``int8`` also quantises its weights (dynamic, per channel), but
    for the matrix products whose node names contain one of ``fp32_matmuls``.
    ``unpadded``: it will only ever run on sequences without padding, so its attention
    does without the mask (``without_attention_mask``)."""
    import torch

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32 = target.with_suffix(f".fp32.{os.getpid()}.onnx")
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*inputs, *outputs)}
    quiet = logging.getLogger()
    level = quiet.level
    try:
        quiet.setLevel(logging.ERROR)  # onnxruntime's quantiser advises on the root logger
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module.eval(), args, str(fp32), input_names=list(inputs),
                output_names=list(outputs), dynamic_axes=axes, opset_version=17, dynamo=False,
            )  # fmt: skip
            if unpadded:
                without_attention_mask(fp32)
            if int8:
                from onnxruntime.quantization import QuantType, quantize_dynamic

                kept = [
                    n.name for n in _nodes(fp32, "MatMul") if any(k in n.name for k in fp32_matmuls)
                ]
                quantize_dynamic(
                    str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                    nodes_to_exclude=kept,
                )  # fmt: skip
            else:
                fp32.replace(tmp)
        tmp.replace(target)
    finally:
        quiet.setLevel(level)
        fp32.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)


def _nodes(path: Path, op_type: str) -> list[Any]:
    import onnx

    return [node for node in onnx.load(str(path)).graph.node if node.op_type == op_type]


def without_attention_mask(path: Path) -> None:
    """Rewrite an exported encoder's attention for sequences without padding, in place.

    The export adds the mask to every layer's attention scores (0 where a token is
    kept, -inf where it is padding) and, after the softmax, zeroes the rows the mask
    emptied (NaN). With no padding the mask adds 0.0 and no row is empty, so both are
    identities: each softmax now reads the scores directly and the mask's nodes are
    dropped, with the same outputs to the bit and about 12% less time a window (int8 on a
    2-core AMD EPYC: 17.1 ms instead of 19.5 for SQuAD windows of 160 tokens). A graph
    of another shape is left as it is."""
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    made = {out: node for node in graph.node for out in node.output}

    def op(name: str) -> str:
        return made[name].op_type if name in made else ""

    edits: list[tuple[Any, str]] = []  # (softmax, the scores it should read)
    renames: dict[str, str] = {}  # Where(IsNaN(p), 0, p) -> p
    for node in graph.node:
        if node.op_type == "Softmax":
            if op(node.input[0]) != "Add":
                return
            added = [x for x in made[node.input[0]].input if op(x) != "Where"]
            if len(added) != 1:
                return
            edits.append((node, added[0]))
        elif node.op_type == "Where" and op(node.input[0]) == "IsNaN":
            if made[node.input[0]].input[0] != node.input[2] or op(node.input[2]) != "Softmax":
                return
            renames[node.output[0]] = node.input[2]
    if not edits:
        return
    for softmax, scores in edits:
        softmax.input[0] = scores
    for node in graph.node:
        for i, name in enumerate(node.input):
            node.input[i] = renames.get(name, name)
    outputs = {o.name for o in graph.output}
    while True:  # drop what nothing reads any more
        read = {name for node in graph.node for name in node.input} | outputs
        unread = [node for node in graph.node if not read.intersection(node.output)]
        if not unread:
            break
        for node in unread:
            graph.node.remove(node)
    onnx.save(model, str(path))


FP32_IN_INT8 = ("/layer.0/output/dense/",)
"""The matrix products the int8 export keeps in fp32: the first layer's feed-forward
output, whose activations have the widest range. Measured on 408 of the shared PDFs'
chunks, one thread (ms a chunk; cosine of each vector to fp32's, lowest and median):
every product in int8 10.9 ms, 0.980 / 0.9933; this one kept 11.6 ms, 0.989 / 0.9948;
the first two layers' 12.4 ms, 0.992 / 0.9955; every layer's 16.1 ms, 0.994 / 0.9969;
the attention outputs' 12.3 ms, 0.984 / 0.9936; the first layer whole 13.5 ms, 0.989 /
0.9952; fp32 throughout 25.5 ms. On the follow-up set (docs/conversations.md) 69.8%
of follow-ups cite the right passage with every product in int8, 70.9% with this one
kept, as in bf16 and fp32."""
INT8_EXPORT = "int8-ffn0"  # the int8 export's name in the cache: a new one with each change


def export(transformer: Any, tokenizer: Any, target: Path, precision: str) -> None:
    """Export a transformer to ONNX (its token vectors); int8 also quantises it (but
    ``FP32_IN_INT8``), for texts read alone and unpadded (``without_attention_mask``)."""
    import torch

    class Transformer(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            out = self.model(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return out.last_hidden_state

    sample = tokenizer(["an example", "two more"], padding=True, return_tensors="pt")
    args = tuple(sample.get(name, torch.zeros_like(sample["input_ids"])) for name in INPUTS)
    int8 = precision == "int8"
    export_module(
        Transformer(transformer), args, INPUTS, ["hidden"], target, int8, unpadded=int8,
        fp32_matmuls=FP32_IN_INT8,
    )  # fmt: skip


def exported(
    load: Callable[[], Any], tokenizer: Any, model_dir: str, cache: Path, precision: str
) -> Path | bytes:
    """The exported model: a file in the cache, or its bytes when the cache is read-only.
    ``load`` gives the transformer with its fp32 weights, called only to export it."""
    path = onnx_path(model_dir, cache, INT8_EXPORT if precision == "int8" else precision)
    return cached_export(path, lambda target: export(load(), tokenizer, target, precision))


def cached_export(path: Path, make: Callable[[Path], None]) -> Path | bytes:
    """``path`` once ``make`` has written it (only the first caller makes it); where the
    cache cannot be written, the export's bytes, made in a temporary folder."""
    with _export_lock:
        if path.exists():
            return path
        try:
            make(path)
            return path
        except OSError as exc:
            log.warning("model cache %s not writable (%s); exporting in memory", path.parent, exc)
        with tempfile.TemporaryDirectory(prefix="footnoted-onnx-") as tmp:
            target = Path(tmp) / path.name
            make(target)
            return target.read_bytes()


def session(model: Path | bytes, threads: int) -> Any:
    """An ONNX Runtime session on the CPU with ``threads`` threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that sleep instead of spinning cost little alone and help on a busy machine.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    source = str(model) if isinstance(model, Path) else model
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), or the platform's processor."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def onnx_is_faster(
    model: Path | bytes, threads: int, in_torch: Callable[[], object], in_onnx: Callable[[], object]
) -> bool:
    """Whether ONNX Runtime runs an fp32 model faster than PyTorch on this CPU.

    It depends on the CPU: PyTorch's fp32 matrix products come from MKL, which is slow
    on AMD. On a 2-core AMD EPYC, ONNX Runtime embedded 1.7x the chunks a second and
    read in 0.6 of the time; on an earlier 2-core machine with AVX512-VNNI (no native
    bf16) it embedded 0.74x. So both run the same sample (3 alternating rounds, median)
    once per machine, model and thread count, and the answer is kept beside the export
    (``<export>.speed-<threads>.json``, measured again on another CPU)."""
    record = model.with_suffix(f".speed-{threads}.json") if isinstance(model, Path) else None
    key = {"cpu": cpu_name(), "threads": threads}
    if record is not None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            saved = json.loads(record.read_text())
            if {k: saved.get(k) for k in key} == key:
                return bool(saved["onnx_ms"] < saved["torch_ms"])
    times: dict[str, list[float]] = {"torch_ms": [], "onnx_ms": []}
    for _ in range(3):
        for name, run in (("torch_ms", in_torch), ("onnx_ms", in_onnx)):
            started = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - started) * 1000)
    measured = {name: round(statistics.median(values), 2) for name, values in times.items()}
    log.info("fp32 on %s, %d threads: %s", key["cpu"], threads, measured)
    if record is not None:
        with contextlib.suppress(OSError):
            record.write_text(json.dumps({**key, **measured}))
    return measured["onnx_ms"] < measured["torch_ms"]


class OnnxEncoder:
    """Encodes with an exported model; mean or CLS pooling, L2-normalised output."""

    def __init__(
        self, tokenizer: Any, config: ModelConfig, model: Path | bytes, threads: int
    ) -> None:
        self.source = model
        self.session = session(model, threads)
        self.tokenizer = tokenizer
        self.max_tokens = config.max_tokens
        self.cls_pooling = config.cls_pooling

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
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="np"
        )
        return self.forward(dict(encoded))[1]

    def forward(
        self, encoded: dict[str, Any]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Token vectors and text vectors (pooled, normalised) of one tokenised batch."""
        feeds = {name: encoded[name].astype(np.int64) for name in INPUTS if name in encoded}
        if "token_type_ids" not in feeds:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        hidden = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
        return hidden, pool(hidden, feeds["attention_mask"], self.cls_pooling)
