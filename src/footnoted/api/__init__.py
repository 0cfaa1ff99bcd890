"""The HTTP API (FastAPI): routes, SSE framing, auth, rate limits, idempotency.

``app.create_app`` builds it. The package itself imports nothing, so ``footnoted ask``,
which uses only its wire format (``wire``), does not load the server.
"""
