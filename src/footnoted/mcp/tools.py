"""The MCP server's tools, ``search`` and ``ask``, over a :class:`Backend`.

A backend answers for one caller: in this process (``footnoted mcp``) or through the
running server's chat service as the token's user (``/mcp``). Both return footnoted's own
data (citations, ``/api/chat``'s JSON answer or refusal); :mod:`.results` shapes it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from .. import __version__
from ..errors import FootnotedError
from ..models import Citation
from ..records import FeedbackKind
from ..service.facade import MAX_QUESTION_CHARS, Footnoted
from . import results

INSTRUCTIONS = (
    "footnoted answers questions from the user's own documents and cites every claim. "
    "Use `ask` for an answer with its sources, `search` for the passages themselves. "
    "Quote the sources you rely on. When `ask` is refused, the documents do not hold "
    "the answer: say so rather than answering from elsewhere."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

Question = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS)]
CollectionName = Annotated[
    str | None,
    Field(default=None, description="The collection (knowledge base); the default when left out."),
]
Limit = Annotated[int, Field(default=5, ge=1, le=50, description="How many passages.")]


class Backend(Protocol):
    """footnoted for one caller."""

    @property
    def service(self) -> Footnoted: ...

    def search(self, query: str, collection: str, limit: int) -> tuple[Citation, ...]:
        """The best passages as citations (numbered from 1), with their links."""
        ...

    def ask(self, question: str, collection: str) -> dict[str, Any]:
        """``/api/chat``'s JSON answer or refusal."""
        ...

    def feedback(
        self, message_id: str, kind: FeedbackKind, citation: int | None, note: str
    ) -> dict[str, Any]:
        """Record the caller's word on their answer ``message_id``."""
        ...


BackendFor = Callable[[Context[Any, Any]], Backend]


def collection_name(service: Footnoted, name: str | None) -> str:
    """The collection asked for, which must exist (as with ``/v1``'s ``model``)."""
    default = service.settings.collection
    known = sorted({default, *service.store.collections()})
    if name is None or name == "":
        return default
    if name not in known:
        raise ToolError(f"No collection named {name!r}; the collections are: {', '.join(known)}.")
    return name


def _call(work: Callable[[], CallToolResult]) -> CallToolResult:
    """Our errors as the tool's error (``isError``), with their stable code."""
    try:
        return work()
    except FootnotedError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from exc


def _server() -> MCPServer:
    """The SDK's server, leaving the process's logging as it was (it configures the root
    logger when built: that is for the host, ``footnoted serve`` or the MCP host)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return MCPServer(
            "footnoted", title="footnoted", version=__version__, instructions=INSTRUCTIONS
        )
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def build_server(backend_for: BackendFor) -> MCPServer:
    server = _server()

    @server.tool(title="Ask the documents", annotations=READ_ONLY)
    def ask(
        question: Question, ctx: Context[Any, Any], collection: CollectionName = None
    ) -> Annotated[CallToolResult, results.AskResult]:
        """Answer a question from the documents, citing each claim with [N] markers.

        Returns the answer and, per source, its title, page, section, link and the
        quoted passage; or a refusal (refused: true) when the documents do not hold
        the answer.
        """
        backend = backend_for(ctx)
        coll = collection_name(backend.service, collection)
        return _call(lambda: results.reply(backend.ask(question, coll)))

    @server.tool(
        title="Give feedback on an answer",
        annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False),
    )
    def feedback(
        message_id: Annotated[str, Field(min_length=1, max_length=200)],
        kind: FeedbackKind,
        ctx: Context[Any, Any],
        citation: Annotated[int | None, Field(default=None, ge=1, le=1000)] = None,
        note: Annotated[str, Field(default="", max_length=2000)] = "",
    ) -> Annotated[CallToolResult, results.FeedbackResult]:
        """Tell the admins whether an `ask` answer (its `message_id`) helped: `helpful` or
        `unhelpful`; or flag one of its sources (`citation`, the N of its [N]) as
        `does_not_say` (the passage does not say this) or `wrong_page`. Only when the
        user says so; never on your own judgement."""
        backend = backend_for(ctx)
        return _call(lambda: results.noted(backend.feedback(message_id, kind, citation, note)))

    @server.tool(title="Search the documents", annotations=READ_ONLY)
    def search(
        query: Question,
        ctx: Context[Any, Any],
        collection: CollectionName = None,
        limit: Limit = 5,
    ) -> Annotated[CallToolResult, results.SearchResult]:
        """Find the passages that best match a query, best first.

        Each passage has its title, page, section, link, text and relevance (0..1);
        relevance below the threshold is weak evidence.
        """
        backend = backend_for(ctx)
        coll = collection_name(backend.service, collection)
        threshold = backend.service.collection_settings(coll).evidence_threshold
        return _call(lambda: results.found(coll, threshold, backend.search(query, coll, limit)))

    return server
