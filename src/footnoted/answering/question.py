"""A question as every transport asks it: one value, built once and passed down whole.

The web UI's ``/api/chat``, ``/v1``, MCP, ``footnoted ask`` and the evaluations each
build a :class:`Question` from what they were sent; ``Footnoted.ask`` and ``answer``
resolve its collection and that collection's settings once (:meth:`Question.resolved`),
and the pipeline reads everything it needs from it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..settings import CollectionSettings
from .conversation import NO_CONVERSATION, Conversation


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    collection: str | None = None  # None: the default collection
    settings: CollectionSettings | None = None  # None: the collection's stored ones
    top_k: int | None = None  # None: the collection's
    threshold: float | None = None  # None: the collection's evidence threshold
    embedding: list[float] | None = None  # the client's own vector of ``text``
    conversation: Conversation = NO_CONVERSATION  # earlier turns, the client's instructions
    citations: bool = True  # the client wants citation fields (the collection may not)

    def resolved(self, collection: str, settings: CollectionSettings) -> Question:
        """The question with its collection and that collection's settings named."""
        return replace(
            self, collection=self.collection or collection, settings=self.settings or settings
        )

    @property
    def where(self) -> str:
        assert self.collection is not None, "resolve the question first"
        return self.collection

    @property
    def config(self) -> CollectionSettings:
        assert self.settings is not None, "resolve the question first"
        return self.settings
