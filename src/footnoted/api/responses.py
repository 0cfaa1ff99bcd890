"""JSON responses that never carry raw HTML, and the error body every failure uses.

``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e`` and ``\\u0026``: the values
decode unchanged, but no byte sequence of a response can be read as markup.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse

from ..errors import FootnotedError

_HTML_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff"}


def dumps(value: Any) -> str:
    """Compact JSON with HTML-significant characters escaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(_HTML_SAFE)


class SafeJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps(content).encode("utf-8")


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> SafeJSONResponse:
    body = {"error": {"code": code, "message": message}}
    return SafeJSONResponse(body, status_code=status, headers=headers)


def from_error(exc: FootnotedError, headers: dict[str, str] | None = None) -> SafeJSONResponse:
    return error_response(exc.status, exc.code, exc.message, headers)
