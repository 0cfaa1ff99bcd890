"""The API docs in a real browser with networking off: Swagger UI at /docs and ReDoc at
/redoc render from files the server itself serves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
    """A page whose every request to anywhere but the server fails, as with no network."""

    def route(r: Any) -> None:
        if r.request.url.startswith(server.url + "/"):
            r.continue_()
        else:
            elsewhere.append(r.request.url)
            r.abort("internetdisconnected")

    page = browser.new_context(viewport={"width": 1360, "height": 860}).new_page()
    page.route("**/*", route)
    return page


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
    # Only ReDoc's own "API docs by Redocly" badge image is fetched from elsewhere; the
    # page does without it.
    assert all(url.startswith("https://cdn.redoc.ly/redoc/logo") for url in elsewhere)
