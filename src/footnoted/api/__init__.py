"""The HTTP API (FastAPI): routes, SSE framing, auth, rate limits, idempotency.

``app.create_app`` builds it. The package itself imports nothing, so a command that
only needs the wire format (``footnoted ask --url``) does not load the server.
"""
