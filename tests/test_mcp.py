"""The MCP server, driven by the MCP SDK's own client: ``footnoted mcp`` as a stdio
subprocess, and ``/mcp`` on a real ``footnoted serve`` over streamable HTTP."""

from __future__ import annotations

import ast
import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from apihelpers import cli
from docshelpers import blocks, run_python
from footnoted.mcp.results import refused
from servedhelpers import BIN, NOT_COVERED, QUESTION, REFUSAL, Served, served

pytestmark = pytest.mark.slow

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "answer": ("ask", {"question": QUESTION}),
    "refusal": ("ask", {"question": NOT_COVERED}),
    "search": ("search", {"query": "deleted files in the trash", "limit": 3}),
    "unknown": ("ask", {"question": QUESTION, "collection": "nope"}),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(tmp_path_factory.mktemp("mcp") / "home") as s:
        yield s


async def _session(client: Client) -> dict[str, Any]:
    """What one session of a host sees: the tools, then each call's result."""
    out: dict[str, Any] = {"tools": (await client.list_tools()).tools}
    for name, (tool, args) in CALLS.items():
        out[name] = await client.call_tool(tool, args)
    return out


def stdio_params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=str(BIN / "footnoted"), args=["mcp"], env=env)


@pytest.fixture(scope="module")
def stdio(server: Served) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(stdio_params(server.env())) as client:
            return await _session(client)

    return asyncio.run(run())


@asynccontextmanager
async def http_client(server: Served, token: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending the token."""
    headers = {"Authorization": f"Bearer {token}"}
    url = server.url + "/mcp"
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as auth,
        Client(streamable_http_client(url, http_client=auth)) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def http(server: Served) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with http_client(server, server.token) as client:
            return await _session(client)

    return asyncio.run(run())


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in leaves(e)]
    return [exc]


def text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def data(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


# ---- what every host sees, over stdio and HTTP alike -----------------------------------------


@pytest.fixture(params=["stdio", "http"])
def seen(request: pytest.FixtureRequest) -> dict[str, Any]:
    result: dict[str, Any] = request.getfixturevalue(request.param)
    return result


def test_tools_are_listed_with_their_output_schemas(seen: dict[str, Any]) -> None:
    tools = {t.name: t for t in seen["tools"]}
    assert set(tools) == {"ask", "search", "feedback"}
    for tool in tools.values():
        assert tool.output_schema is not None
        assert tool.annotations.read_only_hint == (tool.name != "feedback")
    assert "refused" in tools["ask"].output_schema["properties"]


def test_a_cited_answer_carries_its_quotes_and_citations(seen: dict[str, Any]) -> None:
    result = seen["answer"]
    assert not result.is_error
    shown = text(result)
    answer, _, sources = shown.partition("\n\nSources:\n")
    assert "60 days" in answer and "[1]" in answer
    assert sources.startswith("[1] Data Retention Policy — Section Data Retention Policy")
    assert '"When an account is closed, its data is kept for 60 days' in sources
    got = data(result)
    assert got["type"] == "answer" and got["refused"] is False and got["answer"] in shown
    first = got["sources"][0]
    assert first["index"] == 1 and first["title"] == "Data Retention Policy"
    assert first["section"] == "Data Retention Policy > Closed accounts"
    assert "page" in first and first["page"] is None  # HTML has no pages
    assert "kept for 60 days" in first["quote"] and first["score"] > 0
    assert 0 <= got["confidence"] <= 1


def test_a_refusal_is_a_refusal(seen: dict[str, Any]) -> None:
    result = seen["refusal"]
    assert not result.is_error  # the tool worked: the documents do not hold the answer
    assert text(result).startswith(f"REFUSED: the documents do not hold the answer.\n{REFUSAL}")
    got = data(result)
    assert got["type"] == "refusal" and got["refused"] is True
    assert got["answer"] is None and got["sources"] == []
    assert got["suggestions"] and got["evidence"]["threshold"] == 0.35


def test_search_returns_the_passages_best_first(seen: dict[str, Any]) -> None:
    got = data(seen["search"])
    passages = got["passages"]
    assert [p["rank"] for p in passages] == [1, 2, 3]
    assert passages[0]["section"] == "Data Retention Policy > Deleted files"
    assert "stay in the trash for 30 days" in passages[0]["quote"]
    scores = [p["score"] for p in passages]
    assert scores == sorted(scores, reverse=True) and got["threshold"] == 0.35
    assert text(seen["search"]).startswith("3 passages from 'default', best first:\n\n[1] ")


def test_an_unknown_collection_is_a_tool_error_naming_the_collections(
    seen: dict[str, Any],
) -> None:
    result = seen["unknown"]
    assert result.is_error and "'nope'" in text(result) and "default" in text(result)


# ---- stdio: answered in the footnoted mcp process ----------------------------------------------


def test_stdio_has_no_server_links(stdio: dict[str, Any]) -> None:
    assert data(stdio["answer"])["sources"][0]["link"] is None  # the HTML was not given a URL


# ---- HTTP: the running server, as the token's user ---------------------------------------------


def test_http_links_are_the_servers_document_links(server: Served, http: dict[str, Any]) -> None:
    first = data(http["answer"])["sources"][0]
    assert first["link"] == f"{server.url}/api/documents/{first['document_id']}/download"
    assert first["link"] in text(http["answer"])
    auth = {"Authorization": f"Bearer {server.token}"}
    assert b"60 days" in httpx.get(first["link"], headers=auth).content
    for p in data(http["search"])["passages"]:
        assert p["link"].startswith(f"{server.url}/api/documents/")


def test_http_questions_are_in_the_users_history_and_refusal_log(
    server: Served, http: dict[str, Any]
) -> None:
    auth = {"Authorization": f"Bearer {server.token}"}
    sessions = httpx.get(server.url + "/api/sessions", headers=auth).json()
    titles = [s["title"] for s in sessions]
    assert QUESTION in titles and NOT_COVERED in titles
    logged = json.loads(cli(server.home, "refusals", "--json").stdout)
    assert {"question": NOT_COVERED, "user_name": "alice"}.items() <= next(
        r for r in logged if r["question"] == NOT_COVERED and r.get("user_name")
    ).items()


def test_http_feedback_on_an_answer_reaches_the_admins_queue(server: Served) -> None:
    """An ``ask`` answer's ``message_id`` is what ``feedback`` names: the word and a
    flagged source land in the queue with the question, the answer and the passage."""

    async def run() -> tuple[CallToolResult, CallToolResult, CallToolResult, CallToolResult]:
        async with http_client(server, server.token) as client:
            answer = await client.call_tool("ask", {"question": QUESTION})
            message_id = data(answer)["message_id"]
            word = await client.call_tool(
                "feedback", {"message_id": message_id, "kind": "unhelpful", "note": "too short"}
            )
            flag = await client.call_tool(
                "feedback", {"message_id": message_id, "kind": "wrong_page", "citation": 1}
            )
            bad = await client.call_tool(
                "feedback", {"message_id": message_id, "kind": "wrong_page"}
            )
            return answer, word, flag, bad

    answer, word, flag, bad = asyncio.run(run())
    assert (
        not word.is_error and data(word)["kind"] == "unhelpful" and data(word)["status"] == "open"
    )
    assert "the admins see it" in text(word)
    assert not flag.is_error and data(flag)["kind"] == "wrong_page"
    assert bad.is_error and "citation_required" in text(bad)
    queue = json.loads(cli(server.home, "feedback", "list", "--json").stdout)
    mine = [f for f in queue if f["message_id"] == data(answer)["message_id"]]
    assert {f["kind"] for f in mine} == {"unhelpful", "wrong_page"}
    flagged = next(f for f in mine if f["kind"] == "wrong_page")
    assert flagged["question"] == QUESTION and flagged["user_name"] == "alice"
    assert flagged["passage"]["index"] == 1 and flagged["passage"]["text"]
    assert next(f for f in mine if f["kind"] == "unhelpful")["note"] == "too short"


def test_stdio_feedback_says_it_needs_a_server(server: Served) -> None:
    async def run() -> CallToolResult:
        async with Client(stdio_params(server.env())) as client:
            return await client.call_tool("feedback", {"message_id": "m1", "kind": "helpful"})

    result = asyncio.run(run())
    assert result.is_error and "feedback_needs_server" in text(result)


def test_http_needs_a_token(server: Served) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer fn_wrong"}):
        r = httpx.post(server.url + "/mcp", json=body, headers=headers)
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"]["code"] in {"unauthorized", "invalid_token"}

    async def connect() -> None:
        async with http_client(server, "fn_wrong") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as caught:
        asyncio.run(connect())
    assert any(isinstance(e, MCPError) for e in leaves(caught.value)), leaves(caught.value)


# ---- the docs page ---------------------------------------------------------------------------


def test_the_mcp_page_python_example_runs(server: Served) -> None:
    run = run_python("mcp.md", server)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert sorted(ast.literal_eval(out.splitlines()[0])) == ["ask", "feedback", "search"]
    assert "\n\nSources:\n[1] Data Retention Policy — Section Data Retention Policy" in out
    assert "1 Data Retention Policy None Data Retention Policy > Closed accounts" in out
    assert f"   {server.url}/api/documents/" in out and "| When an account is closed" in out
    assert f"Refused: {REFUSAL}" in out


def test_the_claude_desktop_entry_launches_the_server(server: Served) -> None:
    entry = json.loads(blocks("mcp.md", "json")[0])["mcpServers"]["footnoted"]
    assert entry["command"].endswith("/.venv/bin/footnoted") and entry["args"] == ["mcp"]
    env = {**os.environ, **entry["env"], "FOOTNOTED_HOME": str(server.home)}
    params = StdioServerParameters(command=str(BIN / "footnoted"), args=entry["args"], env=env)

    async def run() -> CallToolResult:
        async with Client(params) as client:
            return await client.call_tool("ask", {"question": QUESTION})

    assert "\n\nSources:\n[1] Data Retention Policy" in text(asyncio.run(run()))


def test_a_refusal_names_the_collections_whose_documents_answer() -> None:
    payload = {
        "type": "refusal", "message": REFUSAL, "suggestions": ["Rephrase your question"],
        "evidence": {"max_score": 0.15, "threshold": 0.35, "reason": "below_threshold"},
        "elsewhere": ["party", "wiki"],
    }  # fmt: skip
    result = refused(payload)
    assert not result.is_error and data(result)["refused"] is True
    assert (
        "Passages that answer it are in another collection: party, wiki (ask again with that "
        "collection)." in text(result)
    )
    del payload["elsewhere"]
    assert "another collection" not in text(refused(payload))
