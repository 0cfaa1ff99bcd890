"""Feedback over HTTP, on SQLite and on PostgreSQL: a user's word on their own answers
and cited sources, the admins' queue (filters, resolution, audit log), ``/v1`` feedback
and the export as questions that ``footnoted eval docs`` runs (real model, real ingest)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apihelpers import Api, api, cli
from conftest import SAMPLES
from footnoted.evaluation.realdocs import read_questions

Q = "How are annual plans refunded?"
OFF = "Who painted the Mona Lisa?"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("feedback") / "home", rate_limit=0) as a:
        yield a


def asked(app: Api, question: str = Q, **body: Any) -> dict[str, Any]:
    r = app.chat(question, **body)
    assert r.status_code == 200, r.text
    reply: dict[str, Any] = r.json()
    return reply


def give(app: Api, message_id: str, who: dict[str, str] | None = None, **body: Any) -> Any:
    return app.client.post(
        f"/api/messages/{message_id}/feedback", json=body, headers=who or app.alice
    )


def queue(app: Api, **params: str) -> list[dict[str, Any]]:
    r = app.client.get("/api/admin/feedback", params=params, headers=app.admin)
    assert r.status_code == 200, r.text
    rows: list[dict[str, Any]] = r.json()
    return rows


def test_a_word_on_an_answer_and_a_flagged_source_reach_the_admins_queue(app: Api) -> None:
    answer = asked(app, collection="default")
    mid = answer["message_id"]
    r = give(app, mid, kind="helpful")
    assert r.status_code == 200 and r.json()["status"] == "open"
    flag = give(app, mid, kind="does_not_say", citation=1, note="It says 30 days, not 14.")
    assert flag.status_code == 200, flag.text
    shown = queue(app)
    mine = [f for f in shown if f["message_id"] == mid]
    assert [f["kind"] for f in mine] == ["does_not_say", "helpful"]  # newest first
    flagged = mine[0]
    assert flagged["question"] == Q and flagged["answer"] == answer["answer"]
    assert flagged["user_name"] == "alice" and flagged["collection"] == "default"
    cited = answer["citations"][0]
    assert flagged["passage"]["text"] == cited["text"]  # the passage as it was shown
    assert flagged["passage"]["document_id"] == cited["document_id"]
    quoted = [s for s in answer["spans"] if s["index"] == 1]
    assert flagged["passage"]["spans"] == quoted and flagged["passage"]["quote"]
    assert flagged["passage"]["quote"].split(" … ")[0] in answer["answer"]  # the words quoted
    assert flagged["note"] == "It says 30 days, not 14."
    again = give(app, mid, kind="unhelpful", note="Not what I asked.")  # replaces "helpful"
    assert again.json()["id"] == mine[1]["id"] and again.json()["kind"] == "unhelpful"
    assert len([f for f in queue(app) if f["message_id"] == mid]) == 2
    audit = app.client.get("/api/admin/audit", headers=app.admin).json()
    assert {"action": "feedback_given", "target": f"feedback:{flagged['id']}"}.items() <= next(
        e for e in audit if e["target"] == f"feedback:{flagged['id']}"
    ).items()


def test_only_admins_see_the_queue_and_only_the_asker_gives_feedback(app: Api) -> None:
    mid = asked(app)["message_id"]
    assert give(app, mid, app.bob, kind="helpful").status_code == 404  # not bob's answer
    assert app.client.get("/api/admin/feedback", headers=app.alice).status_code == 403
    assert app.client.get("/api/admin/feedback").status_code == 401
    assert give(app, "no-such-message", kind="helpful").status_code == 404


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"kind": "does_not_say"}, "citation_required"),
        ({"kind": "wrong_page", "citation": 99}, "citation_not_found"),
        ({"kind": "helpful", "citation": 1}, "citation_not_allowed"),
        (
            {"kind": "unhelpful", "correction": {"unanswerable": True, "answer": "x"}},
            "correction_conflict",
        ),
        ({"kind": "unhelpful", "correction": {"document_id": "nope"}}, "document_not_found"),
        ({"kind": "thumbs_up"}, "invalid_input"),
        ({"kind": "helpful", "note": "x" * 2001}, "invalid_input"),
    ],
)
def test_feedback_that_does_not_fit_the_answer_is_refused_with_its_code(
    app: Api, body: dict[str, Any], code: str
) -> None:
    mid = asked(app)["message_id"]
    r = give(app, mid, **body)
    assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text


def test_a_refusal_can_be_marked_unhelpful_with_the_right_answer(app: Api) -> None:
    refusal = asked(app, OFF)
    assert refusal["type"] == "refusal"
    r = give(app, refusal["message_id"], kind="unhelpful", correction={"answer": "Leonardo"})
    assert r.status_code == 200, r.text
    assert r.json()["answer_type"] == "refusal" and r.json()["correction"] == {"answer": "Leonardo"}
    assert give(app, refusal["message_id"], kind="wrong_page", citation=1).status_code == 422


def test_admins_filter_and_resolve_items(app: Api) -> None:
    mid = asked(app)["message_id"]
    item = give(app, mid, kind="wrong_page", citation=1).json()
    assert item["id"] in [f["id"] for f in queue(app, kind="wrong_page", status="open")]
    assert item["id"] not in [f["id"] for f in queue(app, kind="helpful")]
    assert item["id"] not in [f["id"] for f in queue(app, collection="elsewhere")]
    r = app.client.post(f"/api/admin/feedback/{item['id']}/resolve",
                        json={"note": "Page numbers fixed"}, headers=app.admin)  # fmt: skip
    assert r.status_code == 200 and r.json()["status"] == "resolved"
    assert r.json()["resolved_by"] == "admin" and r.json()["resolution"] == "Page numbers fixed"
    assert item["id"] in [f["id"] for f in queue(app, status="resolved")]
    assert item["id"] not in [f["id"] for f in queue(app, status="open")]
    missing = app.client.post("/api/admin/feedback/nope/resolve", json={}, headers=app.admin)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "feedback_not_found"
    assert app.client.post(f"/api/admin/feedback/{item['id']}/resolve", json={},
                           headers=app.alice).status_code == 403  # fmt: skip


def test_a_v1_client_sends_feedback_by_the_completions_id(app: Api) -> None:
    body = {"model": "default", "messages": [{"role": "user", "content": Q}]}
    completion = app.client.post("/v1/chat/completions", json=body, headers=app.alice).json()
    assert completion["id"].startswith("chatcmpl-")
    r = app.client.post("/v1/feedback", json={"id": completion["id"], "kind": "helpful"},
                        headers=app.alice)  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["message_id"] == completion["id"].removeprefix("chatcmpl-")
    assert r.json()["question"] == Q
    wrong = app.client.post("/v1/feedback", json={"id": "chatcmpl-nope", "kind": "helpful"},
                            headers=app.alice)  # fmt: skip
    assert wrong.status_code == 404


def test_the_export_runs_as_eval_docs_questions(app: Api, tmp_path: Path) -> None:
    """Corrections export as questions of ``eval docs``; that eval runs them over the
    same documents and grades the answers the users corrected."""
    answer = asked(app)
    document_id = answer["citations"][0]["document_id"]
    page_less = {"answer": "refunded in full", "document_id": document_id}
    assert give(app, answer["message_id"], kind="helpful", correction=page_less).status_code == 200
    refusal = asked(app, OFF)
    assert give(app, refusal["message_id"], kind="helpful",
                correction={"unanswerable": True}).status_code == 200  # fmt: skip
    r = app.client.get("/api/admin/feedback/export", headers=app.admin)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in r.text.splitlines()]
    by_question = {row["question"]: row for row in rows}
    assert by_question[Q]["answer"] == "refunded in full"
    assert by_question[Q]["doc"] == "handbook.md" and by_question[Q]["kind"] == "why-how"
    assert by_question[OFF]["answer"] is None and by_question[OFF]["kind"] == "unanswerable"
    assert int(r.headers["X-Left-Out"]) >= 1  # words without a correction
    questions = tmp_path / "feedback.jsonl"
    done = cli(app.service.settings.home, "feedback", "export", "--root", str(SAMPLES),
               "--out", str(questions))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "questions exported" in done.stderr
    assert {q.question for q in read_questions(questions)} == {
        Q,
        OFF,
        "How are annual plans refunded?",
    }
    report = tmp_path / "eval.json"
    run = cli(app.service.settings.home, "eval", "docs", str(questions), "--data", str(SAMPLES),
              "--json", str(report))  # fmt: skip
    assert run.returncode == 0, run.stderr
    items = {i["question"]: i for i in json.loads(report.read_text())["items"]}
    assert items[Q]["right_fact"] and items[Q]["found"]
    assert items[OFF]["refused"]
