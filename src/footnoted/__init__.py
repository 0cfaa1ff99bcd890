"""footnoted: answers over your own documents, every claim footnoted to its passage.

The public face is the core's types only. The service (and with it the embedding
model's libraries) is imported on first use, so that ``footnoted.loaders`` and the
chunker load quickly and lightly in the parse worker process (see
:mod:`footnoted.ingest.parsing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import FootnotedError
from .models import (
    Chunk,
    Citation,
    Delta,
    Document,
    Done,
    Event,
    Evidence,
    Failed,
    ParsedDocument,
    Refusal,
    Segment,
    Sources,
    Span,
    Started,
)

if TYPE_CHECKING:
    from .service import AskResult, Footnoted
    from .settings import Settings

__version__ = "0.1.0"

_LAZY = {
    "AskResult": "service",
    "Footnoted": "service",
    "Settings": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'footnoted' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AskResult",
    "Chunk",
    "Citation",
    "Delta",
    "Document",
    "Done",
    "Event",
    "Evidence",
    "Failed",
    "Footnoted",
    "FootnotedError",
    "ParsedDocument",
    "Refusal",
    "Segment",
    "Settings",
    "Sources",
    "Span",
    "Started",
    "__version__",
]
