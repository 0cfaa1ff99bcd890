"""Collections (knowledge bases) and their settings; changing them is admin-only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from ...records import Actor
from ..auth import AdminUser, CurrentUser
from ..errors import responses
from ..schemas import CollectionSettingsIn, CollectionSettingsOut
from ..state import State

router = APIRouter(prefix="/api/collections", tags=["collections"], responses=responses(401))

Name = Annotated[str, Path(min_length=1, max_length=200)]


@router.get("")
def list_collections(user: CurrentUser, state: State) -> list[str]:
    """Collections that hold documents, plus the default one."""
    names = set(state.service.store.collections()) | {state.service.settings.collection}
    return sorted(names)


@router.get("/{name}/settings")
def get_settings(name: Name, user: CurrentUser, state: State) -> CollectionSettingsOut:
    return CollectionSettingsOut(**state.service.collection_settings(name).model_dump())


@router.put("/{name}/settings", responses=responses(403, 422))
def put_settings(
    name: Name, changes: CollectionSettingsIn, user: AdminUser, state: State
) -> CollectionSettingsOut:
    """Change some settings; fields left out keep their values. Takes effect at once."""
    values = changes.model_dump(exclude_none=True)
    updated = state.service.update_collection_settings(name, values, Actor.admin(user))
    return CollectionSettingsOut(**updated.model_dump())
