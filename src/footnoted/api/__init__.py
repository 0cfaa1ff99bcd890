"""The HTTP API (FastAPI): routes, SSE framing, auth, rate limits, idempotency."""

from .app import create_app

__all__ = ["create_app"]
