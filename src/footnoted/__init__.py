"""footnoted: answers over your own documents, every claim footnoted to its passage."""

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
from .service import AskResult, Footnoted, answer_payload, refusal_payload
from .settings import Settings

__version__ = "0.1.0"

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
    "answer_payload",
    "refusal_payload",
]
