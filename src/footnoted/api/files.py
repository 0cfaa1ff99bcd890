"""Sending a document's original file: always as an attachment, never rendered inline."""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import Response

from ..stores.base import StoredFile


def file_response(file: StoredFile) -> Response:
    ascii_name = file.filename.encode("ascii", "replace").decode().replace('"', "")
    disposition = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(file.filename)}"
    return Response(
        file.data,
        media_type=file.media_type,
        headers={
            "Content-Disposition": disposition,
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'",
            "Cache-Control": "private, no-store",
        },
    )
