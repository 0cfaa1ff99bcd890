"""Admin views: the refusal log (what the knowledge base lacks), users and tokens
(``users``) and the audit log of every change to them, the LLM connection, and a folder
on the server kept in sync."""

from __future__ import annotations

import threading
import time
from typing import Annotated

import anyio
from fastapi import APIRouter, Body, Query
from starlette.responses import Response

from ...answering.llm import connection as llm_connection
from ...answering.llm.connection import LLMConnection
from ...errors import Conflict
from ...records import Actor
from ...service.sync import SyncReport, allowed_folder, sync_folder
from ..auth import AdminUser
from ..errors import responses
from ..responses import SafeJSONResponse
from ..schemas import (
    AuditOut,
    FolderSyncIn,
    FolderSyncOut,
    LLMConnectionOut,
    LLMTestOut,
    RefusalLogOut,
    SyncFailureOut,
    SyncRootsOut,
)
from ..state import State
from . import users

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=responses(401, 403))
router.include_router(users.router)


@router.get("/refusals")
def refusals(
    user: AdminUser,
    state: State,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    collection: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
) -> list[RefusalLogOut]:
    """Questions the documents could not answer, newest first."""
    rows = state.service.store.list_refusals(limit, collection)
    return [RefusalLogOut(**r.to_dict()) for r in rows]


@router.get("/audit")
def audit(
    user: AdminUser,
    state: State,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    user_id: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
) -> list[AuditOut]:
    """Every change an admin made (users, tokens, collection settings, documents, the LLM
    connection; CLI and API), newest first; ``user_id`` for the changes to one user."""
    return [AuditOut(**e.to_dict()) for e in state.service.store.list_audit(limit, user_id)]


@router.get("/llm")
def get_llm(user: AdminUser, state: State) -> LLMConnectionOut:
    """The LLM connection in force (LLM generation mode); the key is never shown."""
    service = state.service
    return LLMConnectionOut(**llm_connection.current(service.settings, service.store).to_dict())


@router.put("/llm", responses=responses(422))
def put_llm(connection: LLMConnection, user: AdminUser, state: State) -> LLMConnectionOut:
    """Save a connection for every process; ``api_key`` left out keeps the current key."""
    service = state.service
    saved = llm_connection.save(service.settings, service.store, connection, Actor.admin(user))
    return LLMConnectionOut(**saved.to_dict())


@router.delete("/llm")
def reset_llm(user: AdminUser, state: State) -> LLMConnectionOut:
    """Forget the saved connection: the environment's applies again."""
    service = state.service
    reset = llm_connection.reset(service.settings, service.store, Actor.admin(user))
    return LLMConnectionOut(**reset.to_dict())


@router.post("/llm/test", responses=responses(422))
def test_llm(
    user: AdminUser,
    state: State,
    connection: Annotated[LLMConnection | None, Body()] = None,
) -> LLMTestOut:
    """Ask the model for one word, as an answer would: the saved connection, or the one
    given (not saved). Reports the reply, or the server's status and error message."""
    service = state.service
    result = llm_connection.check(service.settings, service.store, Actor.admin(user), connection)
    return LLMTestOut(**result.to_dict())


_SYNCING: set[tuple[str, str]] = set()  # (folder, collection) this process is syncing
_SYNCING_LOCK = threading.Lock()
SYNC_WAIT_S = 20.0  # past this the sync answers 202 `running` and carries on


@router.get("/sync")
def sync_roots(user: AdminUser, state: State) -> SyncRootsOut:
    """The folders on the server that admins may keep collections in step with."""
    roots = state.service.settings.sync_roots.split(",")
    return SyncRootsOut(roots=[r.strip() for r in roots if r.strip()])


@router.post("/sync", response_model=FolderSyncOut, responses=responses(403, 409, 422))
async def sync_folder_now(body: FolderSyncIn, user: AdminUser, state: State) -> Response:
    """One pass of ``footnoted sync DIR`` over a folder on the server (inside one of
    FOOTNOTED_SYNC_ROOTS): new files added, changed ones re-ingested as their next
    version, those gone retired. Answers with what it did, or 202 `running` after 20 s
    (the pass goes on; its report is in the audit log). Audited."""
    service = state.service
    folder = allowed_folder(service.settings.sync_roots, body.folder)
    collection = body.collection or service.settings.collection
    key = (str(folder), collection)
    with _SYNCING_LOCK:
        if key in _SYNCING:
            raise Conflict(f"{folder} is being synced into {collection!r} already.",
                           code="sync_running")  # fmt: skip
        _SYNCING.add(key)

    def run() -> SyncReport:
        try:
            report = sync_folder(service, folder, collection, actor=Actor.admin(user),
                                 confine=True)  # fmt: skip
            detail = {"folder": report.target, "collection": collection,
                      "summary": report.summary()}  # fmt: skip
            service.store.audit(Actor.admin(user), "folder_synced", f"folder:{folder}", detail)
            return report
        finally:
            with _SYNCING_LOCK:
                _SYNCING.discard(key)

    job = state.ingest_pool.submit(run)
    deadline = time.monotonic() + SYNC_WAIT_S
    while not job.done() and time.monotonic() < deadline:
        await anyio.sleep(0.05)
    if not job.done():
        running = FolderSyncOut(folder=str(folder), collection=collection, status="running")
        return SafeJSONResponse(running.model_dump(), status_code=202)
    report = job.result()
    ingest = report.ingest
    done = FolderSyncOut(
        folder=report.target, collection=collection, status="done",
        summary=report.summary(), added=ingest.count("added"),
        changed=ingest.count("replaced"), unchanged=ingest.count("unchanged"),
        retired=[d.title for d in report.retired],
        failed=[SyncFailureOut(source=r.source, error=r.error, code=r.code)
                for r in ingest.failed],
        seconds=round(report.seconds, 2),
    )  # fmt: skip
    return SafeJSONResponse(done.model_dump())
