"""Sending a document's original file: always as an attachment, never rendered inline."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.concurrency import iterate_in_threadpool
from starlette.responses import Response, StreamingResponse

from ..loaders.kinds import KINDS, OTHER_MEDIA_TYPE
from ..stores.base import StoredFile

# OpenAPI: a download is sent with the file's own media type (what it was uploaded as).
FILE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The original file, as an attachment, with its own media type.",
        "content": {
            t: {"schema": {"type": "string", "format": "binary"}}
            for t in [
                *sorted({k.media_type.split(";")[0] for k in KINDS.values()}),
                OTHER_MEDIA_TYPE,
            ]
        },
    }
}


def file_response(file: StoredFile) -> Response:
    """The file streamed a part at a time (never whole in memory), as an attachment."""
    ascii_name = file.filename.encode("ascii", "replace").decode().replace('"', "")
    disposition = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(file.filename)}"
    return StreamingResponse(
        iterate_in_threadpool(file.content.parts()),
        media_type=file.media_type,
        headers={
            "Content-Length": str(file.content.size),
            "Content-Disposition": disposition,
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'",
            "Cache-Control": "private, no-store",
        },
    )
