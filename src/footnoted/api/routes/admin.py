"""Admin views: the refusal log (what the knowledge base lacks), users and tokens
(``users``) and the audit log of every change to them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ..auth import AdminUser
from ..errors import responses
from ..schemas import AuditOut, RefusalLogOut
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
    """Every change to users and tokens (CLI and API), newest first; ``user_id`` for one."""
    return [AuditOut(**e.to_dict()) for e in state.service.store.list_audit(limit, user_id)]
