"""Versions end to end on SQLite and on PostgreSQL, on a real ``footnoted serve``: an
answer quotes a synced file; the file changes and is synced again; the old answer's
citation still opens the text it quoted in Chromium, marked as changed, and finds the
passage at its new place in the current version; the file is deleted and synced away,
and the answer's owner still opens what it quoted while nobody else can."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from apihelpers import bearer, cli, mid, start_server
from servedhelpers import add_user
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
QUESTION = "How many days does a refund take to be paid?"
QUOTED = "Refunds are paid within fourteen days of the request being approved."
FIRST = f"""# Refund policy

{QUOTED}

Annual plans can be cancelled at any time from the billing page.
"""
SECOND = f"""# Refund policy

This policy applies to every plan sold after January 2026, in every country we serve.

{QUOTED}

Annual plans can no longer be cancelled after their first month.
"""


def synced(home: Path, folder: Path) -> str:
    done = cli(home, "sync", str(folder))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_old_answer_opens_the_version_it_quoted_after_the_file_changes_and_goes(
    tmp_path: Path, backend: str
) -> None:
    sync_api = require_browser()
    home, folder = tmp_path / "home", tmp_path / "handbook"
    folder.mkdir()
    policy = folder / "refunds.md"
    policy.write_text(FIRST)
    assert "1 added" in synced(home, folder)
    alice, bob = add_user(home, "alice"), add_user(home, "bob")
    server = start_server(home, FOOTNOTED_RATE_LIMIT="0")
    pw = sync_api.sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(base_url=server.url).new_page()
        page.goto("/")
        sign_in(page, alice)
        ask(page, QUESTION)
        last_answer(page)
        page.wait_for_url("**/c/*")
        with httpx.Client(base_url=server.url, headers=bearer(alice), timeout=60) as api:
            answer = api.post("/api/chat", json={"message": QUESTION, "message_id": mid()}).json()
            assert answer["type"] == "answer", answer
            cited = answer["citations"][0]
            doc_id = cited["document_id"]
            assert cited["version"] == 1 and QUOTED in answer["answer"]
            span = next(s for s in answer["spans"] if s["index"] == cited["index"])
            v1 = api.get(f"/api/documents/{doc_id}/text").json()
            assert v1["text"][span["doc_start"] : span["doc_end"]] == QUOTED

            policy.write_text(SECOND)
            assert "1 changed" in synced(home, folder)
            assert api.get(f"/api/documents/{doc_id}").json()["version"] == 2
            where = {"version": 1, "start": span["doc_start"], "end": span["doc_end"]}
            old = api.get(f"/api/documents/{doc_id}/text", params=where).json()
            assert (old["version"], old["current_version"], old["ended_by"]) == (1, 2, "replaced")
            assert old["text"] == v1["text"]
            now = api.get(f"/api/documents/{doc_id}/text").json()
            assert now["version"] == 2 and now["now_at"] is None
            moved = old["now_at"]
            assert moved["start"] > span["doc_start"]  # a paragraph came before it
            assert now["text"][moved["start"] : moved["end"]] == QUOTED
            versions = api.get(f"/api/documents/{doc_id}/versions").json()
            assert [(v["version"], v["current"]) for v in versions] == [(2, True), (1, False)]
            new_answer = api.post(
                "/api/chat", json={"message": QUESTION, "message_id": mid()}
            ).json()
            assert {c["version"] for c in new_answer["citations"]} == {2}

        page.reload()
        open_first_citation(page)
        notice = page.locator("#viewer .viewer-changed")
        assert "has changed since this answer" in notice.inner_text()
        assert "version 1; now version 2" in notice.inner_text()
        assert QUOTED in marked(page)
        assert "Annual plans can be cancelled at any time" in page.inner_text("#viewer-text")
        screenshot(page, f"39-citation-of-an-earlier-version-{backend}")
        notice.get_by_role("button", name="Show this passage in the current version").click()
        page.wait_for_function(
            "() => !document.querySelector('#viewer .viewer-changed')"
            " && document.querySelector('#viewer mark.exact')"
        )
        assert "after January 2026" in page.inner_text("#viewer-text")
        assert QUOTED in marked(page)
        page.click("#viewer-close")

        policy.unlink()
        assert "1 retired" in synced(home, folder)
        with httpx.Client(base_url=server.url, timeout=60) as api:
            gone = api.get(f"/api/documents/{doc_id}/text", params={"version": 1},
                           headers=bearer(alice))  # fmt: skip
            assert gone.status_code == 200, gone.text
            assert gone.json()["current_version"] is None
            assert QUOTED in gone.json()["text"]
            hidden = api.get(f"/api/documents/{doc_id}/text", params={"version": 1},
                             headers=bearer(bob))  # fmt: skip
            assert hidden.status_code == 404
            assert hidden.json()["error"]["code"] == "document_not_found"
            later = api.post(
                "/api/chat",
                json={"message": QUESTION, "message_id": mid()},
                headers=bearer(alice),
            ).json()
            assert later["type"] == "refusal"  # a retired document answers nothing new
        page.reload()
        open_first_citation(page)
        notice = page.locator("#viewer .viewer-changed")
        assert "was deleted after this answer" in notice.inner_text()
        assert QUOTED in marked(page)
        page.context.close()
    finally:
        pw.stop()
        server.stop()


def open_first_citation(page: Any) -> None:
    answer = last_answer(page)
    answer.locator(".badge").first.click()
    page.wait_for_selector("#viewer .viewer-changed")
    page.wait_for_selector("#viewer mark.exact")


def marked(page: Any) -> str:
    """The quoted text marked in the viewer (the exact answer inside it is a mark too)."""
    return "".join(page.locator("#viewer mark.exact").all_inner_texts())
