"""Timestamps, JSON columns and sentence vectors, stored the same way by every backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt


def now() -> str:
    """UTC, to the microsecond: sessions updated in the same millisecond keep their order."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def pack_sentences(sentences: Sequence[npt.NDArray[np.float32]], chunks: int) -> list[bytes | None]:
    """Each chunk's sentence vectors as float16 bytes, row after row; all ``None`` where
    none were made (``sentences`` empty)."""
    if not sentences:
        return [None] * chunks
    return [np.asarray(v, dtype="<f2").tobytes() for v in sentences]


def unpack_sentences(
    blobs: Sequence[bytes | None], dim: int
) -> list[npt.NDArray[np.float32] | None]:
    """The float32 matrices ``pack_sentences`` stored, one row per sentence (decoded in
    one pass: a query fetches dozens of chunks)."""
    joined = np.frombuffer(b"".join(b for b in blobs if b), dtype="<f2").astype(np.float32)
    rows = joined.reshape(-1, dim) if joined.size else np.zeros((0, dim), dtype=np.float32)
    out: list[npt.NDArray[np.float32] | None] = []
    at = 0
    for blob in blobs:
        n = None if blob is None else len(blob) // (2 * dim)
        out.append(None if n is None else rows[at : at + n])
        at += n or 0
    return out
