"""The OpenAI-compatible streaming client over an injected httpx transport (no sockets)."""

from __future__ import annotations

import json

import httpx
import pytest

from footnoted import Settings
from footnoted.answering.llm.client import ChatClient, GenerationLimit, LLMUnavailable


def sse(*contents: str, done: bool = True) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]}
              for c in contents]  # fmt: skip
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def client(handler: httpx.MockTransport, **settings: object) -> ChatClient:
    return ChatClient(Settings(llm_base_url="http://llm.test/v1", **settings), handler)  # type: ignore[arg-type]


def test_streams_tokens_and_sends_the_settings() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=sse("Hello", " world"))

    tokens = list(client(httpx.MockTransport(handle), llm_api_key="k", llm_model="m").stream([]))
    assert tokens == ["Hello", " world"]
    body = json.loads(seen[0].content)
    assert str(seen[0].url) == "http://llm.test/v1/chat/completions"
    assert seen[0].headers["authorization"] == "Bearer k"
    assert body["model"] == "m" and body["stream"] is True and body["temperature"] == 0.0


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(500, content=b"oops"),
        httpx.Response(200, content=b"data: {not json\n\n"),
        httpx.Response(200, content=sse("cut", done=False)),
    ],
    ids=["5xx", "malformed", "ended-early"],
)
def test_failures_raise_llm_unavailable(response: httpx.Response) -> None:
    transport = httpx.MockTransport(lambda request: response)
    with pytest.raises(LLMUnavailable):
        list(client(transport).stream([]))


def test_connection_errors_raise_llm_unavailable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(LLMUnavailable, match="could not be reached"):
        list(client(httpx.MockTransport(refuse)).stream([]))


def test_lines_split_across_reads_and_crlf_are_parsed() -> None:
    whole = sse("Hé", "llo").replace(b"\n", b"\r\n")
    pieces = [whole[i : i + 7] for i in range(0, len(whole), 7)]  # splits lines and UTF-8
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=iter(pieces)))
    assert list(client(transport).stream([])) == ["Hé", "llo"]


def test_a_stream_past_the_token_cap_raises_generation_limit() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=sse(*"abcd")))
    assert list(client(transport, llm_max_tokens=4).stream([])) == list("abcd")
    with pytest.raises(GenerationLimit, match="limit of 3 tokens"):
        list(client(transport, llm_max_tokens=3).stream([]))
