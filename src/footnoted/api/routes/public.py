"""Routes without a token: health and signed public document links."""

from __future__ import annotations

import anyio
from fastapi import APIRouter, Query
from starlette.responses import Response

from ... import __version__
from ...errors import Forbidden, NotFound
from ...service.access import readable
from ..errors import responses
from ..files import FILE_RESPONSE, file_response
from ..schemas import HealthOut
from ..state import State

router = APIRouter()


@router.get("/api/health", tags=["service"])
def health(state: State) -> HealthOut:
    """Up (needs no token); ``model`` says whether the embedding model is loaded yet."""
    return HealthOut(status="ok", version=__version__, model=state.warmup.state)


@router.get(
    "/public/documents/{document_id}",
    tags=["documents"],
    responses={**FILE_RESPONSE, **responses(403, 404)},
    response_class=Response,
)
async def public_download(
    document_id: str,
    state: State,
    expires: int = Query(ge=0, le=2**53),
    signature: str = Query(min_length=1, max_length=200),
    by: str | None = Query(default=None, min_length=1, max_length=100),
) -> Response:
    """A document's original file through a signed, expiring link (no token needed)."""
    service = state.service

    def load() -> Response:
        if not state.links.verify(document_id, expires, signature, by):
            raise Forbidden(
                "This link is invalid, has expired or was revoked (disabling a document, "
                "or revoking the API token that made it, revokes its links).",
                code="invalid_link",
            )
        doc = readable(service.store, document_id, None)
        if service.collection_settings(doc.collection).citation_link_mode != "public":
            raise Forbidden("Public links are turned off for this collection.", code="invalid_link")
        return file_response(service.uploads.original(doc))

    try:
        return await anyio.to_thread.run_sync(load)
    except NotFound as exc:
        raise NotFound("No such document.", code=exc.code) from exc
    except Forbidden as exc:
        if exc.code != "document_disabled":
            raise
        raise Forbidden("This link no longer works: the document is disabled.",
                        code="invalid_link") from exc  # fmt: skip
