"""Admin views: the refusal log (what the knowledge base lacks), users and tokens
(``users``) and the audit log of every change to them, and the LLM connection."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query

from ...answering.llm import connection as llm_connection
from ...answering.llm.connection import LLMConnection
from ...records import Actor
from ..auth import AdminUser
from ..errors import responses
from ..schemas import AuditOut, LLMConnectionOut, LLMTestOut, RefusalLogOut
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
