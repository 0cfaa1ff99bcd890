"""``footnoted mcp``: the MCP server over stdio, answering in this process.

The models load in the background as the server starts; a question asked meanwhile
waits for them. Links are the URLs given at upload (there is no server to link to).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context

from ..answering.citations import make_citation
from ..api.wire import answer_here
from ..errors import InvalidInput
from ..models import Citation
from ..records import FeedbackKind
from ..service.facade import Footnoted
from ..settings import Settings
from .tools import build_server


@dataclass
class Local:
    """The backend of ``footnoted mcp``: this process's :class:`Footnoted`."""

    service: Footnoted

    def search(self, query: str, collection: str, limit: int) -> tuple[Citation, ...]:
        hits = self.service.retrieve(query, collection, limit).hits
        return tuple(make_citation(i, hit) for i, hit in enumerate(hits, 1))

    def ask(self, question: str, collection: str) -> dict[str, Any]:
        return answer_here(self.service, question, collection)

    def feedback(
        self, message_id: str, kind: FeedbackKind, citation: int | None, note: str
    ) -> dict[str, Any]:
        raise InvalidInput(
            "footnoted mcp keeps no history to give feedback on: connect to a server's /mcp "
            "(its answers are stored for their user and carry a message_id).",
            code="feedback_needs_server",
        )


def serve_stdio(settings: Settings | None = None) -> None:
    """Serve MCP on standard input and output until the client closes them."""
    with Footnoted(settings or Settings()) as fn:
        threading.Thread(target=fn.warm_up, name="footnoted-warmup", daemon=True).start()
        local = Local(fn)

        def backend_for(ctx: Context[Any, Any]) -> Local:
            return local

        build_server(backend_for).run("stdio")
