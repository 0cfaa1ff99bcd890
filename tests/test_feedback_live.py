"""Feedback end to end on SQLite and on PostgreSQL: given in the web UI (Chromium) and
through MCP on a real ``footnoted serve``, then seen, opened and resolved in the admins'
queue in the browser."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from apihelpers import cli
from servedhelpers import QUESTION, Served, served
from webhelpers import CHROMIUM, CHROMIUM_ARGS, ask, last_answer, require_browser, sign_in

pytestmark = pytest.mark.slow
OTHER = "How are annual plans refunded?"


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, backend: str
) -> Iterator[tuple[Served, str, Any]]:
    sync_api = require_browser()
    with served(tmp_path_factory.mktemp("feedback-live") / "home") as s:
        admin = cli(s.home, "user", "add", "root", "--admin").stdout.strip().splitlines()[-1]
        pw = sync_api.sync_playwright().start()
        try:
            yield s, admin, pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        finally:
            pw.stop()


def feedback_over_mcp(s: Served) -> str:
    async def run() -> str:
        headers = {"Authorization": f"Bearer {s.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as auth,
            Client(streamable_http_client(s.url + "/mcp", http_client=auth)) as client,
        ):
            answer = await client.call_tool("ask", {"question": OTHER})
            assert answer.structured_content is not None
            message_id = str(answer.structured_content["message_id"])
            said = await client.call_tool(
                "feedback", {"message_id": message_id, "kind": "helpful", "note": "spot on"}
            )
            assert not said.is_error
            return message_id

    with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        return pool.submit(lambda: asyncio.run(run())).result()


def test_feedback_from_the_browser_and_mcp_is_worked_through_in_the_queue(
    site: tuple[Served, str, Any], backend: str
) -> None:
    s, admin, browser = site
    page = browser.new_context(base_url=s.url).new_page()
    page.goto("/")
    sign_in(page, s.token)
    ask(page, QUESTION)
    answer = last_answer(page)
    answer.get_by_role("button", name="Not helpful").click()
    answer.locator(".feedback-form textarea").fill(f"Wrong on {backend}.")
    answer.locator(".feedback-form").get_by_role("button", name="Send").click()
    answer.locator(".feedback-status", has_text="your admins will see this").first.wait_for()
    answer.locator("summary").first.click()
    source = answer.locator("li.source").first
    source.get_by_role("button", name="Flag").click()
    source.locator(".feedback-form").get_by_role("button", name="Send").click()
    source.locator(".feedback-status", has_text="your admins will see this").wait_for()
    page.context.close()
    feedback_over_mcp(s)

    page = browser.new_context(base_url=s.url).new_page()
    page.goto("/")
    sign_in(page, admin)
    page.click("#open-admin")
    page.click("#tabbtn-feedback")
    items = page.locator(".feedback-item")
    items.first.wait_for()
    assert items.count() == 3
    kinds = sorted(items.locator(".feedback-kind").all_inner_texts())
    assert kinds == ["Helpful", "Not helpful", "Source doesn't say it · source [1]"]
    assert (
        f"Wrong on {backend}."
        in page.locator(".feedback-item", has_text="Not helpful").inner_text()
    )
    assert "spot on" in page.locator(".feedback-item", has_text=OTHER).inner_text()
    flagged = page.locator(".feedback-item", has_text="source [1]")
    flagged.locator(".feedback-open").click()
    page.wait_for_selector("#viewer mark.exact")
    page.click("#viewer-close")
    flagged.get_by_role("button", name="Resolve").click()
    page.wait_for_function("() => document.querySelectorAll('.feedback-item').length === 2")
    page.select_option("#feedback-status", "resolved")
    page.wait_for_function("() => document.querySelectorAll('.feedback-item').length === 1")
    assert "Resolved by root" in page.locator(".feedback-item").inner_text()
    page.context.close()
