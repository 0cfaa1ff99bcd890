"""Per-collection settings: what a knowledge base answers with, and how it links sources.

Stored values override the defaults taken from :class:`~footnoted.settings.Settings`
(``top_k``, ``evidence_threshold``); everything else has a fixed default.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from .errors import InvalidInput
from .settings import Settings

LinkMode = Literal["none", "authenticated", "public"]
GenerationMode = Literal["extractive", "llm"]
MAX_EXAMPLES = 6
Question = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


class CollectionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enable_rag: bool = Field(
        default=True, description="Search the documents; off answers without consulting them."
    )
    enable_citations: bool = Field(
        default=True, description="Send citations, referenced indices and spans with answers."
    )
    citation_link_mode: LinkMode = Field(
        default="authenticated",
        description=(
            "download_url on citations: none, an authenticated download route, or a "
            "signed public link that expires."
        ),
    )
    generation_mode: GenerationMode = Field(
        default="extractive",
        description="extractive quotes the documents; llm writes an answer with an LLM.",
    )
    evidence_threshold: float = Field(
        default=0.35, ge=0.0, le=1.0, description="Lowest best-chunk similarity that answers."
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Chunks retrieved per question.")
    example_questions: tuple[Question, ...] = Field(
        default=(),
        max_length=MAX_EXAMPLES,
        description="Questions an empty chat offers, to show what the collection answers.",
    )


def defaults(settings: Settings) -> CollectionSettings:
    return CollectionSettings(
        evidence_threshold=settings.evidence_threshold,
        top_k=settings.top_k,
        generation_mode=settings.generation_mode,
    )


def resolve(stored: dict[str, Any], settings: Settings) -> CollectionSettings:
    """Defaults overlaid with the stored values (unknown stored keys are ignored)."""
    base = defaults(settings).model_dump()
    known = {k: v for k, v in stored.items() if k in CollectionSettings.model_fields}
    return CollectionSettings.model_validate({**base, **known})


def merge(current: CollectionSettings, changes: dict[str, Any]) -> CollectionSettings:
    """Apply a partial update, or raise ``InvalidInput`` naming what is wrong."""
    try:
        return CollectionSettings.model_validate({**current.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise InvalidInput(f"{where}: {first['msg']}", code="invalid_settings") from exc
