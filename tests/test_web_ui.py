"""The web UI in a real browser (Debian's Chromium through Playwright) against a real
``footnoted serve`` process with real documents: sign-in, streaming answers with citation
badges, the document viewer, refusals, copy, history, a network drop, XSS and admin."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from apihelpers import Server, bearer, cli, start_server
from conftest import SAMPLES, shared, write
from fakellm import FakeLLM, Script, fake_llm, words
from footnoted import Footnoted, Settings
from footnoted.api.auth import SESSION_COOKIE
from webhelpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DropProxy,
    ask,
    focus_ring_clipped,
    last_answer,
    require_browser,
    screenshot,
    sign_in,
    tab_from_the_top,
)

pytestmark = pytest.mark.slow

QUESTION = "How are annual plans refunded?"
OFF_TOPIC = "What is the boiling point of mercury on Jupiter?"
RETENTION_Q = "How long is data kept after an account is closed?"
BACKUPS = "How long are backups of customer files retained?"
XSS = '<img src=x onerror="window.__xss=1"> <script>window.__xss=1</script> pineapple protocol?'
BACKUP_DOC = "# Backup Guide\n\n" + "\n\n".join(
    f"## {kind} backups\n\n{kind} backups of customer files are retained for {days} days "
    f"before the backups of customer files are deleted."
    for kind, days in [("Hourly", 2), ("Daily", 30), ("Weekly", 90), ("Monthly", 365),
                       ("Yearly", 2555)]
)  # fmt: skip
XSS_DOC = (
    "Pineapple protocol notes.\n\nThe pineapple protocol says <script>window.__xss=1</script> "
    'and <img src=x onerror="window.__xss=1"> and <a href="javascript:window.__xss=1">click</a> '
    "must all be shown as plain text by the pineapple protocol viewer."
)
ORCHARD = (
    "# Orchard Handbook\n\n## Harvest\n\nThe apple harvest at Greenfield Orchard starts on the "
    "second Monday of September and lasts six weeks.\n"
)
ORCHARD_Q = "When does the apple harvest at Greenfield Orchard start?"
WIKI_PDF = "haystack__sample_pdf_2.pdf"  # a real four-page PDF (Wikipedia's "Wiki")
BACKLINK_Q = "What does the backlink feature of a wiki display?"
SLIDES = "openchain__reference-training-slides-ISO-5230.pptx"  # a real deck: a page a slide
DISJUNCTIVE_Q = "What is disjunctive licensing?"
WARD_Q = "How do Ward Cunningham and Bo Leuf describe the essence of the Wiki concept?"
ENGINES_Q = "What do wiki engines usually allow content to be written using?"
PARTY = (
    "# Party Guide 🎉\n\n🎉🎈🎂 Welcome to the hall! 🎂🎈🎉\n\n## Balloons 🎈\n\n"
    "🎈🎈 The Zephyr party hall allows at most forty helium balloons per event. 🎈🎈\n"
)
PARTY_Q = "How many helium balloons does the Zephyr party hall allow per event?"
SALES = "Region,2021,2022,2023\nNorth,1200,1350,1490\nSouth,980,1010,1125\nEast,1500,1620,1710\n"
COSTS = (
    "# Operating Costs\n\nThe following table summarizes our operating costs (in thousands):"
    "\n\n| | 2022 | 2023 |\n| --- | --- | --- |\n| Freight | 412 | 455 |\n"
    "| Warehousing | 230 | 248 |\n"
)
RESULTS = (
    "# Results of Operations\n\nRevenue by year and its change (in thousands):\n\n"
    "| | 2021 | 2020 | 2019 | 2020 to 2021 | 2019 to 2020 |\n"
    "| --- | --- | --- | --- | --- | --- |\n"
    "| Revenue | $ 3,208,323 | $ 2,364,681 | $ 3,615,960 | 36 % | (35) % |\n"
    "| Cost of revenue | $ 1,649,532 | $ 1,447,516 | $ 2,176,469 | 14 % | (33) % |\n"
)
PITFALLS = (
    "# Compliance pitfalls\n\nEach pitfall, how it is avoided, and the cases found last year:"
    "\n\n| Pitfall | How it is avoided | Cost |\n| --- | --- | --- |\n"
    "| Missing source code | Add a verification step to the compliance process, so that the "
    "source code of every modification is published along with the original source code of "
    "the component before the product ships. | $ 14,000 |\n"
    "| Missing notices | Keep a notices file for each product and check it at every release, so "
    "that the notices of each licence ship with every product that uses the component. | — |\n"
)
ONBOARDING = (
    "# Onboarding Guide\n\n## First week\n\nNew employees complete three steps in their "
    "first week:\n\n- Collect a laptop from the IT desk.\n- Sign the security policy.\n"
    "- Meet their assigned mentor.\n\n## Second week\n\nIn the second week, new employees "
    "shadow a colleague on customer calls.\n"
)
PHONE = {"width": 390, "height": 844}
STREAMED = (
    "Annual plans are refunded in full when cancelled within 30 days of purchase [1]. After "
    "30 days, the unused whole months are refunded pro rata, minus a processing fee [1]."
)
NO_SIDEWAYS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


class Site:
    def __init__(
        self, server: Server, proxy: DropProxy, llm: FakeLLM, tokens: tuple[str, str], pw: Any
    ) -> None:
        self.server, self.proxy, self.llm = server, proxy, llm
        self.admin, self.alice = tokens
        self.pw = pw
        self.browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def chat_in(self, collection: str) -> Any:
        """Alice's page on a new chat over ``collection``."""
        page = self.page(self.alice)
        page.click("#new-chat")
        page.select_option("#collection", collection)
        return page

    def page(self, token: str | None = None, **context: Any) -> Any:
        ctx = self.browser.new_context(
            base_url=self.proxy.url, viewport=context.pop("viewport", None)
            or {"width": 1360, "height": 860}, **context,
        )  # fmt: skip
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("dialog", lambda d: (page.errors.append("dialog: " + d.message), d.dismiss()))
        page.goto("/")
        if token:
            sign_in(page, token)
        return page

    def api(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=self.server.url, headers=bearer(token), timeout=60)


def last_stored(api: httpx.Client) -> dict[str, Any]:
    """The last message of the most recent session, as the API stores it."""
    session = api.get("/api/sessions").json()[0]
    message: dict[str, Any] = api.get(f"/api/sessions/{session['id']}/messages").json()[-1]
    return message


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    sync_api = require_browser()
    root = tmp_path_factory.mktemp("web")
    home = root / "home"
    docs = root / "docs"
    write(docs / "backups.md", BACKUP_DOC)
    write(docs / "pineapple.txt", XSS_DOC)
    with Footnoted(Settings(home=home)) as fn:
        assert not fn.ingest([SAMPLES, docs]).failed
        assert not fn.ingest([shared("pdfs", WIKI_PDF)], collection="wiki").failed
        assert not fn.ingest([write(root / "party" / "party.md", PARTY)], "party").failed
        reports = [write(root / "reports" / "regional-sales.csv", SALES),
                   write(root / "reports" / "onboarding.md", ONBOARDING),
                   write(root / "reports" / "operating-costs.md", COSTS)]  # fmt: skip
        assert not fn.ingest(reports, "reports").failed
        assert not fn.ingest([shared("docs-more", SLIDES)], collection="slides").failed
        wide = [write(root / "wide" / "results.md", RESULTS),
                write(root / "wide" / "pitfalls.md", PITFALLS)]  # fmt: skip
        assert not fn.ingest(wide, "wide").failed
    admin = cli(home, "user", "add", "admin", "--admin").stdout.strip().splitlines()[-1]
    alice = cli(home, "user", "add", "alice").stdout.strip().splitlines()[-1]
    with fake_llm() as llm:
        server = start_server(
            home, FOOTNOTED_STREAM_PACE_MS="40", FOOTNOTED_RATE_LIMIT="0",
            FOOTNOTED_LLM_BASE_URL=llm.url,
        )  # fmt: skip
        proxy = DropProxy(int(server.url.rsplit(":", 1)[1]))
        pw = sync_api.sync_playwright().start()
        try:
            yield Site(server, proxy, llm, (admin, alice), pw)
        finally:
            pw.stop()
            proxy.close()
            server.stop()


def test_headers_cookie_session_and_csrf(site: Site) -> None:
    with httpx.Client(base_url=site.server.url, timeout=30) as c:
        page = c.get("/")
        csp = page.headers["content-security-policy"]
        for rule in ("default-src 'self'", "script-src 'self'", "object-src 'none'",
                     "frame-ancestors 'none'", "base-uri 'none'"):  # fmt: skip
            assert rule in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        assert c.get("/ui/app.js").headers["content-type"].startswith("text/javascript")
        bad = c.post("/api/auth/session", json={"token": site.alice})
        assert bad.status_code == 403 and bad.json()["error"]["code"] == "csrf_failed"
        csrf = {"X-Requested-With": "footnoted"}
        wrong = c.post("/api/auth/session", json={"token": "fn_nope"}, headers=csrf)
        assert wrong.status_code == 401
        ok = c.post("/api/auth/session", json={"token": site.alice}, headers=csrf)
        assert ok.json() == {"name": "alice", "is_admin": False}
        cookie = ok.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "secure" not in cookie
        assert c.get("/api/auth/me").json()["name"] == "alice"
        body = {"message": QUESTION, "message_id": "csrf-1"}
        assert c.post("/api/chat", json=body).json()["error"]["code"] == "csrf_failed"
        assert c.post("/api/chat", json=body, headers=csrf).json()["type"] == "answer"
        assert c.delete("/api/auth/session").status_code == 204
        assert c.get("/api/auth/me").status_code == 401


def test_ask_streams_badges_footer_hover_and_viewer(site: Site) -> None:
    page = site.page()
    screenshot(page, "01-sign-in")
    page.fill("#token", "fn_wrong")
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#signin-error:has-text('not valid')")
    sign_in(page, site.alice)
    page.evaluate(
        """() => { window.__lengths = [];
        new MutationObserver(() => {
          const t = document.querySelectorAll('.answer-text');
          if (t.length) window.__lengths.push(t[t.length - 1].textContent.length);
        }).observe(document.querySelector('#messages'),
                   {subtree: true, childList: true, characterData: true}); }"""
    )
    ask(page, QUESTION)
    page.wait_for_selector(".typing")  # the bubble shows a typing indicator while it grows
    answer = last_answer(page)
    lengths = [n for n in page.evaluate("window.__lengths") if n]
    drop = next((i for i in range(1, len(lengths)) if lengths[i] < lengths[i - 1]), len(lengths))
    streamed = lengths[:drop]  # then `sources` re-renders "[1]" markers as badges
    assert len(set(streamed)) >= 4 and streamed == sorted(streamed), lengths
    badges = answer.locator(".badge")
    assert badges.count() >= 1
    with site.api(site.alice) as api:
        stored = last_stored(api)
    # the exact answer the reader found is marked inside its quote, as stored
    lead = stored["spans"][0]
    exact = answer.locator("mark.answer-span")
    assert exact.count() == 1
    assert exact.inner_text() == stored["content"][lead["exact_start"] : lead["exact_end"]]
    used = len(stored["referenced_indices"])
    sources = f"{used} source" + "s" * (used > 1)
    shown = {  # the label the answer was stored with, in its words, with its confidence
        "grounded": f"Grounded in {sources}",
        "partly": f"Partly grounded · {sources}",
        "weak": f"Weak evidence · {sources}",
    }[stored["grounding"]["label"]]
    label = answer.locator(".grounded")
    assert label.inner_text() == shown
    confidence = round(stored["grounding"]["confidence"] * 100)
    assert f"(confidence {confidence}%)" in (label.get_attribute("title") or "")
    assert (
        "Sources: Northwind Cloud Customer Handbook"
        in answer.locator("details.sources > summary").inner_text()
    )
    badges.first.hover()
    tip = page.locator("#tooltip")
    tip.wait_for(state="visible")
    assert "Northwind Cloud Customer Handbook" in tip.inner_text()
    assert "refunded in full" in tip.inner_text() and "Annual plans" in tip.inner_text()
    screenshot(page, "02-answer-with-hover-card")
    badges.first.click()
    page.wait_for_selector("#viewer mark.exact")
    index = int(badges.first.inner_text())
    cited = next(c for c in stored["citations"] if c["index"] == index)
    with site.api(site.alice) as api:
        text = api.get(f"/api/documents/{cited['document_id']}/text").json()["text"]
    marks = page.locator("#viewer mark.exact").all_inner_texts()
    spans = [s for s in stored["spans"] if s["index"] == index]
    assert "".join(marks) == "".join(text[s["doc_start"] : s["doc_end"]] for s in spans)
    found = page.locator("#viewer mark.answer-span")
    assert found.inner_text() == text[lead["exact_doc_start"] : lead["exact_doc_end"]]
    assert "refunded in full" in "".join(marks)
    assert page.locator("#viewer mark.exact").first.is_visible()  # scrolled into view
    headings = page.locator("#viewer [role=heading]")  # the Markdown's own structure
    assert headings.all_inner_texts() == [
        "Northwind Cloud Customer Handbook", "Plans", "Billing", "Refunds", "Monthly plans",
        "Annual plans", "Security", "Support",
    ]  # fmt: skip
    levels = [h.get_attribute("aria-level") for h in headings.all()]
    assert levels == ["1", "2", "2", "2", "3", "3", "2", "2"]
    sizes = page.eval_on_selector_all(
        "#viewer [role=heading]", "hs => hs.map(h => parseFloat(getComputedStyle(h).fontSize))"
    )
    body_size = page.eval_on_selector(
        "#viewer-text", "t => parseFloat(getComputedStyle(t).fontSize)"
    )
    assert sizes[0] > sizes[1] > sizes[4] > body_size  # levels look like levels
    active = answer.locator(".source.active")
    assert active.count() == 1 and "Annual plans" in active.inner_text()
    assert answer.locator("details.sources").get_attribute("open") is not None
    screenshot(page, "03-document-viewer")
    assert not page.errors
    page.context.close()


def test_a_fresh_server_prepares_the_model_then_answers(site: Site) -> None:
    """A new ``footnoted serve`` answers at once and loads the model in the background:
    /api/health says ``warming``, the UI says "Preparing the model…", then all works."""
    ctx = site.browser.new_context()
    page = ctx.new_page()
    fresh = start_server(site.server.home, warm=False, FOOTNOTED_RATE_LIMIT="0")
    try:
        states = [httpx.get(fresh.url + "/api/health", timeout=10).json()["model"]]
        early: dict[str, Any] = {}
        asked = threading.Thread(target=lambda: early.update(ask_api(fresh.url, site.alice)))
        asked.start()  # a question asked while the model warms up waits for it
        page.goto(fresh.url)
        page.wait_for_selector("#warmup:visible")
        assert "Preparing the model" in page.locator("#warmup").inner_text()
        screenshot(page, "00-preparing-the-model")
        while states[-1] == "warming":
            time.sleep(0.1)
            states.append(httpx.get(fresh.url + "/api/health", timeout=10).json()["model"])
        assert states[0] == "warming" and states[-1] == "ready", states
        page.wait_for_selector("#token:visible", timeout=20_000)
        assert page.locator("#warmup").is_hidden()
        asked.join(60)
        assert early.get("type") == "answer" and "refunded in full" in early["answer"]
        sign_in(page, site.alice)
        ask(page, QUESTION)
        assert last_answer(page).locator(".badge").count() >= 1
    finally:
        ctx.close()
        fresh.stop()


def test_the_sidebar_says_the_server_is_unreachable_and_recovers_by_itself(site: Site) -> None:
    """The server stops: the history sidebar says "Can't reach the server — retrying…"
    (never a raw "Failed to fetch") and, when the server is back, lists the conversations
    again without a reload."""
    own = start_server(site.server.home, FOOTNOTED_RATE_LIMIT="0")
    port = int(own.url.rsplit(":", 1)[1])
    ctx = site.browser.new_context(base_url=own.url)
    page = ctx.new_page()
    try:
        page.goto("/")
        sign_in(page, site.alice)
        ask(page, QUESTION)
        last_answer(page)
        page.wait_for_selector("#sessions .session")
        own.stop()
        page.select_option("#origin-filter", "")  # any refresh of the list while it is down
        status = page.locator("#sessions .sessions-error")
        status.wait_for(timeout=15_000)
        assert status.inner_text() == "Can't reach the server — retrying…"
        assert "Failed to fetch" not in page.locator("#sessions").inner_text()
        screenshot(page, "36-sidebar-server-unreachable")
        own = start_server(site.server.home, port=port, FOOTNOTED_RATE_LIMIT="0")
        page.wait_for_selector("#sessions .session", timeout=30_000)  # no reload
        assert page.locator("#sessions .sessions-error").count() == 0
    finally:
        ctx.close()
        own.stop()


def ask_api(url: str, token: str) -> dict[str, Any]:
    body = {"message": QUESTION, "message_id": uuid.uuid4().hex}
    r = httpx.post(url + "/api/chat", json=body, headers=bearer(token), timeout=120)
    result: dict[str, Any] = r.json()
    return result


def test_refusal_renders_with_suggestions(site: Site) -> None:
    page = site.page(site.alice)
    ask(page, OFF_TOPIC)
    refusal = page.locator(".bubble-refusal")
    refusal.wait_for(timeout=60_000)
    assert "couldn't find the answer" in refusal.inner_text()
    assert refusal.locator(".badge").count() == 0
    refusal.get_by_role("button", name="Rephrase your question").click()
    assert page.evaluate("document.activeElement.id") == "question"
    screenshot(page, "04-refusal")
    page.context.close()


def test_more_than_three_sources_toggle_and_copy(site: Site) -> None:
    page = site.page(site.alice, permissions=["clipboard-read", "clipboard-write"])
    ask(page, BACKUPS)
    answer = last_answer(page)
    answer.locator("summary").first.click()
    with site.api(site.alice) as api:
        stored = last_stored(api)
    cited = answer.locator("details.sources > .source-list > .source")
    others = answer.locator(".other-passages .source")
    assert cited.count() == len(stored["referenced_indices"])  # what the answer cites
    assert cited.count() + others.count() == len(stored["citations"])  # the rest apart
    if cited.count() > 3:
        assert answer.locator("details.sources > .source-list > .source:visible").count() == 3
        more = answer.get_by_role("button", name=re.compile("Show more sources"))
        more.click()
    assert answer.locator("details.sources > .source-list > .source:visible").count() == (
        cited.count()
    )
    if others.count():
        answer.locator(".other-passages > summary").click()
        assert others.first.is_visible()
    screenshot(page, "05-many-sources")
    answer.get_by_role("button", name="Copy").click()
    page.wait_for_selector(".copy:has-text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "backups" in copied.lower() and "\n\n[^1]: **Backup Guide**" in copied
    assert not re.search(r"\[\d+\]", copied)  # the markers are footnote references
    page.context.close()


def test_history_restores_citations_continues_and_deletes(site: Site) -> None:
    page = site.page(site.admin)
    page.click("#new-chat")
    ask(page, QUESTION)
    first = last_answer(page)
    badges_before = first.locator(".badge").all_inner_texts()
    sources_before = first.locator(".source").all_inner_texts()
    page.reload()
    page.wait_for_selector("#question:visible")
    page.locator(".session-open", has_text="How are annual plans refunded?").first.click()
    restored = last_answer(page)
    assert restored.locator(".badge").all_inner_texts() == badges_before
    assert restored.locator(".source").all_inner_texts() == sources_before
    screenshot(page, "06-history")
    ask(page, "How long is data kept after an account is closed?")
    page.wait_for_function("() => document.querySelectorAll('.msg-answer .copy').length === 2")
    with site.api(site.admin) as api:
        sessions = api.get("/api/sessions").json()
        messages = api.get(f"/api/sessions/{sessions[0]['id']}/messages").json()
    assert len(messages) == 4  # the same session went on
    page.wait_for_load_state("networkidle")  # the sidebar's refresh after the answer is in
    row = page.locator(".session.active")
    row.locator(".session-delete").click()
    row.locator(".session-delete", has_text="Delete?").click()  # confirm
    page.wait_for_function(
        f"() => !document.querySelector('.session[data-id=\"{sessions[0]['id']}\"]')"
    )
    with site.api(site.admin) as api:
        assert sessions[0]["id"] not in {s["id"] for s in api.get("/api/sessions").json()}
    page.context.close()


def test_network_drop_keeps_partial_and_retry_reuses_the_message_id(site: Site) -> None:
    page = site.page(site.alice)
    requests: list[str] = []
    page.on(
        "request",
        lambda r: requests.append(r.post_data or "") if r.url.endswith("/api/chat") else None,
    )
    page.click("#new-chat")
    ask(page, BACKUPS)
    page.wait_for_function(
        "() => (document.querySelector('.answer-text')?.textContent.length || 0) > 20"
    )
    site.proxy.drop()
    error = page.locator(".answer-error")
    error.wait_for(timeout=20_000)
    partial = page.locator(".answer-text").inner_text()
    assert partial and "Connection lost" in error.inner_text()
    screenshot(page, "07-network-drop")
    retried = False
    deadline = time.monotonic() + 30
    while not retried and time.monotonic() < deadline:  # the server notices the drop first
        page.get_by_role("button", name="Retry").click()
        try:
            page.wait_for_selector(".msg-answer .copy", timeout=15_000)
            retried = True
        except Exception:
            page.wait_for_selector(".answer-error", timeout=15_000)
    assert retried
    assert page.locator(".msg-user").count() == 1 and page.locator(".answer-error").count() == 0
    ids = {re.search(r'"message_id":"([^"]+)"', body).group(1) for body in requests}  # type: ignore[union-attr]
    assert len(ids) == 1 and len(requests) >= 2
    full = page.locator(".answer-text").inner_text()
    assert len(full) > len(partial)
    page.context.close()


def test_xss_in_questions_and_documents_executes_nothing(site: Site) -> None:
    page = site.page(site.alice, bypass_csp=True)  # no CSP safety net: only text nodes protect
    ask(page, XSS)
    page.wait_for_selector(".msg-answer .copy, .bubble-refusal", timeout=60_000)
    ask(page, "What does the pineapple protocol say must be shown?")
    page.wait_for_function("() => document.querySelectorAll('.msg-answer .copy').length >= 1")
    answer = last_answer(page)
    assert "<img" in page.locator(".bubble-user").first.inner_text()
    badge = answer.locator(".badge").first
    badge.hover()
    badge.click()
    page.wait_for_selector("#viewer .passage")
    viewer = page.locator("#viewer-text").inner_text()
    assert "<script>window.__xss=1</script>" in viewer and "javascript:" in viewer
    page.wait_for_timeout(300)
    found = page.evaluate(
        """() => ({xss: window.__xss,
        tags: document.querySelectorAll('#messages img, #messages script, #messages a,'
          + ' #viewer-text img, #viewer-text script, #viewer-text a, #tooltip img').length})"""
    )
    assert found == {"xss": None, "tags": 0} or found == {"tags": 0}
    assert not page.errors
    screenshot(page, "08-xss-as-text")
    page.context.close()


def test_admin_clicked_while_the_app_loads_is_not_undone(site: Site) -> None:
    """The Admin button appears only once the views are set up, so a quick click on it
    is never switched back to the chat when the app finishes loading."""
    page = site.page()
    held: list[Any] = []
    page.route("**/api/collections", lambda route: held.append(route))  # answered later
    page.fill("#token", site.admin)
    page.click("#signin-form button[type=submit]")
    while not held:
        page.wait_for_timeout(20)
    assert page.locator("#open-admin").is_hidden()  # still loading: nothing to click yet
    held[0].continue_()
    page.click("#open-admin")
    page.wait_for_selector("#admin-view:visible")
    page.wait_for_load_state("networkidle")
    assert page.locator("#admin-view").is_visible()
    assert page.locator("#chat-view").is_hidden()
    page.wait_for_selector("#doc-table tbody tr")
    assert not page.errors


def test_admin_upload_ready_answerable_then_disable_refuses(site: Site, tmp_path: Path) -> None:
    page = site.page(site.alice)
    assert page.locator("#open-admin").is_hidden()  # not an admin
    page.context.close()
    page = site.page(site.admin)
    page.click("#open-admin")
    page.wait_for_selector("#doc-table tbody tr")
    good = write(tmp_path / "orchard.md", ORCHARD)
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 50)
    page.set_input_files("#file-input", [str(good), str(bad)])
    uploads = page.locator("#uploads .upload")
    page.wait_for_selector("#uploads .pill-ready", timeout=60_000)
    page.wait_for_selector("#uploads .pill-failed", timeout=60_000)
    assert uploads.count() == 2
    failed = uploads.filter(has=page.locator(".pill-failed"))
    assert failed.locator(".upload-detail").inner_text().strip()  # the error is shown
    row = page.locator("#doc-table tbody tr", has_text="Orchard Handbook")
    row.wait_for()
    dropped = page.evaluate_handle(
        """() => { const dt = new DataTransfer();
        dt.items.add(new File(['# Kiwi Notes\\n\\nThe kiwi festival is held in March.\\n'],
                              'kiwi.md', {type: 'text/markdown'}));
        return dt; }"""
    )
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": dropped})
    page.locator("#uploads .upload", has_text="kiwi.md").locator(".pill-ready").wait_for()
    page.locator("#doc-table tbody tr", has_text="Kiwi Notes").wait_for()
    screenshot(page, "09-admin-documents")
    page.click("#back-to-chat")
    page.click("#new-chat")
    ask(page, ORCHARD_Q)
    answer = last_answer(page)
    assert "second Monday of September" in answer.locator(".answer-text").inner_text()
    assert "Orchard Handbook" in answer.locator("details.sources > summary").inner_text()
    page.click("#open-admin")
    row = page.locator("#doc-table tbody tr", has_text="Orchard Handbook")
    row.locator(".switch input").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#doc-table tbody tr')].some(r => "
        "r.textContent.includes('Orchard Handbook') && !r.querySelector('.switch input').disabled"
        " && !r.querySelector('.switch input').checked)"
    )
    with site.api(site.admin) as api:
        docs = api.get("/api/documents").json()
    assert not next(d for d in docs if d["title"] == "Orchard Handbook")["enabled"]
    page.click("#back-to-chat")
    ask(page, ORCHARD_Q)
    page.wait_for_selector(".bubble-refusal", timeout=60_000)
    page.click("#open-admin")
    page.get_by_role("tab", name="Unanswered questions").click()
    page.locator("#refusal-table tbody tr", has_text=ORCHARD_Q).first.wait_for()
    first_row = page.locator("#refusal-table tbody tr").first.inner_text()
    assert ORCHARD_Q in first_row  # newest first
    screenshot(page, "10-admin-refusals")
    page.get_by_role("tab", name="Collection settings").click()
    page.wait_for_function("() => document.querySelector('[name=top_k]').value !== ''")
    page.fill("[name=top_k]", "4")
    page.click("#settings-form button[type=submit]")
    page.wait_for_selector("#settings-status:has-text('Saved')")
    with site.api(site.admin) as api:
        assert api.get("/api/collections/default/settings").json()["top_k"] == 4
        api.put("/api/collections/default/settings", json={"top_k": 5})
    screenshot(page, "11-admin-settings")
    page.context.close()


def test_llm_mode_flags_unsupported_claims(site: Site) -> None:
    unsupported = "Every plan includes unlimited free storage and a personal account manager [1]."
    site.llm.script = Script(words("Data is kept for 60 days after an account is closed [1]. "
                                   + unsupported + " See [42]."))  # fmt: skip
    with site.api(site.admin) as api:
        api.put("/api/collections/default/settings", json={"generation_mode": "llm"})
    try:
        page = site.page(site.alice)
        ask(page, "How long is data kept after an account is closed?")
        answer = last_answer(page)
        flagged = answer.locator(".unsupported")
        assert flagged.count() == 1 and "unlimited free storage" in flagged.inner_text()
        assert "1 unsupported claim" in answer.locator("summary .flag").inner_text()
        assert answer.locator(".badge").count() == 2
        with site.api(site.alice) as api:
            content = last_stored(api)["content"]
        assert "[42]" not in content  # the server drops a number that names no source
        assert "[42]" not in answer.locator(".answer-text").inner_text()
        assert set(answer.locator(".badge").all_inner_texts()) == {"1"}
        screenshot(page, "12-llm-unsupported")
        page.context.close()
    finally:
        with site.api(site.admin) as api:
            api.put("/api/collections/default/settings", json={"generation_mode": "extractive"})


def test_phone_viewport_and_sign_out(site: Site) -> None:
    page = site.page(site.alice, viewport={"width": 390, "height": 844})
    ask(page, QUESTION)
    answer = last_answer(page)
    screenshot(page, "13-phone-answer")
    answer.locator(".badge").first.click()
    page.wait_for_selector("#viewer mark.exact")
    screenshot(page, "14-phone-viewer")
    page.click("#viewer-close")
    page.wait_for_selector("#viewer", state="hidden")
    assert page.locator("#tooltip").is_hidden()  # the badge's card does not stay over the answer
    screenshot(page, "14b-phone-viewer-closed")
    page.click("#open-sidebar")
    page.wait_for_timeout(300)
    screenshot(page, "15-phone-sidebar")
    page.click("#sign-out")
    page.wait_for_selector("#token:visible")
    page.reload()
    page.wait_for_selector("#token:visible")  # the cookie is gone
    page.context.close()


def test_sign_out_revokes_the_session_cookie(site: Site) -> None:
    page = site.page(site.alice)
    other = site.page(site.alice)  # a second browser: a session of its own
    cookie = session_cookie(page)
    assert cookie["httpOnly"] and cookie["value"] != site.alice  # not the API token
    replay = {"Cookie": f"{SESSION_COOKIE}={cookie['value']}"}
    assert httpx.get(site.server.url + "/api/auth/me", headers=replay).status_code == 200
    page.click("#sign-out")
    page.wait_for_selector("#token:visible")
    assert httpx.get(site.server.url + "/api/auth/me", headers=replay).status_code == 401
    with site.api(site.alice) as api:
        assert api.get("/api/auth/me").json()["name"] == "alice"  # the API token still works
    ask(other, QUESTION)  # the other session goes on
    last_answer(other)
    elsewhere = {"Cookie": f"{SESSION_COOKIE}={session_cookie(other)['value']}"}
    httpx.delete(site.server.url + "/api/auth/session", headers=elsewhere)  # signed out there
    ask(other, QUESTION)
    other.wait_for_selector("#token:visible")
    assert "session has ended" in other.locator("#signin-error").inner_text()
    screenshot(other, "22-session-ended")
    page.context.close()
    other.context.close()


def session_cookie(page: Any) -> dict[str, Any]:
    cookie: dict[str, Any] = next(c for c in page.context.cookies() if c["name"] == SESSION_COOKIE)
    return cookie


def test_refusal_reopened_from_history_is_shown_as_first(site: Site) -> None:
    page = site.page(site.alice)
    page.click("#new-chat")
    ask(page, OFF_TOPIC)
    refusal = page.locator(".bubble-refusal")
    refusal.wait_for(timeout=60_000)
    page.wait_for_selector(".session.active")
    session_id = page.locator(".session.active").get_attribute("data-id")
    buttons = refusal.locator(".suggestion").all_inner_texts()
    assert buttons == ["Ask an admin to add this", "Rephrase your question"]
    details = refusal.locator("details.refusal-evidence")
    assert details.locator("summary").inner_text() == "How it was checked"
    assert "Reader score" not in refusal.locator(".refusal-text").inner_text()  # plain words
    details.locator("summary").click()
    assert "Closest passage: similarity" in details.inner_text()
    assert "nothing was close enough to read" in details.inner_text()
    first = refusal.inner_text()
    page.reload()
    page.wait_for_selector("#question:visible")
    page.locator(f'.session[data-id="{session_id}"] .session-open').click()
    restored = page.locator(".bubble-refusal")
    restored.wait_for()
    assert restored.locator(".suggestion").all_inner_texts() == buttons
    restored.locator("details.refusal-evidence summary").click()
    assert restored.inner_text() == first  # message, scores and suggestions alike
    restored.get_by_role("button", name="Rephrase your question").click()
    assert page.evaluate("document.activeElement.id") == "question"
    screenshot(page, "16-refusal-from-history")
    page.context.close()


def test_admin_filters_reprocesses_and_deletes_documents(site: Site) -> None:
    with site.api(site.admin) as api:
        files = {"file": ("lemons.md", b"# Lemon Notes\n\nLemons ripen in winter.\n")}
        doc = api.post("/api/documents", files=files, data={"collection": "citrus"}).json()
        assert doc["status"] == "ready"
    try:
        page = site.page(site.admin)
        page.click("#open-admin")
        page.wait_for_selector("#doc-table tbody tr[data-id]")
        page.select_option("#doc-filter", "citrus")
        page.wait_for_function(
            "() => { const rows = [...document.querySelectorAll('#doc-table tbody tr')];"
            " return rows.length > 0 && rows.every(r => r.children[1]?.textContent === 'citrus'); }"
        )
        rows = page.locator("#doc-table tbody tr")
        assert rows.count() == 1 and "Lemon Notes" in rows.first.inner_text()
        page.select_option("#doc-filter", "wiki")
        page.locator("#doc-table tbody tr", has_text="First Page").wait_for()  # its first heading
        shown = page.locator("#doc-table tbody tr td:nth-child(2)").all_inner_texts()
        assert set(shown) == {"wiki"}
        page.select_option("#doc-filter", "citrus")
        row = page.locator(f'#doc-table tbody tr[data-id="{doc["id"]}"]')
        row.wait_for()
        row.get_by_role("button", name="Reprocess").click()
        row.locator(".pill-ready").wait_for(timeout=30_000)
        with site.api(site.admin) as api:
            again = api.get(f"/api/documents/{doc['id']}").json()
        assert again["status"] == "ready" and again["updated_at"] > doc["updated_at"]
        screenshot(page, "17-admin-filtered")
        delete = row.get_by_role("button", name="Delete")
        delete.click()
        row.get_by_role("button", name="Confirm delete").click()
        page.wait_for_selector(f'#doc-table tbody tr[data-id="{doc["id"]}"]', state="detached")
        page.wait_for_selector("#doc-table tbody td:has-text('No documents yet')")
        with site.api(site.admin) as api:
            assert api.get(f"/api/documents/{doc['id']}").status_code == 404
        assert not page.errors
        page.context.close()
    finally:  # the next tests see only the default collections, whatever failed here
        with site.api(site.admin) as api:
            api.delete(f"/api/documents/{doc['id']}")


def test_viewer_download_link_follows_the_link_mode(site: Site) -> None:
    try:
        page = site.page(site.alice)
        page.click("#new-chat")
        ask(page, QUESTION)
        last_answer(page).locator(".badge").first.click()
        page.wait_for_selector("#viewer mark.exact")
        link = page.get_by_role("link", name="Download original")
        href = link.get_attribute("href")
        assert href and "/api/documents/" in href  # the default mode: authenticated
        original = page.request.get(href)  # the browser's own session cookie
        assert original.status == 200
        assert original.body() == (SAMPLES / "handbook.md").read_bytes()
        screenshot(page, "18-viewer-download")
        with site.api(site.admin) as api:
            api.put("/api/collections/default/settings", json={"citation_link_mode": "none"})
        page.click("#new-chat")
        ask(page, QUESTION)
        last_answer(page).locator(".badge").first.click()
        page.wait_for_selector("#viewer mark.exact")
        assert page.locator("#viewer-actions a").count() == 0
        page.context.close()
    finally:
        with site.api(site.admin) as api:
            api.put(
                "/api/collections/default/settings", json={"citation_link_mode": "authenticated"}
            )


def test_keyboard_only(site: Site) -> None:
    page = site.page(site.alice)
    page.click("#new-chat")
    page.evaluate("document.activeElement.blur()")
    focus_by_tab(page, "el.id === 'question'")
    page.keyboard.type(QUESTION)
    page.keyboard.press("Enter")
    last_answer(page)
    focus_by_tab(page, "el.classList.contains('badge')")
    page.locator("#tooltip").wait_for(state="visible")  # focus shows the card too
    badge = page.evaluate("document.activeElement.dataset.index")
    page.keyboard.press("Enter")
    page.wait_for_selector("#viewer mark.exact")
    assert page.evaluate("document.activeElement.id") == "viewer-text"
    screenshot(page, "19-keyboard-viewer")
    page.keyboard.press("Escape")
    page.wait_for_selector("#viewer", state="hidden")
    assert page.evaluate("document.activeElement.dataset.index") == badge  # focus goes back
    assert page.locator("#tooltip").is_hidden()  # ...and the card closed with the viewer
    page.context.close()


def focus_by_tab(page: Any, test: str, limit: int = 60) -> None:
    """Press Tab until the focused element passes ``test`` (JS over ``el``)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(
            f"() => {{ const el = document.activeElement; return !!el && ({test}); }}"
        ):
            return
    raise AssertionError(f"Tab never reached an element where {test}")


def test_pdf_citation_shows_its_page(site: Site) -> None:
    page = site.chat_in("wiki")
    ask(page, BACKLINK_Q)
    answer = last_answer(page)
    assert "backlink feature" in answer.locator(".answer-text").inner_text()
    badge = answer.locator(".badge").first
    index = int(badge.inner_text())
    with site.api(site.alice) as api:
        stored = last_stored(api)
    cited = next(c for c in stored["citations"] if c["index"] == index)
    assert cited["page"] == 4  # the backlink passage is on the PDF's last page
    badge.hover()
    assert "Page 4" in page.locator("#tooltip").inner_text()
    badge.click()  # a PDF opens at its real page, the quote highlighted on it
    page.wait_for_selector("#viewer .pdf-mark-quote")
    assert page.locator("#viewer-meta").inner_text().startswith("Page 4")
    assert page.locator("#viewer .page-label").inner_text() == "Page 4 of 4"
    screenshot(page, "20-pdf-page")
    page.click("#viewer .view-switch[data-view=text]")  # the extracted text, one click away
    page.wait_for_selector("#viewer mark.exact")
    marks = page.locator("#viewer mark.exact").all_inner_texts()
    assert any("backlink feature" in m for m in marks)
    page.context.close()


def test_a_slide_citation_opens_as_text_without_a_page_view(site: Site) -> None:
    page = site.page(site.alice)
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    page.click("#new-chat")
    page.select_option("#collection", "slides")
    ask(page, DISJUNCTIVE_Q)
    answer = last_answer(page)
    assert "disjunctive licensing" in answer.locator(".answer-text").inner_text().lower()
    badge = answer.locator(".badge").first
    badge.hover()
    assert "Page " in page.locator("#tooltip").inner_text()  # the slide's number
    badge.click()  # a deck has no pages to render: its text, the quote marked, at once
    page.wait_for_selector("#viewer mark.exact")
    assert page.locator("#viewer .view-switch").count() == 0
    assert page.locator("#viewer .pdf-image").count() == 0
    assert page.locator("#viewer .form-error").count() == 0
    marks = page.locator("#viewer mark.exact").all_inner_texts()
    assert any("disjunctive licensing" in m.lower() for m in marks)
    assert not missing and not page.errors
    page.context.close()


def test_a_refusal_for_a_name_the_passages_lack_says_so_in_its_details(site: Site) -> None:
    page = site.chat_in("reports")
    ask(page, "What were Contoso's freight costs in 2023?")
    refusal = page.locator(".bubble-refusal")
    refusal.wait_for(timeout=60_000)
    assert "“Contoso”" in refusal.locator(".refusal-text").inner_text()
    details = refusal.locator("details.refusal-evidence")
    details.locator("summary").click()
    said = details.inner_text()
    assert "the closest passages were read" in said
    assert "does not mention Contoso, so it was not given" in said  # why, beside the scores
    page.context.close()


# each cell of a table, by its text: the lines it is set on
CELL_LINES = (
    "t => Object.fromEntries([...t.querySelectorAll('td, th')].map(c => {"
    " const r = document.createRange(); r.selectNodeContents(c);"
    " const tops = [...r.getClientRects()].map(x => Math.round(x.top));"
    " return [c.innerText, new Set(tops).size]; }))"
)


def table_answer(site: Site, question: str) -> tuple[Any, Any, Any]:
    """The page, the answer and its table, asked of the "wide" collection with the
    viewer open beside the answer (which narrows the answer's column)."""
    page = site.chat_in("wide")
    ask(page, question)
    answer = last_answer(page)
    answer.locator(".badge").first.click()
    page.wait_for_selector("#viewer mark.exact")
    return page, answer, answer.locator("table.answer-table")


def test_a_wide_table_answer_scrolls_rather_than_breaking_its_numbers(site: Site) -> None:
    page, _, table = table_answer(site, "What was the revenue in 2021?")
    assert "$ 3,208,323" in table.locator("tbody td").all_inner_texts()
    lines = table.evaluate(CELL_LINES)
    assert max(lines.values()) == 1, lines  # no figure or label broken over two lines
    screenshot(page, "21-table-answer-wide")
    page.context.close()


def test_a_table_answer_wraps_its_words_and_keeps_its_figures_on_one_line(site: Site) -> None:
    page, answer, table = table_answer(site, "How is missing source code avoided?")
    assert table.locator("tbody td").first.inner_text() == "Missing source code"
    lines = table.evaluate(CELL_LINES)
    described = next(text for text in lines if text.startswith("Add a verification step"))
    assert lines[described] > 1, lines  # the description wraps in its cell
    styles = table.evaluate(
        "t => Object.fromEntries([...t.querySelectorAll('td, th')].map(c => [c.innerText,"
        " [getComputedStyle(c).textAlign, getComputedStyle(c).whiteSpace]]))"
    )
    # a column of figures (a dash where there is none) is set right, on one line
    assert styles["$ 14,000"] == ["right", "nowrap"] and lines["$ 14,000"] == 1, styles
    assert styles["Cost"] == ["right", "nowrap"], styles  # its heading over it
    assert styles["Missing source code"][0] == "left" and styles[described][1] != "nowrap"
    wrap = answer.locator(".answer-table-wrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth")  # no sideways scrolling
    screenshot(page, "21-table-answer-words")
    page.click("#viewer-close")
    page.set_viewport_size({"width": 375, "height": 812})  # a phone: the row still fits
    fits = wrap.evaluate("w => [w.clientWidth, w.scrollWidth]")
    assert fits[0] > 200 and fits[1] <= fits[0], fits
    page.context.close()


def test_a_table_answer_and_a_list_answer_read_as_the_document_wrote_them(site: Site) -> None:
    page = site.chat_in("reports")
    ask(page, "What were the South region's sales in 2022?")
    answer = last_answer(page)
    table = answer.locator(".answer-text table.answer-table")
    assert table.count() == 1  # the row under its header, as a table
    assert table.locator("thead th").all_inner_texts() == ["Region", "2021", "2022", "2023"]
    assert table.locator("tbody td").all_inner_texts() == ["South", "980", "1010", "1125"]
    assert table.locator("mark.answer-span").inner_text() == "1010"  # the cell asked for
    assert "|" not in answer.locator(".answer-text").inner_text()
    with site.api(site.alice) as api:
        stored = last_stored(api)
    assert "| South | 980 | 1010 | 1125 |" in stored["content"]  # Markdown for every client
    screenshot(page, "21-table-answer")
    answer.locator(".badge").first.click()
    page.wait_for_selector("#viewer mark.exact")
    marks = "".join(page.locator("#viewer mark.exact").all_inner_texts())
    assert "South | 980 | 1010 | 1125" in marks and "Region | 2021 | 2022 | 2023" in marks
    page.click("#viewer-close")
    ask(page, "What were the freight costs in 2023?")
    page.wait_for_function("document.querySelectorAll('.msg-answer').length === 2")
    costs = last_answer(page)
    assert costs.locator("tbody td").all_inner_texts() == ["Freight", "412", "455"]
    shown = costs.locator(".answer-text").inner_text()
    assert "(in thousands)" in shown.split("455")[-1]  # the unit, under the table
    screenshot(page, "21-table-answer-unit")
    costs.locator(".badge").first.click()
    page.wait_for_selector("#viewer mark.exact")
    assert "(in thousands)" in "".join(page.locator("#viewer mark.exact").all_inner_texts())
    page.click("#viewer-close")
    ask(page, "What steps do new employees complete in their first week?")
    page.wait_for_function("document.querySelectorAll('.msg-answer').length === 3")
    listed = last_answer(page).locator(".answer-text").inner_text()
    steps = ["three steps in their first week:", "Collect a laptop", "Sign the security policy",
             "Meet their assigned mentor"]  # fmt: skip
    at = [listed.find(step) for step in steps]
    assert -1 not in at and at == sorted(at), listed  # the lead-in with its whole list
    assert "second week" not in listed
    screenshot(page, "22-list-answer")
    session_id = page.locator(".session.active").get_attribute("data-id")
    page.reload()  # both read the same from history
    page.wait_for_selector("#question:visible")
    page.locator(f'.session[data-id="{session_id}"] .session-open').click()
    page.wait_for_function("document.querySelectorAll('.msg-answer .copy').length === 3")
    restored = page.locator(".msg-answer").first.locator("table.answer-table")
    assert restored.locator("tbody td").all_inner_texts() == ["South", "980", "1010", "1125"]
    assert page.locator(".msg-answer").last.locator(".answer-text").inner_text() == listed
    assert not page.errors
    page.context.close()


def test_phone_sized_viewport_is_readable(site: Site) -> None:
    page = site.page(site.alice, viewport={"width": 375, "height": 812})
    no_sideways = (
        "() => document.documentElement.scrollWidth <= window.innerWidth && "
        "[...document.querySelectorAll('#messages, .bubble, .composer')]"
        ".every(n => n.scrollWidth <= n.clientWidth + 1)"
    )
    assert page.evaluate(no_sideways)
    ask(page, BACKUPS)
    answer = last_answer(page)
    answer.locator("details.sources > summary").click()
    assert page.evaluate(no_sideways)
    box = page.locator("#question").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 812 and box["width"] > 200
    assert page.locator("#send").is_visible()
    screenshot(page, "21-phone-375")
    page.context.close()


def test_marker_that_names_no_source_stays_plain_text(site: Site) -> None:
    """A quoted PDF passage keeps its own footnote "[8]"; no source 8 exists, so no badge."""
    page = site.chat_in("wiki")
    ask(page, WARD_Q)
    answer = last_answer(page)
    with site.api(site.alice) as api:
        stored = last_stored(api)
    indices = {c["index"] for c in stored["citations"]}
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", stored["content"])]
    assert 8 in numbers and 8 not in indices
    text = answer.locator(".answer-text").inner_text()
    assert "as follows:[8]" in text
    assert "[" not in "".join(answer.locator(".badge").all_inner_texts())
    own = answer.locator(".answer-text .plain-ref", has_text="[8]")  # set apart from badges
    assert own.count() >= 1
    assert own.first.get_attribute("title") == "Not one of this answer's sources"
    assert own.first.evaluate("e => getComputedStyle(e).verticalAlign") == "super"
    screenshot(page, "37-documents-own-reference-muted")
    page.context.close()


def test_a_quoted_documents_own_footnote_is_not_a_badge(site: Site) -> None:
    """The PDF's "editor.[2]": the quote stops at "editor.", so no [2] reads as source 2."""
    page = site.chat_in("wiki")
    ask(page, ENGINES_Q)
    answer = last_answer(page)
    with site.api(site.alice) as api:
        stored = last_stored(api)
    assert "editor. [1]" in stored["content"] and "editor.[2]" not in stored["content"]
    assert 2 in {c["index"] for c in stored["citations"]}  # a source 2 exists...
    text = answer.locator(".answer-text").inner_text()
    assert "editor.[2]" not in text and "[2]" not in text  # ...and nothing points at it
    assert set(answer.locator(".badge").all_inner_texts()) == {"1"}
    page.context.close()


def test_highlights_are_exact_past_emoji(site: Site) -> None:
    """Offsets count code points; emoji take two UTF-16 units in the browser."""
    page = site.chat_in("party")
    ask(page, PARTY_Q)
    answer = last_answer(page)
    answer.locator(".badge").first.click()
    page.wait_for_selector("#viewer mark.exact")
    with site.api(site.alice) as api:
        stored = last_stored(api)
        cited = stored["citations"][0]
        text = api.get(f"/api/documents/{cited['document_id']}/text").json()["text"]
    quoted = [text[s["doc_start"] : s["doc_end"]] for s in stored["spans"] if s["index"] == 1]
    assert any("forty helium balloons" in q for q in quoted)
    assert "".join(page.locator("#viewer mark.exact").all_inner_texts()) == "".join(quoted)
    lead = stored["spans"][0]  # the exact answer inside the quote, past the emoji too
    exact = text[lead["exact_doc_start"] : lead["exact_doc_end"]]
    assert page.locator("#viewer mark.answer-span").inner_text() == exact
    passage = text[cited["char_start"] : cited["char_end"]]
    assert page.locator("#viewer .passage").inner_text() == passage
    page.context.close()


def test_llm_answer_shows_badges_while_it_streams(site: Site) -> None:
    """The model's markers are badges as they arrive, not at the answer's end: its "[" then
    "1]" never show as text. An extractive fallback's markers wait for their sources."""
    site.llm.script = Script(words(STREAMED), delay_s=0.15)
    assert "[" in site.llm.script.tokens  # the model sends a marker in two pieces
    with site.api(site.admin) as api:
        api.put("/api/collections/default/settings", json={"generation_mode": "llm"})
    try:
        page = site.page(site.alice)
        page.evaluate(
            """() => { window.__states = [];
            new MutationObserver(() => {
              const bubble = [...document.querySelectorAll('.bubble-answer')].pop();
              if (!bubble || !bubble.hasAttribute('aria-busy')) return;
              const body = bubble.querySelector('.answer-text');
              window.__states.push({text: body.textContent,
                                    badges: body.querySelectorAll('.badge').length,
                                    pending: body.querySelectorAll('.badge.pending').length});
            }).observe(document.querySelector('#messages'),
                       {subtree: true, childList: true, characterData: true}); }"""
        )
        ask(page, QUESTION)
        during = page.wait_for_function(
            """() => { const bubble = [...document.querySelectorAll('.bubble-answer')].pop();
            const badge = bubble && bubble.querySelector('.answer-text .badge');
            return badge && {busy: bubble.getAttribute('aria-busy'), badge: badge.textContent,
                             label: badge.getAttribute('aria-label'),
                             text: bubble.querySelector('.answer-text').textContent,
                             notes: bubble.querySelector('.answer-notes').textContent}; }""",
            timeout=60_000,
        ).json_value()
        assert during["busy"] == "true", during  # the answer is still streaming
        assert during["badge"] == "1" and during["label"] == "Source 1"
        assert "within 30 days of purchase" in during["text"] and "pro rata" not in during["text"]
        assert "[1]" not in during["text"] and "[" not in during["text"]
        screenshot(page, "23-llm-badge-while-streaming")
        answer = last_answer(page)
        states = page.evaluate("window.__states")
        assert len(states) > 10 and not [s["text"] for s in states if "[" in s["text"]]
        assert any(s["pending"] == 1 for s in states)
        badges = answer.locator(".badge")  # now the answer's own, with their sources
        assert badges.count() == 2 and answer.locator(".badge.pending").count() == 0
        assert "Northwind Cloud Customer Handbook" in (
            badges.first.get_attribute("aria-label") or ""
        )
        badges.first.hover()
        assert "Northwind Cloud Customer Handbook" in page.locator("#tooltip").inner_text()
        # the browser's own rendering of every prefix of the text, a marker cut anywhere
        shown = page.evaluate(
            """async (text) => {
            const { streamed, renderAnswer } = await import('/ui/citations.js');
            const out = [];
            for (let i = 1; i <= text.length; i++) {
              const now = streamed(text.slice(0, i), true);
              const box = document.createElement('div');
              box.append(...renderAnswer(now.text, now.citations, [], {}));
              out.push([box.textContent, box.querySelectorAll('.badge').length]);
            }
            return out; }""",
            STREAMED,
        )
        assert not [t for t, _ in shown if "[" in t]
        assert [n for _, n in shown][-1] == 2 and shown[-1][0].endswith("processing fee 1.")

        site.llm.script = Script(status=503)  # the model is down: an extractive answer
        page.click("#new-chat")
        page.evaluate("window.__states = []")
        ask(page, QUESTION)
        answer = last_answer(page)
        assert answer.locator(".notice-info").count() == 1
        states = page.evaluate("window.__states")
        assert states and not [s for s in states if s["pending"]]  # markers wait for sources
        assert answer.locator(".badge").count() >= 1
        assert not page.errors
        page.context.close()
    finally:
        site.llm.script = Script(words("Annual plans are refunded in full [1]."))
        with site.api(site.admin) as api:
            api.put("/api/collections/default/settings", json={"generation_mode": "extractive"})


def test_admin_tabs_follow_the_arrow_keys(site: Site) -> None:
    """The admin tabs are a WAI-ARIA tablist: Left/Right (wrapping), Home and End move to
    a tab and show its panel; only the selected tab is a Tab stop, so Tab goes on into
    the panel."""
    page = site.page(site.admin)
    page.click("#open-admin")
    page.wait_for_selector("#admin-view:visible")
    page.focus("#tabbtn-docs")

    def at() -> tuple[str, str, list[str]]:
        focused = page.evaluate("document.activeElement.id")
        selected = page.locator(".tab[aria-selected=true]").get_attribute("id") or ""
        shown = [p.get_attribute("id") or "" for p in page.locator(".tab-panel:visible").all()]
        return focused, selected, shown

    moves = [("ArrowRight", "settings"), ("ArrowRight", "refusals"), ("ArrowRight", "feedback"),
             ("ArrowRight", "docs"), ("ArrowLeft", "feedback"), ("Home", "docs"),
             ("End", "feedback")]  # fmt: skip
    for key, name in moves:
        page.keyboard.press(key)
        assert at() == (f"tabbtn-{name}", f"tabbtn-{name}", [f"tab-{name}"]), key
    stops = page.evaluate("[...document.querySelectorAll('.tab')].map(t => t.tabIndex)")
    assert stops == [-1, -1, -1, 0]
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "tab-feedback"  # into the panel
    assert not page.errors
    page.context.close()


def test_feedback_from_an_answer_and_a_source_reaches_the_admins_queue(site: Site) -> None:
    """A user marks an answer "Not helpful" with a note and the right answer, and flags a
    source as the wrong page; the admin sees both in the Feedback tab with the question,
    the answer and the flagged passage (opened in the viewer), and resolves one."""
    question = "What does the backlink feature of a wiki display?"
    page = site.page(site.alice)
    page.select_option("#collection", "wiki")
    ask(page, question)
    answer = last_answer(page)
    answer.get_by_role("button", name="Not helpful").click()
    answer.locator(".feedback-form textarea").fill("It should list the linking pages.")
    answer.locator(".feedback-answer").fill("pages that link to the current page")
    answer.locator(".feedback-form").get_by_role("button", name="Send").click()
    expect_text(
        answer.locator(".feedback > .feedback-row .feedback-status"), "your admins will see this"
    )
    assert answer.get_by_role("button", name="Not helpful").get_attribute("aria-pressed") == "true"
    answer.locator("summary").first.click()  # the sources
    source = answer.locator("li.source").first
    source.get_by_role("button", name="Flag").click()
    source.get_by_label("Wrong page or section").check()
    source.locator(".feedback-form").get_by_role("button", name="Send").click()
    expect_text(source.locator(".feedback-status"), "your admins will see this")
    screenshot(page, "37-feedback-given")
    assert not page.errors
    page.context.close()

    admin = site.page(site.admin)
    admin.click("#open-admin")
    admin.click("#tabbtn-feedback")
    items = admin.locator(".feedback-item")
    items.first.wait_for()
    mine = admin.locator(".feedback-item", has_text=question)
    assert mine.count() == 2
    flagged = mine.filter(has_text="Wrong page")
    assert "source [1]" in flagged.locator(".feedback-kind").inner_text()
    unhelpful = mine.filter(has_text="Not helpful")
    assert "It should list the linking pages." in unhelpful.inner_text()
    assert (
        "pages that link to the current page"
        in unhelpful.locator(".feedback-correction").inner_text()
    )
    assert "alice" in unhelpful.locator(".feedback-head").inner_text()
    screenshot(admin, "38-feedback-queue")
    flagged.locator(".feedback-open").click()
    admin.wait_for_selector("#viewer:visible")
    admin.wait_for_selector("#viewer mark.exact, #viewer .pdf-mark", timeout=20_000)
    admin.click("#viewer-close")
    flagged.locator(".feedback-resolution").fill("Re-ingested with page labels")
    flagged.get_by_role("button", name="Resolve").click()
    admin.wait_for_function(
        "q => [...document.querySelectorAll('.feedback-item')]"
        ".filter(i => i.textContent.includes(q)).length === 1",
        arg=question,
    )  # the open queue keeps the other one
    admin.select_option("#feedback-status", "resolved")
    resolved = admin.locator(".feedback-item", has_text="Re-ingested with page labels")
    resolved.wait_for()
    assert "Resolved by admin" in resolved.inner_text()
    assert not admin.errors
    admin.context.close()


def expect_text(locator: Any, text: str, timeout: float = 10_000) -> None:
    locator.wait_for(timeout=timeout)
    deadline = time.monotonic() + timeout / 1000
    while text not in locator.inner_text():
        assert time.monotonic() < deadline, locator.inner_text()
        time.sleep(0.05)


def test_phone_admin_does_not_scroll_sideways(site: Site) -> None:
    page = site.page(site.admin, viewport=PHONE)
    page.click("#open-sidebar")
    page.click("#open-admin")
    page.wait_for_selector("#doc-table tbody tr")
    tabs_shown = [("docs", "documents"), ("settings", "settings"), ("refusals", "unanswered"),
                  ("feedback", "feedback")]  # fmt: skip
    for tab, name in tabs_shown:
        page.click(f".tab[data-tab={tab}]")
        page.wait_for_load_state("networkidle")
        assert page.evaluate(NO_SIDEWAYS), tab
        tabs = page.locator(".admin-tabs")
        assert page.evaluate("(n) => n.scrollWidth <= n.clientWidth", tabs.element_handle())
        screenshot(page, f"24-phone-admin-{name}")
    assert not page.errors
    page.context.close()


def test_composer_placeholder_fits(site: Site) -> None:
    fits = (
        "() => { const q = document.querySelector('#question'); return q.value === '' &&"
        " q.matches(':placeholder-shown') && q.scrollWidth <= q.clientWidth &&"
        " q.scrollHeight <= q.clientHeight; }"
    )
    for viewport in [{"width": 320, "height": 640}, PHONE, {"width": 1360, "height": 860}]:
        page = site.page(site.alice, viewport=viewport)
        assert page.evaluate(fits), viewport
        screenshot(page, f"25-composer-{viewport['width']}")
        page.context.close()


def test_skip_link_and_history_focus_rings(site: Site) -> None:
    """The skip link is the first Tab stop and moves past the sidebar to the conversation;
    the history's links and "✕" show their whole focus ring, on a desktop and a phone."""
    page = site.page(site.alice)
    page.click("#new-chat")
    ask(page, QUESTION)  # a conversation in the sidebar
    last_answer(page)
    page.wait_for_load_state("networkidle")
    page.context.close()
    for viewport, name in [({"width": 1360, "height": 860}, "desktop"), (PHONE, "phone")]:
        page = site.page(site.alice, viewport=viewport)
        page.wait_for_selector(".session .session-open", state="attached")
        tab_from_the_top(page)
        skip = page.locator("#skip-link")
        assert page.evaluate("document.activeElement.id") == "skip-link"
        assert skip.inner_text() == "Skip to main content"
        box = skip.bounding_box()
        assert box and box["x"] >= 0 and box["y"] >= 0 and skip.is_visible()
        screenshot(page, f"26-{name}-skip-link")
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "messages"
        page.keyboard.press("Tab")  # on into the conversation, not back through the sidebar
        assert page.evaluate("!!document.activeElement.closest('#chat-view')")
        if name == "phone":
            page.click("#open-sidebar")
            page.wait_for_timeout(300)
        page.focus("#new-chat")
        for target in ["session-open", "session-delete"]:
            focus_by_tab(page, f"el.classList.contains('{target}')")
            assert focus_ring_clipped(page) is None, target
        assert page.evaluate("document.activeElement.textContent") == "✕"
        screenshot(page, f"27-{name}-history-focus")
        assert not page.errors
        page.context.close()


def test_upload_shows_the_servers_stages_and_the_table_searches_and_sorts(site: Site) -> None:
    """An upload's bar and pill follow the server's work (reading, embedding N of M
    passages, saving) and its row shows the same; the table lists the newest first, shows
    file names rather than server paths, and searches and sorts."""
    page = site.page(site.admin)
    page.click("#open-admin")
    page.wait_for_selector("#doc-table tbody tr[data-id]")
    page.fill("#upload-collection", "papers")
    paper = shared("pdfs", "haystack__react_paper.pdf")
    page.set_input_files("#file-input", str(paper))
    upload = page.locator("#uploads .upload", has_text=paper.name)
    embedding = re.compile(r"^Embedding (\d+) of (\d+) passages…$")
    detail = upload.locator(".upload-detail")
    page.wait_for_function(
        "(n) => /^Embedding \\d+ of \\d+ passages…$/.test(n.textContent)",
        arg=detail.element_handle(), timeout=60_000,
    )  # fmt: skip
    shown = embedding.match(detail.inner_text())
    assert shown and 0 <= int(shown[1]) < int(shown[2])
    assert upload.locator(".pill").inner_text().lower() == "embedding"
    value = upload.locator("progress").get_attribute("value")
    assert value is not None and 0 <= float(value) < 100
    screenshot(page, "38-upload-embedding-stage")
    upload.locator(".pill-ready").wait_for(timeout=120_000)
    assert upload.locator(".upload-detail").inner_text().endswith(f"{shown[2]} passages")
    with site.api(site.admin) as api:
        docs = api.get("/api/documents").json()
    react = next(d for d in docs if d["collection"] == "papers")
    row = page.locator(f'#doc-table tbody tr[data-id="{react["id"]}"]')
    row.locator(".pill-ready").wait_for()
    assert row.locator(".stage").count() == 0  # the stage line goes with the processing
    first = page.locator("#doc-table tbody tr").first
    assert first.get_attribute("data-id") == react["id"]  # newest first
    assert page.locator("#doc-table th[data-sort=created_at]").get_attribute("aria-sort") == (
        "descending"
    )
    lines = page.locator("#doc-table tbody tr td:first-child .muted").all_inner_texts()
    assert lines and not any(str(site.server.home) in line or "/" in line for line in lines)
    assert f"pdf · {paper.name}" in row.inner_text()
    page.fill("#doc-search", "react paper")
    page.wait_for_function("() => document.querySelectorAll('#doc-table tbody tr').length === 1")
    assert page.locator("#doc-count").inner_text() == f"1 of {len(docs)} documents"
    screenshot(page, "39-documents-search")
    page.fill("#doc-search", "no such words")
    page.locator("#doc-table tbody td", has_text="No document matches the search.").wait_for()
    page.fill("#doc-search", "")
    page.locator("#doc-table th[data-sort=title] button").click()
    titles = page.locator("#doc-table tbody .doc-title").all_inner_texts()
    assert titles == sorted(titles, key=str.lower) and len(titles) == len(docs)
    assert page.locator("#doc-table th[data-sort=title]").get_attribute("aria-sort") == "ascending"
    page.locator("#doc-table th[data-sort=title] button").click()
    assert page.locator("#doc-table tbody .doc-title").all_inner_texts() == titles[::-1]
    page.locator("#doc-table th[data-sort=chunk_count] button").click()
    counts = [int(t) for t in page.locator("#doc-table tbody td:nth-child(4)").all_inner_texts()]
    assert counts == sorted(counts, reverse=True)
    screenshot(page, "40-documents-sorted-by-chunks")
    assert not page.errors
    page.context.close()
    with site.api(site.admin) as api:
        assert api.delete(f"/api/documents/{react['id']}").status_code == 204


def test_settings_explain_themselves_and_the_llm_connection_is_set_and_tested(site: Site) -> None:
    """Every collection setting has help text in plain words; the LLM connection's base
    URL, model and key are set from the page, and "Test connection" shows what the
    server sent back: the model's words, or its status and error message."""
    page = site.page(site.admin)
    page.click("#open-admin")
    page.get_by_role("tab", name="Collection settings").click()
    page.wait_for_function("() => document.querySelector('[name=top_k]').value !== ''")
    fields = page.locator("#settings-form [name]")
    assert fields.count() == 7
    for i in range(fields.count()):
        help_id = fields.nth(i).get_attribute("aria-describedby")
        assert help_id and len(page.locator(f"#{help_id}").inner_text()) > 40, help_id
    labels = page.locator("#settings-form").inner_text()
    assert "RAG" not in labels and "Top k" not in labels and "Answer from the documents" in labels
    form = page.locator("#llm-form")
    base = form.locator("[name=base_url]")
    page.wait_for_function(
        "(url) => document.querySelector('#llm-form [name=base_url]').value === url",
        arg=site.llm.url,
    )
    assert "server's FOOTNOTED_LLM_* settings" in form.inner_text()
    assert page.locator("#llm-reset").is_hidden()
    result = page.locator("#llm-result")
    try:
        page.click("#llm-test")
        result.locator("text=It wrote:").wait_for()
        assert result.get_attribute("class") == "llm-result ok"
        assert result.inner_text().startswith(f"✓ llama3.1 at {site.llm.url} answered. (")
        site.llm.api_key = "sk-web-7d1e"
        page.click("#llm-test")
        result.locator("text=The server said:").wait_for()
        assert "✕ The LLM server answered HTTP 401." in result.inner_text()
        assert "“Incorrect API key provided.”" in result.inner_text()
        screenshot(page, "41-llm-test-refused")
        form.locator("[name=api_key]").fill("sk-web-7d1e")
        form.locator("[name=model]").fill("qwen2.5")
        page.click("#llm-test")
        result.locator("text=It wrote:").wait_for()
        assert "qwen2.5" in result.inner_text() and site.llm.requests[-1]["model"] == "qwen2.5"
        with site.api(site.admin) as api:
            assert api.get("/api/admin/llm").json()["saved"] is False  # tested, not saved
        page.click("#llm-form button[type=submit]")
        page.locator("#llm-status", has_text="Saved").wait_for()
        assert form.locator("[name=api_key]").get_attribute("placeholder") == (
            "A key is set: type to replace it"
        )
        assert form.locator("[name=api_key]").input_value() == ""  # never shown again
        assert page.locator("#llm-reset").is_visible()
        with site.api(site.admin) as api:
            saved = api.get("/api/admin/llm").json()
        assert saved == {"base_url": site.llm.url, "model": "qwen2.5", "api_key_set": True,
                         "saved": True}  # fmt: skip
        site.llm.script = Script(words("<img src=x onerror=alert(1)> OK"))
        page.click("#llm-test")  # the saved key is kept: the field is empty
        result.locator("text=It wrote:").wait_for()
        assert "<img src=x onerror=alert(1)>" in result.inner_text()
        assert result.locator("img").count() == 0
        screenshot(page, "42-llm-connection-saved-and-tested")
        base.fill("ftp://nowhere")
        page.click("#llm-form button[type=submit]")
        page.locator("#llm-status", has_text="http:// or https://").wait_for()
        page.click("#llm-reset")
        page.locator("#llm-status", has_text="defaults apply again").wait_for()
        assert base.input_value() == site.llm.url
        with site.api(site.admin) as api:
            assert api.get("/api/admin/llm").json()["saved"] is False
        assert not page.errors
    finally:
        site.llm.api_key = None
        site.llm.script = Script(words("Annual plans are refunded in full [1]."))
        with site.api(site.admin) as api:
            api.delete("/api/admin/llm")
    page.context.close()


def test_a_refusal_points_to_the_knowledge_base_that_answers_and_asks_there(
    site: Site,
) -> None:
    page = site.page(site.alice)
    page.click("#new-chat")
    page.wait_for_function("() => document.querySelector('#collection').value === 'default'")
    ask(page, PARTY_Q)  # the default knowledge base has no party hall; "party" has
    refusal = page.locator(".bubble-refusal").last
    refusal.wait_for(timeout=60_000)
    hint = refusal.locator(".refusal-elsewhere")
    assert hint.locator("p").inner_text() == (
        "Passages that answer this are in another knowledge base: “party”."
    )
    screenshot(page, "43-refusal-points-elsewhere")
    hint.get_by_role("button", name="Ask in “party”").click()
    answer = last_answer(page)
    assert "forty helium balloons" in answer.locator(".answer-text").inner_text()
    assert page.locator("#collection").input_value() == "party"
    page.reload()  # the conversation, hint included, as first shown
    stored = page.locator(".bubble-refusal .refusal-elsewhere")
    stored.wait_for()
    assert "“party”" in stored.inner_text()
    ask(page, OFF_TOPIC)  # no knowledge base answers it: no hint
    page.locator(".bubble-refusal").nth(1).wait_for(timeout=60_000)
    assert page.locator(".bubble-refusal").nth(1).locator(".refusal-elsewhere").count() == 0
    assert not page.errors
    page.context.close()
    phone = site.page(site.alice, viewport=PHONE)
    ask(phone, PARTY_Q)
    hinted = phone.locator(".bubble-refusal .refusal-elsewhere")
    hinted.wait_for(timeout=60_000)
    assert phone.evaluate(NO_SIDEWAYS) and hinted.get_by_role("button").is_visible()
    screenshot(phone, "46-phone-refusal-points-elsewhere")
    phone.context.close()


def test_example_questions_set_by_an_admin_are_offered_on_an_empty_chat(site: Site) -> None:
    page = site.page(site.admin)
    page.click("#open-admin")
    page.get_by_role("tab", name="Collection settings").click()
    page.wait_for_function("() => document.querySelector('[name=top_k]').value !== ''")
    page.fill("[name=example_questions]", f"{QUESTION}\n\n  {RETENTION_Q}  \n")
    page.click("#settings-form button[type=submit]")
    page.wait_for_selector("#settings-status:has-text('Saved')")
    page.context.close()
    try:
        with site.api(site.admin) as api:
            saved = api.get("/api/collections/default/settings").json()["example_questions"]
        assert saved == [QUESTION, RETENTION_Q]
        page = site.page(site.alice)
        page.click("#new-chat")
        examples = page.get_by_role("group", name="Example questions").get_by_role("button")
        examples.first.wait_for()
        assert examples.all_inner_texts() == [QUESTION, RETENTION_Q]
        screenshot(page, "44-empty-chat-example-questions")
        examples.nth(1).click()
        answer = last_answer(page)
        assert "60 days" in answer.locator(".answer-text").inner_text()
        assert page.locator(".bubble-user").last.inner_text() == RETENTION_Q
        page.select_option("#collection", "party")  # a collection without examples
        page.click("#new-chat")
        page.locator("#indexed", has_text="party").wait_for()
        assert page.locator("#examples button").count() == 0
        assert not page.errors
        page.context.close()
        phone = site.page(site.alice, viewport=PHONE)
        offered = phone.locator("#examples button")
        offered.first.wait_for()
        assert offered.count() == 2 and phone.evaluate(NO_SIDEWAYS)
        for i in range(2):
            box = offered.nth(i).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        screenshot(phone, "45-phone-example-questions")
        phone.context.close()
    finally:
        with site.api(site.admin) as api:
            api.put("/api/collections/default/settings", json={"example_questions": []})
