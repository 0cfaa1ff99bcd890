"""The ``Store`` protocol: everything the service needs from a database.

SQLite (default) and PostgreSQL implement it side by side; one contract test suite
runs against each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..models import Chunk, Document

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as retrieval sees it: with its document's title and url, and its vector."""

    chunk: Chunk
    document_title: str
    document_url: str | None
    vector: Vector


class Store(Protocol):
    def close(self) -> None: ...

    # -- documents -------------------------------------------------------------------
    def get_document(self, document_id: str) -> Document:
        """The document, or ``NotFound``."""
        ...

    def find_document(self, collection: str, source: str) -> Document | None: ...

    def list_documents(self, collection: str | None = None) -> list[Document]: ...

    def save_document(
        self, document: Document, text: str, chunks: Sequence[Chunk], vectors: Vector
    ) -> None:
        """Insert a ready document with its chunks and vectors in one transaction.

        Any document with the same (collection, source) is replaced atomically.
        """
        ...

    def set_enabled(self, document_id: str, enabled: bool) -> Document: ...

    def delete_document(self, document_id: str) -> None: ...

    def document_text(self, document_id: str) -> str: ...

    def document_chunks(self, document_id: str) -> list[Chunk]: ...

    def collections(self) -> list[str]: ...

    # -- retrieval --------------------------------------------------------------------
    def count_chunks(self, collection: str) -> int:
        """Chunks of enabled, ready documents in the collection."""
        ...

    def embedding_models(self, collection: str) -> set[str]:
        """Models that made the vectors of the collection's ready documents."""
        ...

    def dense_search(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity), best first, over enabled, ready documents."""
        ...

    def keyword_search(self, collection: str, terms: Sequence[str], k: int) -> list[str]:
        """Chunk ids ranked by BM25 over chunk text, title and section (any term matches)."""
        ...

    def fetch_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        """The chunks with these ids that belong to enabled, ready documents, in given order."""
        ...
