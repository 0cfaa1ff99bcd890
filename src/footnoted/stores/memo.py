"""What a store works out from its documents, kept until the documents change.

Both backends keep a ``documents_revision`` counter that a trigger moves on every change
to ``documents`` (chunks and vectors only change with them). Each process reads it
(one cheap query) and reuses what it computed at the same revision: chunk counts, the
embedding models, term counts, the vector index's watermark. The revision becomes
visible when the change commits, so nothing computed from the old documents outlives it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class Memo:
    """Values shared by every thread of a process, forgotten when the revision moves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision: int | None = None
        self._values: dict[Hashable, Any] = {}

    def get(self, revision: int, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            if self._revision != revision:
                self._revision = revision
                self._values = {}
            if key in self._values:
                return self._values[key]  # type: ignore[no-any-return]
        value = compute()
        with self._lock:
            if self._revision == revision:
                self._values[key] = value
        return value
