"""Collection settings, download links and HTML safety over HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from apihelpers import Api, answer_text, api, free_port
from footnoted.service.titles import session_title
from footnoted.settings import CollectionSettings

QUESTION = "How are annual plans refunded?"
XSS_DOC = (
    b"# Widget Safety <script>alert('xss')</script>\n\n"
    b"Widgets must be stored below 40 degrees <img src=x onerror=alert(1)> at all times.\n"
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("settings") / "home", rate_limit=0) as a:
        yield a


def put(app: Api, name: str, **values: object) -> dict[str, object]:
    r = app.client.put(f"/api/collections/{name}/settings", json=values, headers=app.admin)
    assert r.status_code == 200, r.text
    body: dict[str, object] = r.json()
    return body


def test_defaults_and_admin_only_changes(app: Api) -> None:
    r = app.client.get("/api/collections/default/settings", headers=app.alice)
    assert r.json() == CollectionSettings().model_dump(mode="json")
    denied = app.client.put(
        "/api/collections/default/settings", json={"top_k": 3}, headers=app.alice
    )
    assert denied.status_code == 403
    for bad in ({"top_k": 0}, {"evidence_threshold": 2}, {"citation_link_mode": "open"},
                {"generation_mode": "magic"}, {"colour": "blue"}):  # fmt: skip
        r = app.client.put("/api/collections/default/settings", json=bad, headers=app.admin)
        assert r.status_code == 422, bad
    assert "default" in app.client.get("/api/collections", headers=app.alice).json()


def test_example_questions_are_kept_trimmed_and_bounded(app: Api) -> None:
    asked = [
        "  How are annual plans refunded? ",
        "How long is data kept after an account is closed?",
    ]
    body = put(app, "default", example_questions=asked)
    assert body["example_questions"] == [q.strip() for q in asked]
    seen = app.client.get("/api/collections/default/settings", headers=app.alice).json()
    assert seen["example_questions"] == body["example_questions"]  # every user sees them
    assert put(app, "default", top_k=5)["example_questions"] == body["example_questions"]
    for bad in (["Q?"] * 7, ["   "], ["x" * 301], "one string"):
        r = app.client.put(
            "/api/collections/default/settings", json={"example_questions": bad},
            headers=app.admin,
        )  # fmt: skip
        assert r.status_code == 422, bad
        assert r.json()["error"]["code"] in ("invalid_input", "invalid_settings"), r.text
    assert put(app, "default", example_questions=[])["example_questions"] == []


def test_settings_change_answers_at_once(app: Api) -> None:
    try:
        put(app, "default", evidence_threshold=0.99)
        assert app.chat(QUESTION).json()["type"] == "refusal"
        put(app, "default", evidence_threshold=0.35, top_k=1)
        assert len(app.chat(QUESTION).json()["citations"]) == 1
    finally:
        put(app, "default", evidence_threshold=0.35, top_k=5)


def test_citations_off(app: Api) -> None:
    try:
        settings = put(app, "default", enable_citations=False)
        assert settings["enable_citations"] is False
        body = app.chat(QUESTION).json()
        assert body["type"] == "answer" and "refunded in full" in body["answer"]
        assert "citations" not in body and "[1]" not in body["answer"]
        _, events = app.stream(QUESTION)
        assert "sources" not in [e for e, _ in events]
    finally:
        put(app, "default", enable_citations=True)


def test_rag_off_consults_no_documents(app: Api) -> None:
    try:
        put(app, "default", enable_rag=False)
        body = app.chat(QUESTION).json()
        assert body["type"] == "answer" and "no documents were consulted" in body["answer"]
        assert "citations" not in body
        _, events = app.stream(QUESTION)
        assert [e for e, _ in events if e != "answer_delta"] == ["answer_start", "answer_end"]
        assert "no documents were consulted" in answer_text(events)
    finally:
        put(app, "default", enable_rag=True)


def test_llm_generation_mode_without_a_server_falls_back_with_a_notice(app: Api) -> None:
    settings = app.service.settings
    saved = settings.llm_base_url
    settings.llm_base_url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    try:
        assert put(app, "default", generation_mode="llm")["generation_mode"] == "llm"
        r = app.chat(QUESTION)
        assert r.status_code == 200 and "Generation was unavailable" in r.json()["notice"]
    finally:
        settings.llm_base_url = saved
        put(app, "default", generation_mode="extractive")


def test_link_modes(app: Api) -> None:
    try:
        put(app, "default", citation_link_mode="none")
        assert app.chat(QUESTION).json()["citations"][0]["download_url"] is None
        put(app, "default", citation_link_mode="public")
        citation = app.chat(QUESTION).json()["citations"][0]
        url = citation["download_url"]
        assert url.startswith(f"/public/documents/{citation['document_id']}?expires=")
        r = app.client.get(url)  # no token needed
        assert r.status_code == 200 and b"Northwind" in r.content
        assert r.headers["content-disposition"].startswith("attachment;")
        parts = urlsplit(url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert query["by"]  # minted for alice's token
        tampered = (
            f"{parts.path}?expires={int(query['expires']) + 10}&by={query['by']}"
            f"&signature={query['signature']}"
        )
        assert app.client.get(tampered).status_code == 403
        unscoped = f"{parts.path}?expires={query['expires']}&signature={query['signature']}"
        assert app.client.get(unscoped).status_code == 403  # "by" cannot be dropped
        expired, _ = (
            app.client.app.state.footnoted.links.public_url(  # type: ignore[attr-defined]
                citation["document_id"], query["by"], now=time.time() - 10 * 86400
            ),
            None,
        )
        assert app.client.get(expired[0]).status_code == 403
        link = app.client.get(
            f"/api/documents/{citation['document_id']}/link", headers=app.alice
        ).json()
        assert app.client.get(link["url"]).status_code == 200
        put(app, "default", citation_link_mode="authenticated")
        assert app.client.get(url).status_code == 403  # public links stop when turned off
    finally:
        put(app, "default", citation_link_mode="authenticated")


def test_html_in_documents_and_questions_never_reaches_a_client_raw(app: Api) -> None:
    r = app.client.post(
        "/api/documents",
        files={"file": ("widgets.md", XSS_DOC)},
        data={"collection": "xss", "title": "Widgets <img src=x onerror=alert(1)>"},
        headers=app.admin,
    )
    assert r.status_code == 201 and r.json()["status"] == "ready"
    question = "<script>alert('xss')</script> How should widgets be stored?"
    responses = [app.chat(question, collection="xss")]
    body = responses[0].json()
    assert body["type"] == "answer" and "40 degrees" in body["answer"]
    for field in (body["answer_markdown"],):
        assert "<script" not in field and "<img" not in field
    r, _ = app.stream(question, collection="xss")
    responses.append(r)
    session = body["session_id"]
    responses.append(app.client.get(f"/api/sessions/{session}/messages", headers=app.alice))
    responses.append(app.client.get("/api/sessions", headers=app.alice))
    responses.append(app.client.get("/api/documents?collection=xss", headers=app.alice))
    for resp in responses:
        raw = resp.content.lower()
        assert b"<script" not in raw and b"<img" not in raw, resp.url
    assert (
        "<img"
        in app.client.get("/api/documents?collection=xss", headers=app.alice).json()[0]["title"]
    )  # the data itself is kept, only escaped on the wire
    raw_question = app.chat("<img src=x onerror=alert(1)>")
    assert b"<img" not in raw_question.content.lower()


def test_title_unit_rule() -> None:
    long = "word " * 30
    title = session_title(long)
    assert len(title) <= 80 and title.endswith("…")
    assert session_title("  Refund?  ") == "Refund?"
    assert session_title("x" * 200) == "x" * 79 + "…"
