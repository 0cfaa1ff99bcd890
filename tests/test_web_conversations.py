"""Conversations in a real browser (Debian's Chromium through Playwright) against a real
``footnoted serve``: an address per conversation (reload, back and forward), the sidebar's
titles, dates and origin filter, export and Copy with footnotes, and the answer's notes
(a notice, "Read as", the support badge, other passages), on a desktop and a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from apihelpers import Server, bearer, cli, free_port, mid, start_server
from conftest import SAMPLES
from footnoted import Footnoted, Settings
from webhelpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ask,
    last_answer,
    require_browser,
    screenshot,
    sign_in,
)

pytestmark = pytest.mark.slow

QUESTION = "How are annual plans refunded?"
FIRST = "How long do deleted files stay in the trash?"
FOLLOW = "And for a closed account?"
OFF_TOPIC = "What is the boiling point of mercury on Jupiter?"
DESKTOP = {"width": 1366, "height": 860}
PHONE = {"width": 390, "height": 844}
CONVERSATION = re.compile(r"/c/[0-9a-f]{32}$")


class Site:
    def __init__(self, server: Server, tokens: tuple[str, str], pw: Any) -> None:
        self.server = server
        self.admin, self.alice = tokens
        self.browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def page(self, token: str, viewport: dict[str, int], **context: Any) -> Any:
        ctx = self.browser.new_context(base_url=self.server.url, viewport=viewport, **context)
        page = ctx.new_page()
        page.errors, page.missing = [], []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("response", lambda r: r.status == 404 and page.missing.append(r.url))
        page.goto("/")
        sign_in(page, token)
        return page

    def api(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=self.server.url, headers=bearer(token), timeout=60)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    sync_api = require_browser()
    home = tmp_path_factory.mktemp("conversations") / "home"
    with Footnoted(Settings(home=home)) as fn:
        assert not fn.ingest([SAMPLES]).failed
    admin = cli(home, "user", "add", "admin", "--admin").stdout.strip().splitlines()[-1]
    alice = cli(home, "user", "add", "alice").stdout.strip().splitlines()[-1]
    nobody = f"http://127.0.0.1:{free_port()}/v1"  # an LLM that is not there
    server = start_server(home, FOOTNOTED_RATE_LIMIT="0", FOOTNOTED_LLM_BASE_URL=nobody)
    pw = sync_api.sync_playwright().start()
    try:
        yield Site(server, (admin, alice), pw)
    finally:
        pw.stop()
        server.stop()


def in_view(page: Any, selector: str) -> bool:
    """Whether the element is inside the scrolled message list's visible part."""
    return bool(page.evaluate(
        """(sel) => { const box = document.querySelector('#messages').getBoundingClientRect();
        const nodes = document.querySelectorAll(sel); const r = nodes[nodes.length - 1]
        .getBoundingClientRect(); return r.top >= box.top - 1 && r.bottom <= box.bottom + 1; }""",
        selector,
    ))  # fmt: skip


def test_a_conversation_has_an_address_that_reload_and_history_keep(site: Site) -> None:
    page = site.page(site.alice, DESKTOP, permissions=["clipboard-read", "clipboard-write"])
    ask(page, QUESTION)
    first = last_answer(page)
    page.wait_for_url(CONVERSATION)
    first_url = page.url
    session = first_url.rsplit("/", 1)[1]
    assert in_view(page, ".msg-answer .answer-actions")  # the footer is not under the composer
    badges = first.locator(".badge").all_inner_texts()
    row = page.locator(f'.session[data-id="{session}"]')
    assert row.locator(".session-title").inner_text() == QUESTION
    assert row.locator("time").inner_text() and row.get_attribute("class") == "session active"
    first.get_by_role("button", name="Copy").click()
    page.wait_for_selector(".copy:has-text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "\n\n[^1]: **Northwind Cloud Customer Handbook**" in copied
    assert "[^1]" in copied.split("\n\n")[0] and not re.search(r"\[\d+\]", copied)
    href = page.locator("#export-markdown").get_attribute("href")
    assert href == f"/api/sessions/{session}/export?format=markdown"
    exported = page.request.get(href)  # the page's own cookie
    assert exported.ok and "[^1]: **Northwind Cloud Customer Handbook**" in exported.text()
    screenshot(page, "30-conversation-address-desktop")

    page.reload()
    page.wait_for_selector(".msg-answer .copy")
    assert page.url == first_url and page.locator("#chat-title").inner_text() == QUESTION
    assert page.locator(".msg-answer .badge").all_inner_texts() == badges
    page.click("#new-chat")
    page.wait_for_url(re.compile(r"/$"))
    ask(page, FIRST)
    last_answer(page)
    page.wait_for_url(CONVERSATION)
    second_url = page.url
    assert second_url != first_url
    ask(page, FOLLOW)  # a follow-up, read with the conversation: said discreetly
    page.wait_for_function("() => document.querySelectorAll('.msg-answer .copy').length === 2")
    read_as = page.locator(".msg-answer").last.locator(".read-as")
    assert read_as.inner_text().startswith(f"Read as: “{FOLLOW} {FIRST}")
    copy = page.locator(".msg-answer").last.locator(".copy")  # the long line beside it is cut
    size = page.viewport_size
    page.set_viewport_size({"width": 760, "height": size["height"]})  # a narrow window
    assert copy.evaluate("b => b.scrollWidth <= b.clientWidth")
    line = copy.evaluate("b => parseFloat(getComputedStyle(b).lineHeight) || 20")
    assert copy.evaluate("b => b.getBoundingClientRect().height") < 2 * line  # one line
    page.set_viewport_size(size)
    page.go_back()
    page.wait_for_function(
        f"() => document.querySelector('#chat-title').textContent === {QUESTION!r}"
    )
    assert page.url == first_url and page.locator(".msg-user").count() == 1
    page.go_forward()
    page.wait_for_function("() => document.querySelectorAll('.msg-user').length === 2")
    assert page.url == second_url
    said = read_as.inner_text()
    page.reload()  # how the follow-up was read is kept with its answer
    page.wait_for_function("() => document.querySelectorAll('.msg-answer .copy').length === 2")
    assert page.locator(".msg-answer").last.locator(".read-as").inner_text() == said
    assert page.locator(".msg-answer").first.locator(".read-as").count() == 0

    with site.api(site.alice) as api:  # a program's conversation stays out of the web list
        r = api.post("/api/chat", json={"message": QUESTION, "message_id": mid()})
        from_api = r.json()["session_id"]
    page.reload()
    page.wait_for_selector(".session")
    assert page.locator(f'.session[data-id="{from_api}"]').count() == 0
    page.select_option("#origin-filter", "")
    page.wait_for_selector(f'.session[data-id="{from_api}"]')
    assert page.locator(f'.session[data-id="{from_api}"] .origin-tag').inner_text() == "API"
    screenshot(page, "31-sidebar-all-origins")
    page.goto("/c/0123456789abcdef0123456789abcdef")
    page.wait_for_selector(".notice-warn:has-text('not there')")
    assert not page.errors
    assert not [u for u in page.missing if "/c/0123" not in u and "/sessions/0123" not in u]
    page.context.close()


def test_notice_badge_other_passages_and_refusal_for_an_admin(site: Site) -> None:
    with site.api(site.admin) as api:
        api.put("/api/collections/default/settings", json={"generation_mode": "llm"})
    try:
        page = site.page(site.admin, DESKTOP)
        ask(page, QUESTION)  # the LLM cannot be reached: an extractive answer, and a notice
        answer = last_answer(page)
        assert answer.locator(".notice-info").count() == 1
        with site.api(site.admin) as api:
            stored = api.get("/api/sessions").json()[0]
            messages = api.get(f"/api/sessions/{stored['id']}/messages").json()
        cited = answer.locator("details.sources > .source-list > .source")
        assert cited.count() == len(messages[-1]["referenced_indices"])
        other = answer.locator(".other-passages")
        uncited = len(messages[-1]["citations"]) - cited.count()  # what the reader believed
        assert other.count() == (1 if uncited else 0)
        if uncited:
            summary = other.locator("summary")
            assert summary.text_content() == f"Other passages considered ({uncited})"
        grounded = answer.locator(".grounded")
        label = messages[-1]["grounding"]["label"]
        expected = {"grounded": "Grounded in", "partly": "Partly grounded", "weak": "Weak evidence"}
        assert grounded.inner_text().startswith(expected[label])
        assert "97%" in (grounded.get_attribute("title") or "") or label != "grounded"
        answer.locator("details.sources > summary").click()
        if uncited:
            other.locator("summary").click()
        screenshot(page, "32-notice-and-other-passages")
        ask(page, OFF_TOPIC)
        page.wait_for_selector(".bubble-refusal")
        buttons = page.locator(".bubble-refusal .suggestion").all_inner_texts()
        assert "Contact support" not in buttons and "See unanswered questions" in buttons
        screenshot(page, "33-refusal-for-an-admin")
        page.get_by_role("button", name="See unanswered questions").click()
        page.wait_for_selector("#tab-refusals:visible")
        # the table fills when the admin's refusal list arrives, after the tab shows
        page.locator("#refusal-table tbody tr", has_text=OFF_TOPIC).first.wait_for()
        assert not page.errors and not page.missing
        page.context.close()
    finally:
        with site.api(site.admin) as api:
            api.put("/api/collections/default/settings", json={"generation_mode": "extractive"})


def test_phone_in_the_dark(site: Site) -> None:
    page = site.page(site.alice, PHONE, color_scheme="dark")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(20, 23, 29)"  # prefers-color-scheme: dark
    # what is indexed: the line fills when the collection list arrives, after the page
    page.locator("#indexed", has_text="document").wait_for()
    assert page.locator(".collection-pick").count() == 1
    screenshot(page, "34-phone-dark-empty")
    ask(page, QUESTION)
    last_answer(page)
    page.wait_for_url(CONVERSATION)
    assert in_view(page, ".msg-answer .answer-actions")
    assert page.locator("#export").is_visible()
    screenshot(page, "35-phone-dark-answer")
    page.click("#open-sidebar")
    page.wait_for_timeout(300)
    assert page.locator(".session.active .session-title").inner_text() == QUESTION
    screenshot(page, "36-phone-dark-sidebar")
    page.locator(".session.active .session-open").click()
    page.wait_for_selector(".msg-answer .copy")
    scroll = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(scroll)
    ask(page, OFF_TOPIC)
    page.wait_for_selector(".bubble-refusal")
    page.get_by_role("button", name="Ask an admin to add this").click()
    assert "logged for your admins" in page.locator(".refusal-note").inner_text()
    assert not page.errors and not page.missing
    page.context.close()
