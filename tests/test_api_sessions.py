"""History over real HTTP (ASGI): where each conversation began (web, api, v1, mcp) and
the filter on it, and a conversation exported as Markdown with footnotes or as JSON."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from apihelpers import Api, api, mid

QUESTION = "How are annual plans refunded?"
RETENTION = "How long is data kept after an account is closed?"
OFF_TOPIC = "What is the boiling point of mercury on Jupiter?"
CSRF = {"X-Requested-With": "footnoted"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("sessions") / "home", rate_limit=0) as a:
        yield a


@pytest.fixture
def browser(app: Api) -> Iterator[TestClient]:
    """A client signed in as alice with the web UI's cookie (no bearer token)."""
    client = TestClient(app.client.app)
    token = app.alice["Authorization"].split()[1]
    assert client.post("/api/auth/session", json={"token": token}, headers=CSRF).is_success
    yield client
    client.delete("/api/auth/session", headers=CSRF)


def sessions(app: Api, **params: str) -> list[dict[str, Any]]:
    r = app.client.get("/api/sessions", params=params, headers=app.alice)
    assert r.status_code == 200, r.text
    return list(r.json())


def test_each_conversation_says_where_it_began_and_the_list_filters(
    app: Api, browser: TestClient
) -> None:
    web = browser.post("/api/chat", json={"message": QUESTION, "message_id": mid()},
                       headers=CSRF).json()["session_id"]  # fmt: skip
    token = app.chat(RETENTION).json()["session_id"]
    v1 = app.client.post(
        "/v1/chat/completions",
        json={"model": "default", "messages": [{"role": "user", "content": QUESTION}]},
        headers=app.alice,
    )
    assert v1.status_code == 200, v1.text
    origins = {s["id"]: s["origin"] for s in sessions(app)}
    assert origins[web] == "web" and origins[token] == "api"
    assert sorted(origins.values()).count("v1") == 1
    assert [s["id"] for s in sessions(app, origin="web")] == [web]
    assert {s["origin"] for s in sessions(app, origin="v1")} == {"v1"}
    assert token not in {s["id"] for s in sessions(app, origin="web")}
    more = {"message": "And monthly ones?", "message_id": mid(), "session_id": token}
    follow = browser.post("/api/chat", json=more, headers=CSRF)
    assert follow.status_code == 200
    assert app.client.get(f"/api/sessions/{token}", headers=app.alice).json()["origin"] == "api"
    bad = app.client.get("/api/sessions", params={"origin": "email"}, headers=app.alice)
    assert bad.status_code == 422 and "error" in bad.json()
    assert app.client.get("/api/sessions", params={"origin": "web"}, headers=app.bob).json() == []


def test_markdown_export_has_real_footnotes(app: Api) -> None:
    first = app.chat(QUESTION).json()
    session = first["session_id"]
    app.chat(RETENTION, session_id=session)
    app.chat(OFF_TOPIC, session_id=session)
    r = app.client.get(f"/api/sessions/{session}/export", headers=app.alice)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
    assert r.headers["content-disposition"] == (
        'attachment; filename="how-are-annual-plans-refunded.md"'
    )
    text = r.text
    assert text.startswith("# How are annual plans refunded?\n")
    assert f"**Question:** {QUESTION}" in text and f"**Question:** {RETENTION}" in text
    assert "> **Not in the documents.**" in text  # the refusal
    assert not re.search(r"\[\d+\]", text)  # every marker became a footnote reference
    references = re.findall(r"\[\^(\d+)\](?!:)", text)
    notes = dict(re.findall(r"^\[\^(\d+)\]: (.+)$", text, re.M))
    assert set(references) == set(notes) and "1" in notes and len(notes) >= 2
    assert sorted(map(int, notes)) == list(range(1, len(notes) + 1))  # numbered throughout
    messages = app.client.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    cited = messages[1]["citations"][messages[1]["referenced_indices"][0] - 1]
    spans = [s for s in messages[1]["spans"] if s["index"] == cited["index"]]
    quoted = cited["text"][spans[0]["doc_start"] - cited["char_start"]:
                           spans[0]["doc_end"] - cited["char_start"]]  # fmt: skip
    assert notes["1"].startswith(f"**{cited['document_title']}**")
    assert f"section {cited['section']}" in notes["1"]
    assert " ".join(quoted.split()) in notes["1"]
    assert "within 30 days of purchase.[^1]" in text
    assert "(<http://testserver/api/documents/" in notes["1"]  # a link that works outside


def test_one_answer_exports_alone_for_copy(app: Api) -> None:
    message_id = mid()
    body = app.chat(QUESTION, message_id=message_id).json()
    session = body["session_id"]
    url = f"/api/sessions/{session}/export"
    r = app.client.get(url, params={"message_id": message_id}, headers=app.alice)
    assert r.status_code == 200 and "content-disposition" not in r.headers
    assert r.text.startswith(body["answer"].split("[")[0].rstrip())
    assert "\n\n[^1]: **Northwind Cloud Customer Handbook**" in r.text
    missing = app.client.get(url, params={"message_id": "nope"}, headers=app.alice)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "message_not_found"
    stored = app.client.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    assert [m["message_id"] for m in stored] == [message_id, message_id]


def test_json_export_is_the_history_and_private(app: Api) -> None:
    session = app.chat(QUESTION).json()["session_id"]
    r = app.client.get(
        f"/api/sessions/{session}/export", params={"format": "json"}, headers=app.alice
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].endswith('.json"')
    body = r.json()
    assert body["format"] == "footnoted.conversation/1"
    assert body["session"]["id"] == session and body["session"]["origin"] == "api"
    history = app.client.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    assert body["messages"] == history
    assert body["messages"][1]["citations"][0]["document_title"]
    for params in ({}, {"format": "json"}):
        hidden = app.client.get(f"/api/sessions/{session}/export", params=params, headers=app.bob)
        assert hidden.status_code == 404
    bad = app.client.get(
        f"/api/sessions/{session}/export", params={"format": "pdf"}, headers=app.alice
    )
    assert bad.status_code == 422
