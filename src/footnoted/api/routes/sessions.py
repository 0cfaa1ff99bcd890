"""History: the user's own sessions and their messages (others' answer 404)."""

from __future__ import annotations

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..auth import CurrentUser
from ..errors import responses
from ..schemas import MessageOut, SessionOut
from ..state import State

router = APIRouter(prefix="/api/sessions", tags=["history"], responses=responses(401))


@router.get("")
def list_sessions(
    user: CurrentUser,
    state: State,
    limit: int = Query(default=1000, ge=1, le=1000),
    offset: int = Query(default=0, ge=0, le=10**9),
) -> list[SessionOut]:
    """Your sessions, newest activity first."""
    rows = state.service.store.list_sessions(user.id, limit, offset)
    return [SessionOut(**s.to_dict()) for s in rows]


@router.get("/{session_id}", responses=responses(404))
def get_session(session_id: str, user: CurrentUser, state: State) -> SessionOut:
    return SessionOut(**state.service.store.get_session(user.id, session_id).to_dict())


@router.get("/{session_id}/messages", responses=responses(404))
def session_messages(session_id: str, user: CurrentUser, state: State) -> list[MessageOut]:
    """The messages, oldest first; answers carry their citations exactly as streamed."""
    rows = state.service.store.session_messages(user.id, session_id)
    return [MessageOut.model_validate(m.to_dict()) for m in rows]


@router.delete("/{session_id}", status_code=204, responses=responses(404))
def delete_session(session_id: str, user: CurrentUser, state: State) -> Response:
    state.service.store.delete_session(user.id, session_id)
    return Response(status_code=204)
