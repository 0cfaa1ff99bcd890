"""The API docs in a real browser with networking off: Swagger UI at /docs and ReDoc at
/redoc render from files the server itself serves, under a Content-Security-Policy that
allows only their own inline scripts (and the browser reports no violation)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from apihelpers import Server, start_server
from webhelpers import CHROMIUM, CHROMIUM_ARGS, require_browser, screenshot

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("docs") / "home", warm=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Any]:
    sync_api = require_browser()
    pw = sync_api.sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        pw.stop()


def offline_page(browser: Any, server: Server, elsewhere: list[str]) -> Any:
    """A page whose every request to anywhere but the server fails, as with no network;
    console messages about the Content-Security-Policy land in ``elsewhere`` too."""

    def route(r: Any) -> None:
        if r.request.url.startswith(server.url + "/"):
            r.continue_()
        else:
            elsewhere.append(r.request.url)
            r.abort("internetdisconnected")

    page = browser.new_context(viewport={"width": 1360, "height": 860}).new_page()
    page.route("**/*", route)
    page.on("console", lambda m: "Content Security Policy" in m.text and elsewhere.append(m.text))
    return page


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_pages_carry_a_policy_with_their_inline_scripts(server: Server, path: str) -> None:
    r = httpx.get(server.url + path)
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy.split(";")[0]  # scripts: only the hashed ones
    assert ("'sha256-" in policy) == (path == "/docs")  # ReDoc's page has no inline script
    assert "cdn" not in r.text.lower() and r.headers["x-content-type-options"] == "nosniff"


def test_swagger_ui_renders_offline(browser: Any, server: Server) -> None:
    elsewhere: list[str] = []
    page = offline_page(browser, server, elsewhere)
    page.goto(server.url + "/docs")
    title = page.locator(".swagger-ui .info .title")
    title.wait_for(timeout=30_000)
    assert title.inner_text().startswith("footnoted")
    page.locator(".opblock-summary-path", has_text="/api/chat").first.wait_for(timeout=30_000)
    assert page.locator(".opblock").count() > 20  # every operation, from /openapi.json
    screenshot(page, "api-docs-swagger")
    assert elsewhere == []


def test_redoc_renders_offline(browser: Any, server: Server) -> None:
    elsewhere: list[str] = []
    page = offline_page(browser, server, elsewhere)
    page.goto(server.url + "/redoc")
    heading = page.locator("h1", has_text="footnoted")
    heading.wait_for(timeout=30_000)
    assert page.get_by_text("/api/chat").count() > 0
    # ReDoc's own "API docs by Redocly" badge image is the one thing from elsewhere: the
    # policy blocks it before any request leaves, and the page does without it.
    assert elsewhere and all(
        "cdn.redoc.ly/redoc/logo" in m and "img-src" in m and not m.startswith("http")
        for m in elsewhere
    ), elsewhere
