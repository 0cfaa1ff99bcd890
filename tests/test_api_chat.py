"""POST /api/chat over real HTTP (ASGI) against a real SQLite file and the real model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apihelpers import SSE, Api, answer_text, api, mid, parse_sse

QUESTION = "How are annual plans refunded?"
RETENTION = "How long is data kept after an account is closed?"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("chat") / "home", rate_limit=0) as a:
        yield a


def test_health_needs_no_token_but_everything_else_does(app: Api) -> None:
    c = app.client
    assert c.get("/api/health").json()["status"] == "ok"
    for method, path in [("GET", "/api/sessions"), ("GET", "/api/documents"),
                         ("POST", "/api/chat"), ("GET", "/api/admin/refusals")]:  # fmt: skip
        r = c.request(method, path)
        assert r.status_code == 401, path
        assert r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    bad = c.get("/api/sessions", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "invalid_token"


def test_sse_events_arrive_in_order_with_headers(app: Api) -> None:
    r, events = app.stream(QUESTION, who={**app.alice, "Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["x-accel-buffering"] == "no"
    assert r.headers.get("content-encoding", "identity") == "identity"
    names = [e for e, _ in events]
    assert names[0] == "answer_start" and names[-2:] == ["sources", "answer_end"]
    assert names.count("answer_delta") >= 3 and set(names[1:-2]) == {"answer_delta"}
    start, end = events[0][1], events[-1][1]
    assert start["session_id"] == end["session_id"] and start["message_id"] == end["message_id"]
    sources = events[-2][1]
    assert sources["referenced_indices"][0] == 1
    assert sources["citations"][0]["document_title"] == "Northwind Cloud Customer Handbook"
    text = answer_text(events)
    assert "[1]" in text and "refunded in full" in text
    for span in sources["spans"]:
        c = sources["citations"][span["index"] - 1]
        assert span["doc_start"] >= c["char_start"] and span["doc_end"] <= c["char_end"]
    ids = [line for line in r.text.splitlines() if line.startswith("id: ")]
    assert ids == [f"id: {i}" for i in range(len(events))]


def test_json_answer_has_citation_map(app: Api) -> None:
    r = app.chat(RETENTION, who={**app.alice, "Accept": "application/json"})
    body = r.json()
    assert r.status_code == 200 and body["type"] == "answer"
    assert "60 days" in body["answer"]
    for key in ("session_id", "message_id", "answer_markdown", "citations", "referenced_indices",
                "spans", "citation_map"):  # fmt: skip
        assert key in body, key
    entry = body["citation_map"]["1"]
    assert entry["title"] == "Data Retention Policy"
    assert set(entry) == {"text", "source", "title", "score", "metadata"}
    assert set(entry["metadata"]) == {"page", "section"}
    assert body["citations"][0]["download_url"] == (
        f"/api/documents/{body['citations'][0]['document_id']}/download"
    )


def test_include_citations_false_leaves_out_citation_fields(app: Api) -> None:
    body = app.chat(QUESTION, include_citations=False).json()
    assert body["type"] == "answer" and "refunded in full" in body["answer"]
    assert "[1]" not in body["answer"]
    for key in ("citations", "referenced_indices", "spans", "citation_map"):
        assert key not in body
    _, events = app.stream(QUESTION, include_citations=False)
    assert [e for e, _ in events if e != "answer_delta"] == ["answer_start", "answer_end"]
    assert "[1]" not in answer_text(events)


def test_refusal_is_plain_json_even_when_sse_is_asked_for(app: Api) -> None:
    r, events = app.stream("Who painted the Mona Lisa?")
    assert r.status_code == 200 and events == []
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["type"] == "refusal"
    assert body["message"].startswith("I couldn't find the answer to that in the documents")
    assert body["suggestions"] == ["Rephrase your question"]
    assert body["evidence"]["threshold"] == 0.35 and body["evidence"]["max_score"] < 0.35
    stored = app.client.get(f"/api/sessions/{body['session_id']}/messages", headers=app.alice)
    refusal = stored.json()[-1]
    assert refusal["type"] == "refusal" and refusal["content"] == body["message"]
    assert refusal["suggestions"] == body["suggestions"]
    assert refusal["evidence"] == body["evidence"]  # history shows what was first shown


def test_empty_knowledge_base_says_so(app: Api) -> None:
    body = app.chat("How are annual plans refunded?", collection="nothing-here").json()
    assert body["type"] == "refusal"
    assert body["message"] == "The knowledge base is empty. Please contact an admin."


def test_precomputed_embedding_is_used_and_checked(app: Api) -> None:
    vector, elsewhere = app.service.embedder.embed([RETENTION, "Volcanoes on Io erupt lava."])
    body = app.chat(RETENTION, embedding=vector.tolist()).json()
    assert body["type"] == "answer" and "60 days" in body["answer"]
    # the vector, not the question's text, decides what is retrieved: nothing close
    off = app.chat(RETENTION, embedding=elsewhere.tolist()).json()
    assert off["type"] == "refusal" and off["evidence"]["max_score"] < 0.35
    bad = app.chat(RETENTION, embedding=[0.1, 0.2, 0.3])
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "embedding_dimension_mismatch"


def test_question_length_limits(app: Api) -> None:
    too_long = app.chat("x" * 4001)
    assert too_long.status_code == 422 and too_long.json()["error"]["code"] == "invalid_input"
    assert app.chat("").status_code == 422
    long = (RETENTION + " ") * 30
    assert len(long) < 4000
    _, events = app.stream(long)
    assert "only the first" in events[0][1]["warning"]
    assert "only the first" in app.chat(long).json()["warning"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"message": "hi"},
        {"message_id": "x"},
        {"message": 5, "message_id": "x"},
        {"message": "hi", "message_id": "bad id with spaces"},
        {"message": "hi", "message_id": "x", "embedding": ["a"]},
    ],
)
def test_bad_bodies_are_clear_422s(app: Api, body: dict[str, object]) -> None:
    r = app.client.post("/api/chat", json=body, headers=app.alice)
    assert r.status_code == 422
    assert set(r.json()["error"]) == {"code", "message"}


def test_malformed_json_is_a_422_not_a_500(app: Api) -> None:
    r = app.client.post(
        "/api/chat", content=b"{not json", headers={**app.alice, "Content-Type": "application/json"}
    )
    assert r.status_code == 422


def test_replay_returns_the_stored_answer_without_generating_again(app: Api) -> None:
    message_id = mid()
    body = {"message": RETENTION, "message_id": message_id}
    first = app.client.post("/api/chat", json=body, headers={**app.alice, **SSE})
    streamed = parse_sse(first.text)
    again = app.client.post("/api/chat", json=body, headers={**app.alice, **SSE})
    assert parse_sse(again.text) == streamed
    as_json = app.client.post("/api/chat", json=body, headers=app.alice).json()
    assert as_json["answer"] == answer_text(streamed)
    assert as_json["citations"] == streamed[-2][1]["citations"]
    session = streamed[0][1]["session_id"]
    messages = app.client.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    assert [m["role"] for m in messages] == ["user", "assistant"]
    other = app.client.post(
        "/api/chat", json={**body, "message": "Something else?"}, headers=app.alice
    )
    assert other.status_code == 422 and other.json()["error"]["code"] == "message_id_reused"


def test_history_is_stored_exactly_as_streamed(app: Api) -> None:
    _, events = app.stream(QUESTION, who=app.bob)
    session = events[0][1]["session_id"]
    _, more = app.stream(RETENTION, who=app.bob, session_id=session)
    assert more[0][1]["session_id"] == session
    messages = app.client.get(f"/api/sessions/{session}/messages", headers=app.bob).json()
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == QUESTION and messages[0]["citations"] is None
    answer = messages[1]
    sources = events[-2][1]
    assert answer["content"] == answer_text(events)
    assert answer["citations"] == sources["citations"]
    assert answer["referenced_indices"] == sources["referenced_indices"]
    assert answer["spans"] == sources["spans"]
    sessions = app.client.get("/api/sessions", headers=app.bob).json()
    assert sessions[0]["id"] == session and sessions[0]["title"] == QUESTION


def test_sessions_newest_first_and_private(app: Api) -> None:
    ids = []
    for q in ("Refund?", RETENTION):
        ids.append(app.chat(q, who=app.admin).json()["session_id"])
    listed = [s["id"] for s in app.client.get("/api/sessions", headers=app.admin).json()]
    assert listed[:2] == ids[::-1]
    theirs = ids[0]
    c = app.client
    assert c.get(f"/api/sessions/{theirs}/messages", headers=app.alice).status_code == 404
    assert c.get(f"/api/sessions/{theirs}", headers=app.alice).status_code == 404
    assert c.delete(f"/api/sessions/{theirs}", headers=app.alice).status_code == 404
    assert app.chat("Refund?", session_id=theirs).status_code == 404
    assert theirs not in [s["id"] for s in c.get("/api/sessions", headers=app.alice).json()]
    assert c.delete(f"/api/sessions/{theirs}", headers=app.admin).status_code == 204
    assert c.get(f"/api/sessions/{theirs}/messages", headers=app.admin).status_code == 404


@pytest.mark.parametrize(
    ("message", "title"),
    [
        (
            "What is the university's policy on academic integrity and plagiarism in "
            "submitted coursework?",
            "What is the university's policy on academic integrity and plagiarism…",
        ),
        ("Refund?", "Refund?"),
    ],
)
def test_session_title_rule(app: Api, message: str, title: str) -> None:
    session = app.chat(message, who=app.bob).json()["session_id"]
    assert app.client.get(f"/api/sessions/{session}", headers=app.bob).json()["title"] == title


def test_refusals_are_logged_for_admins(app: Api) -> None:
    question = f"What is the airspeed of an unladen swallow {mid()[:6]}?"
    assert app.chat(question).json()["type"] == "refusal"
    assert app.client.get("/api/admin/refusals", headers=app.alice).status_code == 403
    rows = app.client.get("/api/admin/refusals", headers=app.admin).json()
    row = next(r for r in rows if r["question"] == question)
    assert row["collection"] == "default" and row["user_name"] == "alice"
    assert row["threshold"] == 0.35 and row["max_score"] < 0.35 and row["created_at"]


def test_unknown_routes_and_methods_are_json_errors(app: Api) -> None:
    r = app.client.get("/api/nope", headers=app.alice)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = app.client.put("/api/chat", headers=app.alice)
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"


def test_start_page_and_openapi(app: Api) -> None:
    page = app.client.get("/")
    assert '<script type="module" src="/ui/app.js">' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    schema = app.client.get("/openapi.json").json()
    assert (
        "/api/chat" in schema["paths"] and "/api/sessions/{session_id}/messages" in schema["paths"]
    )


GARDEN = (
    b"# Community Garden\n\nThe community garden opens at 7 am on Saturdays and closes at "
    b"noon. Plots are assigned every March by lottery.\n"
)


def test_a_refusal_names_the_other_collection_whose_documents_answer(app: Api) -> None:
    up = app.client.post(
        "/api/documents", files={"file": ("garden.md", GARDEN)}, data={"collection": "garden"},
        headers=app.admin,
    )  # fmt: skip
    assert up.status_code == 201, up.text
    question = "When does the community garden open on Saturdays?"
    r, events = app.stream(question)  # asked in "default", the handbooks
    body = r.json()
    assert events == [] and body["type"] == "refusal" and body["elsewhere"] == ["garden"]
    stored = app.client.get(f"/api/sessions/{body['session_id']}/messages", headers=app.alice)
    assert stored.json()[-1]["elsewhere"] == ["garden"]  # shown again from the history
    there = app.chat(question, collection="garden").json()
    assert there["type"] == "answer" and "7 am" in there["answer"]
    off = app.chat("Who painted the Mona Lisa?").json()
    assert off["type"] == "refusal" and "elsewhere" not in off  # no collection answers it
    empty = app.chat(QUESTION, collection="nothing-here").json()
    assert empty["message"] == "The knowledge base is empty. Please contact an admin."
    assert empty["elsewhere"] == ["default"]
    app.client.delete(f"/api/documents/{up.json()['id']}", headers=app.admin)


def test_rate_limit_first_20_of_25_pass(tmp_path: Path) -> None:
    with api(tmp_path / "home", rate_limit=20) as a:
        codes = [a.chat("Refund?", who=a.bob).status_code for _ in range(25)]
        assert codes == [200] * 20 + [429] * 5
        r = a.chat("Refund?", who=a.bob)
        assert r.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert a.chat("Refund?", who=a.alice).status_code == 200  # per user
