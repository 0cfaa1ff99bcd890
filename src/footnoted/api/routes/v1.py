"""OpenAI-compatible API: ``GET /v1/models``, ``POST /v1/chat/completions``, ``POST /v1/responses``.

``model`` names a collection (an unknown one is a 404 ``model_not_found``). The answer runs
through the same :class:`ChatService` as ``/api/chat`` (auth, rate limit, history), in the
collection's generation mode; :mod:`footnoted.api.compat` puts it on the wire.
"""

from __future__ import annotations

from dataclasses import replace

import anyio
from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from ...models import Refusal
from ...records import User
from ..auth import CurrentUser
from ..chat import Turn
from ..compat.chat import ChatChunks, completion
from ..compat.requests import (
    CHAT_RULES,
    RESPONSES_RULES,
    CompletionRequest,
    ResponsesRequest,
    V1Message,
    V1Request,
    chat_request,
    check_model,
    check_supported,
    conversation,
    first_question,
    input_messages,
)
from ..compat.responses import Responses
from ..compat.stream import Reply, Wire, frames, refused
from ..errors import responses
from ..responses import SafeJSONResponse
from ..sse import HEADERS, MEDIA_TYPE, Bridge
from ..state import AppState, State

router = APIRouter(tags=["openai"])
ERRORS = responses(400, 401, 404, 413, 422, 429, 503)


def model_names(state: AppState) -> list[str]:
    return sorted({state.service.settings.collection, *state.service.store.collections()})


@router.get("/v1/models", responses=responses(401))
def models(user: CurrentUser, state: State) -> dict[str, object]:
    """The collections, as OpenAI models."""
    data = [
        {"id": n, "object": "model", "created": 0, "owned_by": "footnoted"}
        for n in model_names(state)
    ]
    return {"object": "list", "data": data}


@router.post("/v1/chat/completions", responses=ERRORS, response_class=SafeJSONResponse)
async def chat_completions(
    body: CompletionRequest, request: Request, user: CurrentUser, state: State
) -> Response:
    """Answer the last user message over the collection named by ``model``."""
    check_supported(body, CHAT_RULES)
    turn = await _turn(state, user, body, body.messages, "messages")
    reply = _reply(state, body, turn, request)
    if not body.stream:
        payload = await anyio.to_thread.run_sync(state.chat.answer_json, turn)
        return SafeJSONResponse(completion(reply, payload))
    include_usage = body.stream_options is not None and body.stream_options.include_usage
    return await _stream(state, turn, ChatChunks(reply, include_usage))


@router.post("/v1/responses", responses=ERRORS, response_class=SafeJSONResponse)
async def create_response(
    body: ResponsesRequest, request: Request, user: CurrentUser, state: State
) -> Response:
    """The Responses API's common subset: text or messages in, one cited message out."""
    check_supported(body, RESPONSES_RULES)
    turn = await _turn(state, user, body, input_messages(body), "input", body.instructions)
    wire = Responses(_reply(state, body, turn, request), body.instructions)
    if not body.stream:
        payload = await anyio.to_thread.run_sync(state.chat.answer_json, turn)
        return SafeJSONResponse(wire.whole(payload))
    return await _stream(state, turn, wire)


async def _turn(
    state: AppState,
    user: User,
    body: V1Request,
    messages: list[V1Message],
    param: str,
    instructions: str | None = None,
) -> Turn:
    """Check the model and the question, then claim the message (and count the rate); the
    messages before the question are its conversation."""
    check_model(body.model, await anyio.to_thread.run_sync(model_names, state))
    question = chat_request(body.model, messages, param)
    title = first_question(messages, param)
    _, turn = await anyio.to_thread.run_sync(state.claim, user, question, "v1", title)
    talk = conversation(messages, param, instructions)
    return replace(turn, question=replace(turn.question, conversation=talk))


def _reply(state: AppState, body: V1Request, turn: Turn, request: Request) -> Reply:
    def retrieval() -> dict[str, object]:
        return {
            "collection": turn.collection,
            "duration_ms": 0.0,
            "chunks_returned": 0,
            **turn.info,
        }

    def usage(answer: str) -> tuple[int, int]:
        prompt, completion = state.service.embedder.count_tokens([turn.request.message, answer])
        return prompt, completion

    return Reply(
        turn.request.message_id,
        body.model,
        str(request.base_url),
        body.sources_block,
        retrieval,
        usage,
    )


async def _stream(state: AppState, turn: Turn, wire: Wire) -> Response:
    chat = state.chat
    first, events = await anyio.to_thread.run_sync(chat.first_event, turn)
    if isinstance(first, Refusal):
        events.close()
        payload = await anyio.to_thread.run_sync(chat.store_refusal, turn, first)
        return StreamingResponse(refused(wire, payload), media_type=MEDIA_TYPE, headers=HEADERS)
    bridge = Bridge()
    state.chat_pool.submit(chat.stream, turn, first, events, bridge)
    keepalive = state.service.settings.sse_keepalive_s
    body = frames(wire, bridge, keepalive)
    return StreamingResponse(body, media_type=MEDIA_TYPE, headers=HEADERS)
