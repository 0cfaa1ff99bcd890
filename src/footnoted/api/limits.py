"""Limits: chat requests per user and client per minute, and request body sizes.

The rate limit counts in the database (one ``BEGIN IMMEDIATE`` transaction per
request), so it holds across every worker process that shares the database. Each user
has one bucket for the web UI and one for each API token they use, so a script running
on a token cannot use up its owner's allowance in the web UI (or another script's).
"""

from __future__ import annotations

import math
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import RateLimited, TooLarge
from ..records import Origin, User
from ..stores.base import Store
from .responses import from_error

WINDOW_S = 60.0
JSON_BODY_BYTES = 2 * 1024 * 1024
MULTIPART_OVERHEAD_BYTES = 1024 * 1024


class RateLimiter:
    def __init__(self, store: Store, per_minute: int) -> None:
        self.store = store
        self.per_minute = per_minute

    def check(self, user: User, origin: Origin) -> None:
        """Count one chat request in its client's bucket; raise ``RateLimited`` (429) over
        the limit."""
        if self.per_minute <= 0:
            return
        at = time.time()
        wait = self.store.take_rate_slot(
            user.id, bucket(user, origin), self.per_minute, WINDOW_S, at
        )
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            raise RateLimited(
                f"More than {self.per_minute} chat requests in a minute; try again in {seconds} s.",
                retry_after=seconds,
            )


def bucket(user: User, origin: Origin) -> str:
    """The client a chat request counts against: the web UI, or the API token it sent."""
    if origin == "web":
        return "web"
    return f"token:{user.token_id}" if user.token_id else origin


class BodyLimit:
    """ASGI middleware: refuse bodies over the limit with 413 before they are parsed.

    Uploads (multipart) may be as large as the file limit plus form overhead, anything
    else 2 MB. A declared ``Content-Length`` is checked up front; a chunked body is
    counted as it arrives.
    """

    def __init__(self, app: ASGIApp, max_file_bytes: int) -> None:
        self.app = app
        self.max_file_bytes = max_file_bytes

    def _limit(self, scope: Scope) -> int:
        headers = dict(scope.get("headers") or [])
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        if content_type.startswith("multipart/"):
            return self.max_file_bytes + MULTIPART_OVERHEAD_BYTES
        return JSON_BODY_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit(scope)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await from_error(self._error(limit))(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise self._error(limit)
            return message

        await self.app(scope, counted, send)

    @staticmethod
    def _error(limit: int) -> TooLarge:
        return TooLarge(
            f"The request body is larger than {limit / 1024 / 1024:.1f} MB.",
            code="request_too_large",
        )
