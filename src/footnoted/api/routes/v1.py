"""OpenAI-compatible API: ``GET /v1/models`` and ``POST /v1/chat/completions``.

``model`` names a collection. The answer runs through the same :class:`ChatService` as
``/api/chat`` (auth, rate limit, history), in the collection's generation mode. Extra
top-level fields: ``citations: {sources, referenced_indices}`` (absent when citations or
document search are off) and ``retrieval: {collection, duration_ms, chunks_returned}``;
when streaming they ride on the final chunk only, next to ``usage``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.responses import Response, StreamingResponse

from ...citations import sources_block
from ...errors import InvalidInput
from ...models import Citation, Refusal
from ..auth import CurrentUser
from ..chat import Turn
from ..errors import responses
from ..responses import SafeJSONResponse, dumps
from ..schemas import ChatRequest
from ..sse import HEADERS, KEEP_ALIVE, MEDIA_TYPE, Bridge
from ..state import AppState, State

router = APIRouter(tags=["openai"])


class V1Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class CompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens… are accepted, unused

    model: str = Field(min_length=1, max_length=200, description="The collection to ask.")
    messages: list[V1Message] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None


@router.get("/v1/models", responses=responses(401))
def models(user: CurrentUser, state: State) -> dict[str, Any]:
    """The collections, as OpenAI models."""
    names = sorted({state.service.settings.collection, *state.service.store.collections()})
    data = [{"id": n, "object": "model", "created": 0, "owned_by": "footnoted"} for n in names]
    return {"object": "list", "data": data}


@router.post(
    "/v1/chat/completions",
    responses=responses(401, 404, 413, 422, 429, 503),
    response_class=SafeJSONResponse,
)
async def chat_completions(body: CompletionRequest, user: CurrentUser, state: State) -> Response:
    """Answer the last user message over the collection named by ``model``."""
    request = _chat_request(body)
    await anyio.to_thread.run_sync(state.limiter.check, user)
    _, turn = await anyio.to_thread.run_sync(state.chat.prepare, user, request)
    if not body.stream:
        payload = await anyio.to_thread.run_sync(state.chat.answer_json, turn)
        return SafeJSONResponse(_completion(state, body, turn, payload))
    return await _stream(state, body, turn)


def _chat_request(body: CompletionRequest) -> ChatRequest:
    question = next((_text(m) for m in reversed(body.messages) if m.role == "user"), "")
    try:
        return ChatRequest(message=question, message_id=uuid.uuid4().hex, collection=body.model)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise InvalidInput(
            f"The last user message is not a valid question ({where}: {exc.errors()[0]['msg']}).",
            code="invalid_messages",
        ) from exc


def _text(message: V1Message) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = message.content or []
    return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


# ---- pieces of a completion -------------------------------------------------------------


def _retrieval(turn: Turn) -> dict[str, Any]:
    info = {"collection": turn.collection, "duration_ms": 0.0, "chunks_returned": 0}
    return {**info, **turn.info}


def _citations(payload: dict[str, Any]) -> dict[str, Any] | None:
    if "citations" not in payload or payload.get("type") != "answer":
        return None
    return {"sources": payload["citations"], "referenced_indices": payload["referenced_indices"]}


def _usage(state: AppState, question: str, answer: str) -> dict[str, int]:
    prompt, completion = state.service.embedder.count_tokens([question, answer])
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _content(turn: Turn, payload: dict[str, Any]) -> str:
    text = str(payload.get("answer") or payload.get("message") or "")
    cites = _citations(payload)
    if cites is None or turn.config.generation_mode != "extractive" or not cites["sources"]:
        return text
    citations = [Citation.from_dict(c) for c in cites["sources"]]
    return f"{text}\n\nSources:\n{sources_block(citations, cites['referenced_indices'])}"


def _completion(
    state: AppState, body: CompletionRequest, turn: Turn, payload: dict[str, Any]
) -> dict[str, Any]:
    content = _content(turn, payload)
    out: dict[str, Any] = {
        "id": f"chatcmpl-{turn.request.message_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": _usage(state, turn.request.message, content),
        "retrieval": _retrieval(turn),
    }
    cites = _citations(payload)
    if cites is not None:
        out["citations"] = cites
    return out


# ---- streaming ----------------------------------------------------------------------------


class _Chunks:
    """``chat.completion.chunk`` frames of one answer."""

    def __init__(self, state: AppState, body: CompletionRequest, turn: Turn) -> None:
        self.state, self.body, self.turn = state, body, turn
        self.base = {
            "id": f"chatcmpl-{turn.request.message_id}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.model,
        }
        self.text: list[str] = []

    def delta(self, delta: dict[str, Any]) -> bytes:
        if "content" in delta:
            self.text.append(delta["content"])
        chunk = {**self.base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        return _data(chunk)

    def final(self, sources: dict[str, Any] | None) -> bytes:
        chunk: dict[str, Any] = {
            **self.base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
        if sources is not None:
            chunk["citations"] = {
                "sources": sources["citations"],
                "referenced_indices": sources["referenced_indices"],
            }
        chunk["retrieval"] = _retrieval(self.turn)
        options = self.body.stream_options
        if options is not None and options.include_usage:
            chunk["usage"] = _usage(self.state, self.turn.request.message, "".join(self.text))
        return _data(chunk)


def _data(value: dict[str, Any] | str) -> bytes:
    text = value if isinstance(value, str) else dumps(value)
    return f"data: {text}\n\n".encode()


async def _stream(state: AppState, body: CompletionRequest, turn: Turn) -> Response:
    chat = state.chat
    first, events = await anyio.to_thread.run_sync(chat.first_event, turn)
    chunks = _Chunks(state, body, turn)
    if isinstance(first, Refusal):
        events.close()
        await anyio.to_thread.run_sync(chat.store_refusal, turn, first)
        return StreamingResponse(
            _refusal(chunks, first.message), media_type=MEDIA_TYPE, headers=HEADERS
        )
    bridge = Bridge()
    state.chat_pool.submit(chat.stream, turn, first, events, bridge)
    keepalive = state.service.settings.sse_keepalive_s
    return StreamingResponse(
        _frames(chunks, bridge, keepalive), media_type=MEDIA_TYPE, headers=HEADERS
    )


async def _refusal(chunks: _Chunks, message: str) -> AsyncIterator[bytes]:
    yield chunks.delta({"role": "assistant", "content": ""})
    yield chunks.delta({"content": message})
    yield chunks.final(None)
    yield _data("[DONE]")


async def _frames(chunks: _Chunks, bridge: Bridge, keepalive_s: float) -> AsyncIterator[bytes]:
    """Completion chunks; the frames that arrived together go out in one write."""
    sources: dict[str, Any] | None = None
    async for batch in bridge.batches(keepalive_s):
        if batch is None:
            yield KEEP_ALIVE
            continue
        out: list[bytes] = []
        for event, data in batch:
            if event == "answer_start":
                out.append(chunks.delta({"role": "assistant", "content": ""}))
            elif event == "answer_delta":
                out.append(chunks.delta({"content": data["text"]}))
            elif event == "sources":
                sources = data
            elif event == "refusal":
                out += [chunks.delta({"content": data["message"]}), chunks.final(None)]
                yield b"".join([*out, _data("[DONE]")])
                return
            elif event == "error":
                yield b"".join([*out, _data({"error": {**data, "type": "server_error"}})])
                return
            elif event == "answer_end":
                yield b"".join([*out, chunks.final(sources), _data("[DONE]")])
                return
        if out:
            yield b"".join(out)
