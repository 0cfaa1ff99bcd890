"""Feedback: a user's word on their own answers and cited sources, and the admins'
queue (newest first, filtered by collection, kind and status), its resolution and its
export as questions of ``footnoted eval docs`` (``service/feedback.py``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ...records import Actor, FeedbackKind, FeedbackStatus
from ...service import feedback
from ..auth import AdminUser, CurrentUser
from ..errors import responses
from ..schemas import FeedbackIn, FeedbackOut, ResolveIn, V1FeedbackIn
from ..state import State

router = APIRouter(tags=["feedback"], responses=responses(401))
JSONL = "application/x-ndjson; charset=utf-8"
Collection = Annotated[str | None, Query(min_length=1, max_length=200)]


@router.post("/api/messages/{message_id}/feedback", responses=responses(404, 422))
def give_feedback(
    message_id: str, body: FeedbackIn, user: CurrentUser, state: State
) -> FeedbackOut:
    """Say whether your answer ``message_id`` helped (``helpful``/``unhelpful``) or flag
    one of its sources (``does_not_say``/``wrong_page`` with its ``citation``), with an
    optional note and correction. Saying it again replaces your earlier word on the same
    answer or source. Admins see it in their queue; it is in the audit log."""
    correction = body.correction.model_dump() if body.correction else None
    item = feedback.give(
        state.service.store, user, message_id, body.kind, body.citation, body.note, correction
    )
    return FeedbackOut(**item.to_dict())


V1_PREFIXES = ("chatcmpl-", "resp_", "msg_")


@router.post("/v1/feedback", tags=["openai"], responses=responses(404, 422))
def give_v1_feedback(body: V1FeedbackIn, user: CurrentUser, state: State) -> FeedbackOut:
    """Feedback from an OpenAI-style client: ``id`` is the completion's ``id``
    (``chatcmpl-…``), the response's (``resp_…``) or its message's (``msg_…``); the rest
    is as for ``POST /api/messages/{message_id}/feedback``."""
    message_id = next((body.id[len(p) :] for p in V1_PREFIXES if body.id.startswith(p)), body.id)
    return give_feedback(message_id, body, user, state)


@router.get("/api/admin/feedback", tags=["admin"], responses=responses(403))
def list_feedback(
    user: AdminUser,
    state: State,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    collection: Collection = None,
    kind: FeedbackKind | None = None,
    status: FeedbackStatus | None = None,
) -> list[FeedbackOut]:
    """The feedback queue, newest first."""
    rows = state.service.store.list_feedback(limit, collection, kind, status)
    return [FeedbackOut(**f.to_dict()) for f in rows]


@router.post(
    "/api/admin/feedback/{feedback_id}/resolve", tags=["admin"], responses=responses(403, 404)
)
def resolve_feedback(
    feedback_id: str, body: ResolveIn, user: AdminUser, state: State
) -> FeedbackOut:
    """Mark an item resolved with a note (audited)."""
    item = state.service.store.resolve_feedback(feedback_id, Actor.admin(user), body.note)
    return FeedbackOut(**item.to_dict())


@router.get(
    "/api/admin/feedback/export",
    tags=["admin"],
    responses={200: {"content": {"application/x-ndjson": {}}}, **responses(403)},
)
def export_feedback(
    user: AdminUser,
    state: State,
    collection: Collection = None,
    status: FeedbackStatus | None = None,
) -> Response:
    """The feedback with a correction as questions of ``footnoted eval docs`` (JSONL;
    ``doc`` is the document's file name). The header ``X-Left-Out`` counts the items
    that carry no correction to grade an answer by."""
    store = state.service.store
    items = store.list_feedback(100_000, collection, None, status)
    exported = feedback.export_questions(store, items)
    return Response(
        feedback.as_jsonl(exported.questions),
        media_type=JSONL,
        headers={
            "Content-Disposition": 'attachment; filename="feedback-questions.jsonl"',
            "X-Left-Out": str(exported.left_out),
        },
    )
