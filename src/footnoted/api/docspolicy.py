"""The API docs' (``/docs``, ``/redoc``) own Content-Security-Policy.

Their pages start Swagger UI and ReDoc with an inline script, and both libraries style
elements from script. So the policy allows scripts from this origin plus exactly the
inline scripts each page carries (by SHA-256, worked out from the page as it is sent),
styles from this origin and inline, ReDoc's worker from ``blob:``, and nothing from
anywhere else: every asset comes from this server (fastapi-offline), never a CDN.
"""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

BASE = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def docs_policy(html: bytes) -> str:
    """The policy for one docs page: its inline scripts by hash, nothing else inline."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"
        for body in _INLINE_SCRIPT.findall(html)
    ]
    sources = " ".join(["'self'", *hashes])
    return f"script-src {sources}; {BASE}"


def _headers(policy: str, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    kept = [(k, v) for k, v in headers if k.lower() not in _SET_HERE]
    return [*kept, (b"content-security-policy", policy.encode()), *_FIXED]


_FIXED = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY")]
_SET_HERE = {b"content-security-policy", *(k for k, _ in _FIXED)}


async def with_docs_policy(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Serve a docs response with its policy; an HTML page is held until complete (a few
    kilobytes) so that its inline scripts can be hashed."""
    start: Message | None = None
    body: list[bytes] = []

    async def send_with_policy(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            headers = dict(message.get("headers", []))
            if b"text/html" not in headers.get(b"content-type", b""):
                message = {**message, "headers": _headers(BASE, message.get("headers", []))}
                await send(message)
                return
            start = message
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        body.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        html = b"".join(body)
        await send({**start, "headers": _headers(docs_policy(html), start.get("headers", []))})
        await send({"type": "http.response.body", "body": html})

    await app(scope, receive, send_with_policy)
