"""Every failure as ``{"error": {"code", "message"}}`` with the fitting status.

Under ``/v1/`` (the OpenAI-compatible API) the body also carries OpenAI's ``type`` and
``param``, so OpenAI clients raise their own typed errors with ``code`` and ``param`` set.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from ..errors import FootnotedError, RateLimited
from .responses import error_response, openai_error_response
from .schemas import ErrorBody

log = logging.getLogger("footnoted.api")

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "request_too_large",
    415: "unsupported_type",
}
_DESCRIPTIONS = {
    400: "Bad request: a body that cannot be parsed, or an unsupported parameter (named in "
    "the error's param).",
    401: "Missing or invalid API token.",
    403: "Only an admin may do this.",
    404: "Not found (or not yours).",
    409: "Conflict: the same message is being answered, or the data is in use.",
    413: "Too large.",
    415: "Unsupported file type.",
    422: "Invalid input.",
    429: "Rate limited; see Retry-After.",
    503: "Not available (model or generation mode).",
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route may answer with."""
    return {s: {"model": ErrorBody, "description": _DESCRIPTIONS[s]} for s in statuses}


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "The request is not valid."


def _param(exc: RequestValidationError) -> str | None:
    errors = exc.errors()
    loc = [str(p) for p in errors[0].get("loc", ()) if p != "body"] if errors else []
    return ".".join(loc) or None


def _error(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    param: str | None = None,
) -> Response:
    if request.url.path.startswith("/v1/"):
        return openai_error_response(status, code, message, headers, param)
    return error_response(status, code, message, headers)


def allowed_methods(request: Request, fallback: str) -> list[str]:
    """Every method the OpenAPI schema documents at this path (Starlette names only the
    first route's that matched it); ``fallback`` (Starlette's) for undocumented paths."""
    schema: dict[str, Any] = request.app.openapi()
    methods = {
        method.upper()
        for template, operations in schema.get("paths", {}).items()
        if _template(template).fullmatch(request.url.path)
        for method in operations
    }
    if not methods:
        methods = {m.strip() for m in fallback.split(",") if m.strip()}
    return sorted(methods, key=lambda m: (_ORDER.index(m) if m in _ORDER else len(_ORDER), m))


_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@functools.lru_cache(maxsize=512)
def _template(path: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)))


def install(app: FastAPI) -> None:
    @app.exception_handler(FootnotedError)
    async def footnoted_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, FootnotedError)
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
        if exc.status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return _error(request, exc.status, exc.code, exc.message, headers, exc.param)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        message = _validation_message(exc)
        return _error(request, 422, "invalid_input", message, param=_param(exc))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else "Request failed."
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            allowed = allowed_methods(request, headers.get("Allow", ""))
            headers["Allow"] = ", ".join(allowed)
            detail = f"{request.method} is not allowed here; use {' or '.join(allowed)}."
        return _error(request, exc.status_code, code, detail, headers or None)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error", exc_info=exc)
        return _error(request, 500, "internal_error", "Something went wrong on the server.")
