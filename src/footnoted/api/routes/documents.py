"""Documents: upload (admin), list, read, enable/disable, delete, reprocess, download."""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import asdict
from typing import Annotated

import anyio
from fastapi import APIRouter, File, Form, Header, Query, UploadFile
from starlette.responses import Response

from ...errors import Forbidden
from ...loaders.sniff import display_name
from ...models import Document, FileBytes, Progress
from ...records import Actor, User
from ...service import sheets, versions
from ...service.access import readable, readable_or_gone
from ..auth import AdminUser, CurrentUser
from ..errors import responses
from ..files import FILE_RESPONSE, file_response
from ..responses import SafeJSONResponse
from ..schemas import (
    ChunkOut,
    DocumentOut,
    DocumentPatch,
    DocumentTextOut,
    HeadingOut,
    LinkOut,
    PlaceOut,
    SheetOut,
    VersionOut,
)
from ..state import AppState, State

router = APIRouter(prefix="/api/documents", tags=["documents"], responses=responses(401))

UPLOAD_WAIT_S = 20.0  # past this an upload answers 202 `processing` and carries on
PREFER = (
    "`respond-async`: answer 202 `processing` at once, without waiting up to 20 s for the "
    "document to be ready; poll `GET /api/documents/{id}` for its `progress`."
)
QUEUED = {"stage": "queued", "done": 0, "total": 0}  # processing, no worker on it yet


def _out(doc: Document, user: User, progress: Progress | None = None) -> DocumentOut:
    data = doc.to_dict()
    if not user.is_admin:
        data["source"] = display_name(doc.source)  # the file's name, not the server's path
    if doc.status == "processing":
        data["progress"] = QUEUED if progress is None else asdict(progress)
    return DocumentOut.model_validate(data)


def respond_async(prefer: str | None) -> bool:
    """RFC 7240's ``Prefer: respond-async``: answer 202 at once, the client polls."""
    tokens = (t.split(";")[0].strip().lower() for t in (prefer or "").split(","))
    return "respond-async" in tokens


async def _wait(job: Future[Document], fallback: Document, wait_s: float) -> tuple[Document, bool]:
    """The processed document, or (still processing) the fallback after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while not job.done():
        if time.monotonic() > deadline:
            return fallback, False
        await anyio.sleep(0.02)
    return job.result(), True


async def _process(state: AppState, doc: Document, user: User, prefer: str | None) -> Response:
    job = state.ingest_pool.submit(state.service.uploads.process, doc.id)
    at_once = respond_async(prefer)
    result, finished = await _wait(job, doc, 0.0 if at_once else UPLOAD_WAIT_S)
    progress = None if finished else state.service.store.progress().get(doc.id)
    headers = {"Preference-Applied": "respond-async"} if at_once and not finished else None
    return SafeJSONResponse(
        _out(result, user, progress).model_dump(),
        status_code=201 if finished else 202,
        headers=headers,
    )


@router.post(
    "",
    status_code=201,
    response_model=DocumentOut,
    responses={
        200: {"model": DocumentOut, "description": "The same content is already here."},
        202: {"model": DocumentOut, "description": "Still processing: poll the document."},
        **responses(400, 403, 413, 415, 422),
    },
)
async def upload(
    user: AdminUser,
    state: State,
    file: Annotated[
        UploadFile,
        File(description="PDF, Word, PowerPoint, Excel, CSV, email, HTML, Markdown or text."),
    ],
    collection: Annotated[str | None, Form(min_length=1, max_length=200)] = None,
    title: Annotated[str | None, Form(min_length=1, max_length=500)] = None,
    url: Annotated[str | None, Form(max_length=2000)] = None,
    prefer: Annotated[str | None, Header(description=PREFER)] = None,
) -> Response:
    """Upload a file; parsed off the event loop, with limits on size, type and time. The
    file is never held whole in memory: it is read from its spool on disk a part at a time."""
    name = (file.filename or "upload").replace("/", "_").replace("\\", "_")[-200:] or "upload"
    service = state.service

    def begin() -> Document:
        content = FileBytes.of_seekable(file.file)
        return service.uploads.begin(
            content, name, collection, title=title, url=url or None, actor=Actor.admin(user)
        )

    doc = await anyio.to_thread.run_sync(begin)
    if doc.status != "processing":
        return SafeJSONResponse(_out(doc, user).model_dump(), status_code=200)
    return await _process(state, doc, user, prefer)


@router.get("")
def list_documents(
    user: CurrentUser,
    state: State,
    collection: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
) -> list[DocumentOut]:
    service = state.service
    progress = service.store.progress()  # before the documents: see get_document
    return [_out(d, user, progress.get(d.id)) for d in service.store.list_documents(collection)]


@router.get("/{document_id}", responses=responses(404))
def get_document(document_id: str, user: CurrentUser, state: State) -> DocumentOut:
    service = state.service
    # Progress first: a document saved between the two reads is then `ready`, whereas read
    # the other way round it would still be `processing` with its progress already gone.
    progress = service.store.progress().get(document_id)
    return _out(service.store.get_document(document_id), user, progress)


@router.patch("/{document_id}", responses=responses(403, 404, 422))
def patch_document(
    document_id: str, patch: DocumentPatch, user: AdminUser, state: State
) -> DocumentOut:
    """``{"enabled": false}`` hides the document from the next question on."""
    return _out(state.service.set_enabled(document_id, patch.enabled, Actor.admin(user)), user)


@router.delete("/{document_id}", status_code=204, responses=responses(403, 404))
def delete_document(
    document_id: str,
    user: AdminUser,
    state: State,
    purge: Annotated[
        bool,
        Query(
            description="Also remove its kept versions: answers that quoted it no longer "
            "open its text."
        ),
    ] = False,
) -> Response:
    """Delete the document with its chunks, vectors and file. Its last version is kept (as
    the retention settings allow) for the answers that quoted it, unless `purge`."""
    state.service.delete(document_id, Actor.admin(user), purge=purge)
    return Response(status_code=204)


@router.post(
    "/{document_id}/reprocess",
    status_code=201,
    response_model=DocumentOut,
    responses={202: {"model": DocumentOut}, **responses(403, 404)},
)
async def reprocess(
    document_id: str,
    user: AdminUser,
    state: State,
    prefer: Annotated[str | None, Header(description=PREFER)] = None,
) -> Response:
    """Parse, chunk and embed the document again from its original file; work still going
    on it (an earlier upload or reprocess) stops at once."""
    uploads = state.service.uploads
    doc = await anyio.to_thread.run_sync(uploads.reprocess, document_id, Actor.admin(user))
    return await _process(state, doc, user, prefer)


@router.get(
    "/{document_id}/download",
    response_class=Response,
    responses={**FILE_RESPONSE, **responses(403, 404)},
)
def download(document_id: str, user: CurrentUser, state: State) -> Response:
    """The original file, as an attachment (a disabled document's only to admins)."""
    service = state.service
    return file_response(service.uploads.original(readable(service.store, document_id, user)))


@router.get("/{document_id}/link", responses=responses(403, 404))
def public_link(document_id: str, user: CurrentUser, state: State) -> LinkOut:
    """A signed public link to the file, when the collection's link mode is ``public``."""
    service = state.service
    doc = readable(service.store, document_id, None)
    if service.collection_settings(doc.collection).citation_link_mode != "public":
        raise Forbidden(
            f"Public links are turned off for collection {doc.collection!r}.",
            code="public_links_off",
        )
    url, expires = state.links.public_url(doc.id, user.token_id)
    return LinkOut(url=url, expires_at=expires)


@router.get("/{document_id}/text", responses=responses(403, 404, 422))
def document_text(
    document_id: str,
    user: CurrentUser,
    state: State,
    version: Annotated[
        int | None,
        Query(
            ge=1,
            description="A citation's `version`: that version's text, kept after the "
            "file changed or the document was deleted. Default: the current one.",
        ),
    ] = None,
    start: Annotated[
        int | None,
        Query(
            ge=0,
            description="With `end`: a passage of this version (a citation's "
            "offsets) to find in the current version (`now_at`).",
        ),
    ] = None,
    end: Annotated[int | None, Query(ge=0)] = None,
) -> DocumentTextOut:
    """The extracted text that citation offsets point into: the current version, or the
    version a citation quoted. A deleted document's kept text is read by admins and by
    the users whose answers quoted it."""
    quoted = (start, end) if start is not None and end is not None and end > start else None
    shown = versions.view(state.service.store, document_id, user, version, quoted)
    kept = shown.version
    now_at = shown.now_at
    return DocumentTextOut(
        id=document_id,
        title=kept.title,
        kind=kept.kind,
        text=kept.text,
        headings=[HeadingOut(start=h.start, end=h.end, level=h.level) for h in shown.headings],
        version=kept.version,
        current_version=shown.current,
        ended_by=kept.ended_by,  # type: ignore[arg-type]
        now_at=None if now_at is None else PlaceOut(
            start=now_at.start, end=now_at.end, page=now_at.page
        ),
    )  # fmt: skip


@router.get("/{document_id}/table", responses=responses(403, 404, 422))
def document_table(
    document_id: str,
    user: CurrentUser,
    state: State,
    at: Annotated[int, Query(ge=0, description="A document offset in the row (a citation's).")],
) -> SheetOut:
    """A spreadsheet's row at offset `at` in its table: the sheet's header row and the
    rows around it, each with its number in the sheet (`404 not_a_sheet` elsewhere)."""
    readable(state.service.store, document_id, user)
    window = sheets.rows_around(state.service.store, document_id, at)
    return SheetOut.model_validate(asdict(window))


@router.get("/{document_id}/versions", responses=responses(403, 404))
def document_versions(document_id: str, user: CurrentUser, state: State) -> list[VersionOut]:
    """The versions of the document still kept, newest first."""
    store = state.service.store
    readable_or_gone(store, document_id, user)
    return [VersionOut.model_validate(v.info()) for v in store.document_versions(document_id)]


@router.get("/{document_id}/chunks", responses=responses(403, 404))
def document_chunks(document_id: str, user: CurrentUser, state: State) -> list[ChunkOut]:
    readable(state.service.store, document_id, user)
    return [
        ChunkOut(
            id=c.id, index=c.index, text=c.text, char_start=c.char_start, char_end=c.char_end,
            page=c.page, section=c.section, token_count=c.token_count,
        )
        for c in state.service.store.document_chunks(document_id)
    ]  # fmt: skip
