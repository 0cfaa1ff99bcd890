"""A sentence-transformers model folder, read and run with ``transformers`` alone.

The folder's ``modules.json`` says how texts become vectors: a Transformer, a Pooling
(mean or CLS token) and optionally Normalize, which is what footnoted runs (its vectors
are always L2-normalised). A folder without ``modules.json`` is a plain transformer,
mean-pooled, as sentence-transformers treats it. Anything else (Dense layers, other
pooling modes, lower-casing) is refused with a clear error rather than embedded wrongly.

sentence-transformers itself is not imported: its import pulls in scikit-learn and SciPy
and costs about 2 s per process, more than loading the model (measured: 1.9 s of a
3.2 s import, beside 0.5 s to load all-MiniLM-L6-v2).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from ..errors import ModelUnavailable

Vectors = npt.NDArray[np.float32]
MODULES = ("Transformer", "Pooling", "Normalize")
# Batches are padded to a multiple of 16 tokens. PyTorch's bf16 path (oneDNN) keeps a
# compiled kernel for every input shape it meets. The reader over 255 real reads:
# unrounded shapes grew the process by 660 MB, rounded ones by 38 MB, and ran 5% faster
# (54.6 vs 57.3 ms). Embedding the shared PDFs' 2,852 chunks in bf16: peak RSS 1,885 MB
# unrounded, 937 MB rounded, 40.0 vs 35.3 s.
PAD_TO = 16


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """What the folder declares: vector size, tokens read, pooling."""

    dim: int
    max_tokens: int
    cls_pooling: bool

    @classmethod
    def read(cls, path: Path) -> ModelConfig:
        config = _json(path / "config.json") or {}
        sbert = _json(path / "sentence_bert_config.json") or {}
        if sbert.get("do_lower_case"):
            _unsupported(path, "lower-cases its input")
        modules = _json(path / "modules.json")
        cls_pooling = False
        for module in modules or []:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            if kind not in MODULES:
                _unsupported(path, f"has a {kind} module")
            if kind == "Pooling":
                cls_pooling = _cls_pooling(path, _json(path / module["path"] / "config.json") or {})
        return cls(
            dim=int(config.get("hidden_size", 384)),
            max_tokens=int(sbert.get("max_seq_length") or 256),
            cls_pooling=cls_pooling,
        )


def _json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def _cls_pooling(path: Path, pooling: dict[str, Any]) -> bool:
    modes = [key for key, value in pooling.items() if key.startswith("pooling_mode") and value]
    if modes == ["pooling_mode_cls_token"]:
        return True
    if modes in ([], ["pooling_mode_mean_tokens"]):
        return False
    _unsupported(path, f"pools by {', '.join(modes)}")


def _unsupported(path: Path, what: str) -> NoReturn:
    raise ModelUnavailable(
        f"The embedding model at {path} {what}: footnoted runs models made of a "
        "transformer, mean or CLS pooling and normalisation (as all-MiniLM-L6-v2 is)."
    )


def _offline() -> None:
    """Nothing is downloaded, and no library prints progress bars or advice."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class SharedTokenizer:
    """A fast tokenizer that threads share: one call at a time.

    The Rust tokenizer takes its truncation and padding as state, set on every call, so
    two threads tokenizing at once can fail with "Already borrowed" (answers run side by
    side, and an upload may be ingested meanwhile). A call takes about a millisecond."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return self._tokenizer(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tokenizer, name)


def load_tokenizer(path: str) -> SharedTokenizer:
    """The folder's fast tokenizer. Where the folder has a ``tokenizer.json`` (as
    all-MiniLM-L6-v2's does), ``PreTrainedTokenizerFast`` reads it directly: 0.8 s in a
    new process against ``AutoTokenizer``'s 3.4 s, which imports PyTorch to resolve the
    tokenizer's class; the ids and offsets are the same (``tests/test_sentence_model.py``).
    It returns no ``token_type_ids``: every model here reads zeros without them."""
    _offline()
    if (Path(path) / "tokenizer.json").is_file():
        from transformers import PreTrainedTokenizerFast

        fast = PreTrainedTokenizerFast.from_pretrained(path, local_files_only=True)
        return SharedTokenizer(fast)
    from transformers import AutoTokenizer

    return SharedTokenizer(AutoTokenizer.from_pretrained(path, local_files_only=True))


def load_transformer(path: str) -> Any:
    _offline()
    from transformers import AutoModel

    return AutoModel.from_pretrained(path, local_files_only=True).eval()


def pool(hidden: Vectors, mask: npt.NDArray[Any], cls_pooling: bool) -> Vectors:
    """Text vectors from token vectors: the CLS token's or the mean over real tokens,
    L2-normalised."""
    if cls_pooling:
        pooled = hidden[:, 0]
    else:
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)
