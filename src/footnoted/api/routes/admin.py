"""Admin views: the refusal log (what the knowledge base lacks) and the users."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ..auth import AdminUser
from ..errors import responses
from ..schemas import RefusalLogOut, UserOut
from ..state import State

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=responses(401, 403))


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


@router.get("/users")
def users(user: AdminUser, state: State) -> list[UserOut]:
    return [UserOut(**u.to_dict()) for u in state.service.store.list_users()]
