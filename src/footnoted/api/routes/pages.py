"""A PDF's real pages: each page rendered to PNG, and where a passage of the extracted
text (a quoted span) is printed on it. Readable by every signed-in user, like downloads
(``access``: a disabled document only by admins)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from ...errors import InvalidInput, NotFound
from ...models import Document
from ...pages import page_bounds
from ...records import User
from ...service.access import readable
from ...service.pdfview import MAX_WIDTH, MIN_WIDTH, passage_boxes, render_png
from ..auth import CurrentUser
from ..errors import responses
from ..schemas import BoxOut, HighlightOut, PageHighlightsOut
from ..state import AppState, State

router = APIRouter(prefix="/api/documents", tags=["documents"], responses=responses(401, 403, 404))

MAX_RANGES = 20
PageNumber = Annotated[int, Path(ge=1, le=1_000_000, description="The page, from 1.")]


def _pdf(state: AppState, document_id: str, page: int, user: User) -> tuple[Document, bytes]:
    doc = readable(state.service.store, document_id, user)
    if doc.kind != "pdf" or not doc.page_count:
        raise NotFound(f"{doc.title!r} is not a PDF: it has no pages to show.", code="no_pages")
    if page > doc.page_count:
        raise NotFound(f"{doc.title!r} has no page {page}.", code="page_not_found")
    return doc, state.service.uploads.original(doc).content.read()


@router.get(
    "/{document_id}/pages/{page}/image",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "The page as PNG."}},
)
def page_image(
    document_id: str,
    page: PageNumber,
    user: CurrentUser,
    state: State,
    width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH)] = 1200,
) -> Response:
    """Page ``page`` of a PDF rendered by PDFium, ``width`` pixels wide."""
    _, data = _pdf(state, document_id, page, user)
    return Response(
        render_png(data, page, width),
        media_type="image/png",
        headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


@router.get("/{document_id}/pages/{page}/highlights", responses=responses(422))
def page_highlights(
    document_id: str,
    page: PageNumber,
    user: CurrentUser,
    state: State,
    start: Annotated[list[int], Query(max_length=MAX_RANGES)],
    end: Annotated[list[int], Query(max_length=MAX_RANGES)],
) -> PageHighlightsOut:
    """Where on page ``page`` each range ``[start, end)`` of the document's extracted text
    (a span's ``doc_start``/``doc_end``) is printed: the part of it on this page, as boxes."""
    if len(start) != len(end) or any(not 0 <= a <= b for a, b in zip(start, end, strict=False)):
        raise InvalidInput(
            "Give start and end in pairs, each start at most its end.", code="bad_range"
        )
    doc, data = _pdf(state, document_id, page, user)
    text = state.service.store.document_text(doc.id)
    low, high = page_bounds(text, page)
    out = []
    for a, b in zip(start, end, strict=True):
        passage, before = text[max(a, low) : min(b, high)], text[low : max(a, low)]
        boxes = passage_boxes(data, page, passage, before) if passage.strip() else []
        out.append(HighlightOut(start=a, end=b, boxes=[BoxOut(**asdict(x)) for x in boxes]))
    return PageHighlightsOut(page=page, page_count=doc.page_count or 0, highlights=out)
