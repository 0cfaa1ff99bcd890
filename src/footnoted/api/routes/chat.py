"""``POST /api/chat``: SSE or JSON answers, refusals as JSON, idempotent by message id."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import anyio
from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from ...models import Event, Refusal
from ...records import Origin, User
from ..auth import CurrentUser, origin_of
from ..chat import Turn
from ..errors import responses
from ..responses import SafeJSONResponse
from ..schemas import AnswerOut, ChatRequest, RefusalOut
from ..sse import HEADERS, MEDIA_TYPE, Bridge, replay
from ..state import AppState, State
from ..wire import replay_frames

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


@dataclass(frozen=True, slots=True)
class _Begun:
    """What the request's one trip to a worker thread found, before any response."""

    payload: dict[str, Any] | None = None  # a JSON body: a whole answer or a refusal
    replay: dict[str, Any] | None = None  # a finished answer to this message id
    stream: tuple[Turn, Event, Generator[Event, None, None]] | None = None


def _begin(state: AppState, user: User, body: ChatRequest, stream: bool, origin: Origin) -> _Begun:
    """Claim, rate limit, then retrieval and the evidence check (or the whole JSON answer).

    One worker-thread hop for all of it: under load every hop back to the event loop
    waits for the GIL, so a request pays for each one in latency.
    """
    claim, turn = state.claim(user, body, origin)
    if claim.outcome == "replay":
        assert claim.payload is not None
        return _Begun(replay=claim.payload)
    if not stream:
        return _Begun(payload=state.chat.answer_json(turn))
    first, events = state.chat.first_event(turn)
    if isinstance(first, Refusal):
        events.close()
        return _Begun(payload=state.chat.store_refusal(turn, first))
    return _Begun(stream=(turn, first, events))


@router.post(
    "/api/chat",
    responses=_CHAT_RESPONSES,
    response_class=SafeJSONResponse,
)
async def chat(body: ChatRequest, request: Request, user: CurrentUser, state: State) -> Response:
    """Ask a question; the answer footnotes every claim, or refuses."""
    stream = wants_stream(request)
    begun = await anyio.to_thread.run_sync(_begin, state, user, body, stream, origin_of(request))
    if begun.replay is not None:
        return _replay(begun.replay, stream)
    if begun.stream is None:
        return SafeJSONResponse(begun.payload)
    bridge = Bridge()
    state.chat_pool.submit(state.chat.stream, *begun.stream, bridge)
    keepalive = state.service.settings.sse_keepalive_s
    sse = bridge.frames(keepalive, begun.stream[0].ids)
    return StreamingResponse(sse, media_type=MEDIA_TYPE, headers=HEADERS)


def _replay(payload: dict[str, Any], stream: bool) -> Response:
    if stream and payload.get("type") == "answer":
        return StreamingResponse(
            replay(replay_frames(payload)), media_type=MEDIA_TYPE, headers=HEADERS
        )
    return SafeJSONResponse(payload)
