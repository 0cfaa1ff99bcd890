"""What the routes share: the service, links, limits and the worker pools."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ..errors import RateLimited
from ..records import Claim, Origin, User
from ..service.facade import Footnoted
from ..service.oidc import Provider
from .chat import ChatService, Turn
from .limits import RateLimiter
from .links import Links
from .schemas import ChatRequest
from .warmup import Warmup


@dataclass
class AppState:
    service: Footnoted
    links: Links
    limiter: RateLimiter
    chat: ChatService
    chat_pool: ThreadPoolExecutor  # answer streams (bounded, so connections are reused)
    ingest_pool: ThreadPoolExecutor  # parsing, chunking and embedding uploads
    owns_service: bool
    warmup: Warmup  # the embedding model, loading in the background
    signin: Provider | None = None  # the identity provider, when FOOTNOTED_OIDC_ISSUER is set

    @classmethod
    def build(cls, service: Footnoted, owns_service: bool) -> AppState:
        settings = service.settings
        links = Links(service)
        answering = settings.serve_answering or os.cpu_count() or 1
        return cls(
            service=service,
            links=links,
            limiter=RateLimiter(service.store, settings.rate_limit),
            chat=ChatService(service, links, settings.stream_pace_ms / 1000, answering),
            chat_pool=ThreadPoolExecutor(32, thread_name_prefix="footnoted-chat"),
            ingest_pool=ThreadPoolExecutor(2, thread_name_prefix="footnoted-ingest"),
            owns_service=owns_service,
            warmup=Warmup(service.warm_up),
            signin=Provider(settings) if settings.oidc_issuer else None,
        )

    def claim(
        self, user: User, request: ChatRequest, origin: Origin, title: str | None = None
    ) -> tuple[Claim, Turn]:
        """Claim the message id, then count the request against the rate limit; a new
        session is titled by ``title`` (by default the message).

        Only a request that will generate counts: a replay of a stored answer, a ``409``
        duplicate or a ``422`` reused id does not. Over the limit the claim is given back
        (a retry after ``Retry-After`` generates) and ``429`` raised.
        """
        claim, turn = self.chat.prepare(user, request, origin, title)
        if claim.outcome != "new":
            return claim, turn
        try:
            self.limiter.check(user, origin)
        except RateLimited:
            self.chat.release(turn)
            raise
        return claim, turn

    def close(self) -> None:
        self.chat_pool.shutdown(wait=False, cancel_futures=True)
        self.ingest_pool.shutdown(wait=False, cancel_futures=True)
        if self.owns_service:
            self.service.close()


def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.footnoted
    return state


State = Annotated[AppState, Depends(get_state)]
