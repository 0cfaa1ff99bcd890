"""``create_app()``: the FastAPI application (routes, errors, limits, lifespan)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from .. import __version__
from ..inference.runtime import set_threads
from ..service.facade import Footnoted
from ..settings import Settings
from . import errors, mcp_http
from .limits import BodyLimit
from .responses import SafeJSONResponse
from .routes import (
    admin,
    chat,
    collections,
    documents,
    feedback,
    pages,
    public,
    sessions,
    signin,
    v1,
)
from .state import AppState
from .web import DOCS_ASSETS, SecurityHeaders, static_files
from .web import router as web_router


def create_app(settings: Settings | None = None, service: Footnoted | None = None) -> FastAPI:
    """The HTTP API. Pass a ``service`` to share one (tests); else one is opened and closed."""
    owns = service is None
    fn = service or Footnoted(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = AppState.build(fn, owns)
        app.state.footnoted = state
        threads = set_threads(fn.settings.serve_embedding_threads)
        await anyio.to_thread.run_sync(fn.uploads.recover)  # before any request is served
        state.warmup.start()  # the model loads meanwhile; /api/health says when it is ready
        try:
            async with mcp_http.running(app):
                yield
        finally:
            state.close()
            set_threads(threads)

    # The API docs (/docs, /redoc) with Swagger UI's and ReDoc's files served from here,
    # not a CDN: they work offline.
    app = FastAPIOffline(
        static_url=DOCS_ASSETS,
        title="footnoted",
        version=__version__,
        description="Answers over your documents, every claim footnoted to its passage.",
        default_response_class=SafeJSONResponse,
        lifespan=lifespan,
    )
    errors.install(app)
    routers = (public, signin, chat, sessions, feedback, documents, pages, collections, admin, v1)
    for module in routers:
        app.include_router(module.router)
    app.include_router(web_router)
    mcp_http.install(app)  # MCP over streamable HTTP at /mcp
    app.mount("/ui", static_files(), name="ui")
    max_bytes = int(fn.settings.max_file_mb * 1024 * 1024)
    app.add_middleware(BodyLimit, max_file_bytes=max_bytes)
    app.add_middleware(SecurityHeaders)
    return app
