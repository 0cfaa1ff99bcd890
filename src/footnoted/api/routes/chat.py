"""``POST /api/chat``: SSE or JSON answers, refusals as JSON, idempotent by message id."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from ...models import Refusal
from ..auth import CurrentUser
from ..chat import Turn, replay_frames
from ..errors import responses
from ..responses import SafeJSONResponse
from ..schemas import AnswerOut, ChatRequest, RefusalOut
from ..sse import HEADERS, MEDIA_TYPE, Bridge, replay
from ..state import AppState, State

router = APIRouter(tags=["chat"])

_CHAT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "An answer: SSE (`answer_start`, `answer_delta`…, `sources`, `answer_end`, or a "
            "terminal `error`/`refusal`) for `Accept: text/event-stream`, else one JSON "
            "object. Not enough evidence: a JSON refusal (never SSE)."
        ),
        "model": AnswerOut | RefusalOut,
        "content": {MEDIA_TYPE: {"schema": {"type": "string"}}},
    },
    **responses(401, 404, 409, 413, 422, 429, 503),
}


def wants_stream(request: Request) -> bool:
    return MEDIA_TYPE in request.headers.get("accept", "").lower()


@router.post(
    "/api/chat",
    responses=_CHAT_RESPONSES,
    response_class=SafeJSONResponse,
)
async def chat(body: ChatRequest, request: Request, user: CurrentUser, state: State) -> Response:
    """Ask a question; the answer footnotes every claim, or refuses."""
    stream = wants_stream(request)
    await anyio.to_thread.run_sync(state.limiter.check, user)
    claim, turn = await anyio.to_thread.run_sync(state.chat.prepare, user, body)
    if claim.outcome == "replay":
        assert claim.payload is not None
        return _replay(claim.payload, stream)
    if not stream:
        payload = await anyio.to_thread.run_sync(state.chat.answer_json, turn)
        return SafeJSONResponse(payload)
    return await _stream(state, turn)


def _replay(payload: dict[str, Any], stream: bool) -> Response:
    if stream and payload.get("type") == "answer":
        return StreamingResponse(
            replay(replay_frames(payload)), media_type=MEDIA_TYPE, headers=HEADERS
        )
    return SafeJSONResponse(payload)


async def _stream(state: AppState, turn: Turn) -> Response:
    chat = state.chat
    first, events = await anyio.to_thread.run_sync(chat.first_event, turn)
    if isinstance(first, Refusal):
        events.close()
        payload = await anyio.to_thread.run_sync(chat.store_refusal, turn, first)
        return SafeJSONResponse(payload)
    bridge = Bridge()
    state.chat_pool.submit(chat.stream, turn, first, events, bridge)
    keepalive = state.service.settings.sse_keepalive_s
    return StreamingResponse(bridge.frames(keepalive), media_type=MEDIA_TYPE, headers=HEADERS)
