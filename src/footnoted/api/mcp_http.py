"""MCP on the running server: streamable HTTP at ``/mcp``, as the bearer token's user.

The same tokens as the API (``Authorization: Bearer <token>``; none or a bad one is a
401 in footnoted's error shape). ``ask`` goes through the chat service like
``/api/chat`` (rate limit, history, the refusal log) and ``search`` through retrieval;
citation links follow the collection's ``citation_link_mode``, made absolute. Stateless
(any worker answers any request) with JSON responses.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urljoin

import anyio
from fastapi import FastAPI
from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..answering.citations import make_citation
from ..errors import Unauthorized
from ..mcp.tools import build_server
from ..models import Citation
from ..records import FeedbackKind, User
from ..service import feedback
from ..service.facade import Footnoted
from .auth import user_for
from .schemas import ChatRequest
from .state import AppState

PATH = "/mcp"
USER_KEY = "footnoted.user"  # where the endpoint leaves the token's user in the scope


@dataclass
class Served:
    """The backend of ``/mcp``: the app's services, for one user."""

    state: AppState
    user: User
    base_url: str

    @property
    def service(self) -> Footnoted:
        return self.state.service

    def _absolute(self, citations: Iterable[Citation]) -> list[Citation]:
        """Download links made absolute against the server's address."""
        base = self.base_url
        return [
            replace(c, download_url=urljoin(base, c.download_url)) if c.download_url else c
            for c in citations
        ]

    def search(self, query: str, collection: str, limit: int) -> tuple[Citation, ...]:
        hits = self.service.retrieve(query, collection, limit).hits
        mode = self.service.collection_settings(collection).citation_link_mode
        cites = self.state.links.decorate(
            [make_citation(i, h) for i, h in enumerate(hits, 1)], mode, self.user.token_id
        )
        return tuple(self._absolute(cites))

    def ask(self, question: str, collection: str) -> dict[str, Any]:
        request = ChatRequest(message=question, message_id=uuid.uuid4().hex, collection=collection)
        _, turn = self.state.claim(self.user, request, "mcp")  # counts against the rate limit
        payload = self.state.chat.answer_json(turn)  # stored in the user's history
        if "citations" in payload:
            cites = self._absolute(Citation.from_dict(c) for c in payload["citations"])
            payload = {**payload, "citations": [c.to_dict() for c in cites]}
        return payload

    def feedback(
        self, message_id: str, kind: FeedbackKind, citation: int | None, note: str
    ) -> dict[str, Any]:
        store = self.service.store
        return feedback.give(store, self.user, message_id, kind, citation, note).to_dict()


def _served(ctx: Context[Any, Any]) -> Served:
    request = ctx.request_context.request
    if not isinstance(request, Request) or USER_KEY not in request.scope:
        raise Unauthorized("Send an API token: Authorization: Bearer <token>.")
    state: AppState = request.app.state.footnoted
    return Served(state, request.scope[USER_KEY], str(request.base_url))


def _token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Send an API token: Authorization: Bearer <token>.")
    return token


class Endpoint:
    """``/mcp`` (an ASGI app): authenticate, then hand over to the MCP session manager."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        token = _token(request)
        scope[USER_KEY] = await anyio.to_thread.run_sync(user_for, request, token)
        manager: StreamableHTTPSessionManager = request.app.state.mcp_sessions
        await manager.handle_request(scope, receive, send)


def install(app: FastAPI) -> None:
    app.router.routes.append(Route(PATH, endpoint=Endpoint()))


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """The MCP sessions of one app lifespan (a manager runs once, so one per lifespan)."""
    server = build_server(_served)
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        # Bearer tokens, never cookies: a rebound host name gets nothing without one.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app.state.mcp_sessions = server.session_manager
    async with server.session_manager.run():
        yield
