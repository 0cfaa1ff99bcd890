"""An LLM that writes hostile Markdown, through a real server: on every surface an answer
reaches (``/api/chat`` JSON and SSE, the history, the Markdown export, ``/v1`` chat
completions streamed and not, ``/v1/responses``, MCP over HTTP) no form of
:data:`hostile.FORMS` renders as a live script or link in a CommonMark renderer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx as httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from apihelpers import mid, parse_sse
from fakellm import Script
from hostile import FORMS, live_links
from livehelpers import Live, live

Q = "How are annual plans refunded?"
GROUP = 8  # forms a reply holds


def replies() -> list[str]:
    groups = [FORMS[i : i + GROUP] for i in range(0, len(FORMS), GROUP)]
    return ["Annual plans are refunded in full [1].\n\n" + "\n\n".join(g) for g in groups]


def pieces(text: str) -> list[str]:
    """The reply as a model streams it: a few characters a token."""
    return [text[i : i + 3] for i in range(0, len(text), 3)]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("hostile") / "home", rate_limit=0) as a:
        yield a


def surfaces(app: Live, reply: str) -> dict[str, str]:
    """What each surface shows of the answer to a model that wrote ``reply``."""
    app.llm.script = Script(pieces(reply))
    shown: dict[str, str] = {}
    body = app.chat(Q)
    assert body["type"] == "answer", body
    shown["json answer"], shown["json answer_markdown"] = body["answer"], body["answer_markdown"]
    events = app.stream(Q)
    shown["sse"] = "".join(d["text"] for e, d in events if e == "answer_delta")
    session = body["session_id"]
    messages = app.http.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    shown["history"] = messages[-1]["content"]
    export = app.http.get(f"/api/sessions/{session}/export?format=markdown", headers=app.alice)
    shown["markdown export"] = export.text
    shown.update(v1(app))
    shown["mcp"] = asyncio.run(mcp_answer(app))
    return shown


def v1(app: Live) -> dict[str, str]:
    chat = {"model": "default", "messages": [{"role": "user", "content": Q}]}
    plain = app.http.post("/v1/chat/completions", json=chat, headers=app.alice).json()
    streamed = app.http.post("/v1/chat/completions", json={**chat, "stream": True},
                             headers=app.alice)  # fmt: skip
    text = ""
    for line in streamed.text.splitlines():
        if line.startswith("data: {"):
            text += json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
    responses = app.http.post("/v1/responses", json={"model": "default", "input": Q},
                              headers=app.alice).json()  # fmt: skip
    output = "".join(c["text"] for item in responses["output"] for c in item["content"])
    return {"v1 chat": plain["choices"][0]["message"]["content"], "v1 chat stream": text,
            "v1 responses": output}  # fmt: skip


async def mcp_answer(app: Live) -> str:
    async with (
        httpx2.AsyncClient(headers=app.alice, timeout=60) as auth,
        Client(streamable_http_client(app.url + "/mcp", http_client=auth)) as client,
    ):
        result = await client.call_tool("ask", {"question": Q})
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


IDS = [f"forms-{i * GROUP + 1}" for i in range(len(replies()))]


@pytest.mark.parametrize("reply", replies(), ids=IDS)
def test_no_hostile_form_is_live_on_any_surface(app: Live, reply: str) -> None:
    shown = surfaces(app, reply)
    assert len(shown) == 9
    for surface, text in shown.items():
        assert "refunded in full" in text, (surface, text)
        assert live_links(text) == [], (surface, text)


def test_an_answer_streamed_is_the_answer_stored(app: Live) -> None:
    app.llm.script = Script(pieces(replies()[0]))
    payload: dict[str, Any] = {"message": Q, "message_id": mid()}
    r = app.http.post("/api/chat", json=payload,
                      headers={**app.alice, "Accept": "text/event-stream"})  # fmt: skip
    events = parse_sse(r.text)
    streamed = "".join(d["text"] for e, d in events if e == "answer_delta")
    stored = app.http.get(f"/api/sessions/{events[0][1]['session_id']}/messages",
                          headers=app.alice).json()[-1]  # fmt: skip
    assert stored["content"] == streamed
