"""History: the user's own sessions and their messages (others' answer 404), and exports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from ...errors import NotFound
from ...records import Message, Origin
from ...service.export import (
    ExportFormat,
    answer_markdown,
    conversation_json,
    conversation_markdown,
    file_name,
)
from ..auth import CurrentUser
from ..errors import responses
from ..responses import SafeJSONResponse
from ..schemas import MessageOut, SessionOut
from ..state import State

router = APIRouter(prefix="/api/sessions", tags=["history"], responses=responses(401))
MARKDOWN = "text/markdown; charset=utf-8"
ORIGIN_HELP = "Only conversations begun there (the web UI lists `web` ones by default)."
ANSWER_HELP = "Only the answer to this chat request, as Markdown (what the UI's Copy copies)."


@router.get("")
def list_sessions(
    user: CurrentUser,
    state: State,
    limit: int = Query(default=1000, ge=1, le=1000),
    offset: int = Query(default=0, ge=0, le=10**9),
    origin: Annotated[Origin | None, Query(description=ORIGIN_HELP)] = None,
) -> list[SessionOut]:
    """Your sessions, newest activity first."""
    rows = state.service.store.list_sessions(user.id, limit, offset, origin)
    return [SessionOut(**s.to_dict()) for s in rows]


@router.get("/{session_id}", responses=responses(404))
def get_session(session_id: str, user: CurrentUser, state: State) -> SessionOut:
    return SessionOut(**state.service.store.get_session(user.id, session_id).to_dict())


@router.get("/{session_id}/messages", responses=responses(404))
def session_messages(session_id: str, user: CurrentUser, state: State) -> list[MessageOut]:
    """The messages, oldest first; answers carry their citations exactly as streamed."""
    rows = state.service.store.session_messages(user.id, session_id)
    return [MessageOut.model_validate(m.to_dict()) for m in rows]


@router.get(
    "/{session_id}/export",
    responses={
        200: {"content": {"text/markdown": {"schema": {"type": "string"}}, "application/json": {}}},
        **responses(404, 422),
    },
)
def export_session(
    session_id: str,
    request: Request,
    user: CurrentUser,
    state: State,
    format: Annotated[ExportFormat, Query(description="`markdown` or `json`.")] = "markdown",
    message_id: Annotated[str | None, Query(max_length=200, description=ANSWER_HELP)] = None,
) -> Response:
    """The conversation as Markdown with real footnotes (`[^1]` per source: title, page,
    section and the quoted text) or as JSON (the session and its messages)."""
    store, base = state.service.store, str(request.base_url)
    session = store.get_session(user.id, session_id)
    messages = store.session_messages(user.id, session_id)
    if message_id is not None:
        return Response(_answer(messages, message_id, base), media_type=MARKDOWN)
    disposition = {"Content-Disposition": f'attachment; filename="{file_name(session, format)}"'}
    if format == "json":
        return SafeJSONResponse(conversation_json(session, messages), headers=disposition)
    return Response(conversation_markdown(session, messages, base), media_type=MARKDOWN,
                    headers=disposition)  # fmt: skip


def _answer(messages: list[Message], message_id: str, base: str) -> str:
    for m in messages:
        if m.message_id == message_id and m.role == "assistant" and m.type == "answer":
            return answer_markdown(m, base)
    raise NotFound(f"No answer to message {message_id!r} here.", code="message_not_found")


@router.delete("/{session_id}", status_code=204, responses=responses(404))
def delete_session(session_id: str, user: CurrentUser, state: State) -> Response:
    state.service.store.delete_session(user.id, session_id)
    return Response(status_code=204)
