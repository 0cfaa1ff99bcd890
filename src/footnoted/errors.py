"""Error hierarchy: every error carries an HTTP status and a stable code."""

from __future__ import annotations


class FootnotedError(Exception):
    """Base error. ``code`` is stable and safe to match on; ``message`` is for people."""

    status: int = 500
    code: str = "internal_error"
    param: str | None = None  # the request field at fault, when one is (OpenAI's ``param``)

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.param = param

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


class BadRequest(FootnotedError):
    """A request the API understands but does not support (an unsupported parameter)."""

    status = 400
    code = "unsupported_parameter"


class InvalidInput(FootnotedError):
    status = 422
    code = "invalid_input"


class NotFound(FootnotedError):
    status = 404
    code = "not_found"


class Conflict(FootnotedError):
    status = 409
    code = "conflict"


class Cancelled(FootnotedError):
    """The work on a document stopped because it is no longer wanted (deleted, or
    processed anew by another job)."""

    status = 409
    code = "cancelled"


class TooLarge(FootnotedError):
    status = 413
    code = "file_too_large"


class UnsupportedType(FootnotedError):
    status = 415
    code = "unsupported_type"


class DocumentError(FootnotedError):
    """A file could not be turned into text (corrupt, empty, encrypted, ...)."""

    status = 422
    code = "document_unreadable"


class ReindexRequired(FootnotedError):
    status = 409
    code = "reindex_required"


class ModelUnavailable(FootnotedError):
    status = 503
    code = "model_unavailable"


class DatabaseUnavailable(FootnotedError):
    status = 503
    code = "database_unavailable"


class Unauthorized(FootnotedError):
    status = 401
    code = "unauthorized"


class Forbidden(FootnotedError):
    status = 403
    code = "forbidden"


class RateLimited(FootnotedError):
    status = 429
    code = "rate_limited"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
