"""A real ``footnoted serve`` (uvicorn) process: two workers sharing one database,
incremental streaming, keep-alives, client disconnects, and SIGKILL mid-work."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from pathlib import Path
from typing import Any

import httpx
import pytest

from apihelpers import SSE, Server, bearer, mid, parse_sse, start_server
from conftest import SAMPLES
from footnoted import Footnoted, Settings
from footnoted.service.accounts import issue_token
from pghelpers import database_settings, raw_database

QUESTION = "How are annual plans refunded?"
LIMITED = [f"limited{n}" for n in range(5)]  # one fresh user per burst
PACE_ENV = {"FOOTNOTED_STREAM_PACE_MS": "60", "FOOTNOTED_SSE_KEEPALIVE_S": "0.03"}


def prepare_home(home: Path, users: list[str]) -> dict[str, dict[str, str]]:
    with Footnoted(Settings(home=home, **database_settings(home))) as fn:
        assert not fn.ingest([SAMPLES]).failed
        tokens = {}
        for name in users:
            user = fn.store.create_user(name, is_admin=name == "admin")
            tokens[name] = bearer(issue_token(fn.store, user))
    return tokens


def post_json(server: Server, who: dict[str, str], body: dict[str, Any]) -> httpx.Response:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        return c.post("/api/chat", json=body, headers=who)


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, backend: str
) -> Iterator[tuple[Server, dict[str, Any]]]:
    home = tmp_path_factory.mktemp("served") / "home"
    users = [*LIMITED, "dup", "pair", "reader", "leaver", "admin", "carol"]
    tokens = prepare_home(home, users)
    server = start_server(home, workers=2, FOOTNOTED_RATE_LIMIT="20", **PACE_ENV)
    try:
        yield server, tokens
    finally:
        server.stop()


def test_rate_limit_holds_across_two_workers(served: tuple[Server, dict[str, Any]]) -> None:
    """Each burst comes from a fresh user. The kernel hands connections to whichever
    worker accepts first, so on a busy machine one burst may reach a single worker (the
    other still importing); the limit must hold in every burst, and some burst must have
    reached both workers."""
    server, tokens = served
    workers_seen = []
    for user in LIMITED:
        bodies = [{"message": "Refund?", "message_id": mid()} for _ in range(25)]
        with ThreadPoolExecutor(25) as pool:
            codes = list(pool.map(post_json, repeat(server), repeat(tokens[user]), bodies))
        statuses = sorted(r.status_code for r in codes)
        assert statuses == [200] * 20 + [429] * 5
        assert all(r.headers["retry-after"].isdigit() for r in codes if r.status_code == 429)
        ids = [b["message_id"] for b in bodies]
        with raw_database(server.home) as db:
            owners = db.rows(
                f"SELECT DISTINCT owner FROM chat_requests WHERE message_id IN "
                f"({', '.join('?' * len(ids))})",
                ids,
            )
        workers_seen.append(len({o.split(":")[0] for (o,) in owners}))
        if workers_seen[-1] == 2:
            break
        time.sleep(2)
    assert workers_seen[-1] == 2, f"bursts reached {workers_seen} workers, never both"


def test_twenty_concurrent_duplicates_make_one_answer(
    served: tuple[Server, dict[str, Any]],
) -> None:
    server, tokens = served
    body = {"message": QUESTION, "message_id": mid()}
    with ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda _: post_json(server, tokens["dup"], body), range(20)))
    assert {r.status_code for r in replies} <= {200, 409}
    answers = [r.json() for r in replies if r.status_code == 200]
    assert answers and all(a == answers[0] for a in answers)
    for r in replies:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "duplicate_in_progress"
    with raw_database(server.home) as db:
        ((count,),) = db.rows(
            "SELECT count(*) FROM messages WHERE request_id = ? AND role = 'assistant'",
            (body["message_id"],),
        )
        sessions = db.rows(
            "SELECT s.message_count FROM sessions s JOIN users u ON u.id = s.user_id "
            "WHERE u.name = 'dup'"
        )
    assert count == 1
    assert sessions == [(2,)]  # one session, holding the question and its one answer


def test_simultaneous_first_messages_make_whole_sessions(
    served: tuple[Server, dict[str, Any]],
) -> None:
    server, tokens = served
    bodies = [{"message": f"Refund? ({i})", "message_id": mid()} for i in range(2)]
    with ThreadPoolExecutor(2) as pool:
        replies = list(pool.map(lambda b: post_json(server, tokens["pair"], b), bodies))
    assert [r.status_code for r in replies] == [200, 200]
    sessions = {r.json()["session_id"] for r in replies}
    assert len(sessions) == 2
    with httpx.Client(base_url=server.url, timeout=60) as c:
        listed = c.get("/api/sessions", headers=tokens["pair"]).json()
        assert {s["id"] for s in listed} == sessions
        for session in sessions:
            messages = c.get(f"/api/sessions/{session}/messages", headers=tokens["pair"]).json()
            assert [m["role"] for m in messages] == ["user", "assistant"]


def test_stream_arrives_incrementally_with_keep_alives(
    served: tuple[Server, dict[str, Any]],
) -> None:
    server, tokens = served
    arrivals: list[tuple[float, str]] = []
    body = {"message": QUESTION, "message_id": mid()}
    with (
        httpx.Client(base_url=server.url, timeout=60) as c,
        c.stream("POST", "/api/chat", json=body, headers={**tokens["reader"], **SSE}) as r,
    ):
        assert r.headers["x-accel-buffering"] == "no"
        for line in r.iter_lines():
            arrivals.append((time.monotonic(), line))
    events = [line[7:] for _, line in arrivals if line.startswith("event: ")]
    assert events[0] == "answer_start" and events[-2:] == ["sources", "answer_end"]
    deltas = [t for t, line in arrivals if line == "event: answer_delta"]
    assert len(deltas) >= 5
    assert deltas[-1] - deltas[0] >= 0.5 * 0.06 * (len(deltas) - 1)  # spread, not one burst
    assert any(line == ": keep-alive" for _, line in arrivals)


def test_client_disconnect_stops_the_work(served: tuple[Server, dict[str, Any]]) -> None:
    server, tokens = served
    who = tokens["leaver"]
    body = {"message": QUESTION, "message_id": mid()}
    with (
        httpx.Client(base_url=server.url, timeout=60) as c,
        c.stream("POST", "/api/chat", json=body, headers={**who, **SSE}) as r,
    ):
        for line in r.iter_lines():
            if line == "event: answer_delta":
                break  # leave mid-stream: closing the response drops the connection
    deadline = time.monotonic() + 20
    status = None
    while time.monotonic() < deadline:
        with raw_database(server.home) as db:
            rows = db.rows(
                "SELECT status FROM chat_requests WHERE message_id = ?", (body["message_id"],)
            )
        status = rows[0][0] if rows else None
        if status != "in_progress":
            break
        time.sleep(0.1)
    assert status == "abandoned"
    time.sleep(1.0)  # the whole answer would have been stored by now had the work gone on
    with raw_database(server.home) as db:
        ((stored,),) = db.rows(
            "SELECT count(*) FROM messages WHERE request_id = ?", (body["message_id"],)
        )
    assert stored == 0
    retry = post_json(server, who, body)
    assert retry.status_code == 200 and retry.json()["type"] == "answer"


def read_until(response: httpx.Response, event: str) -> list[tuple[str, dict[str, Any]]]:
    text = ""
    for line in response.iter_lines():
        text += line + "\n"
        if line.startswith("data: ") and f"event: {event}\n" in text.rsplit("\n\n", 1)[-1]:
            break
    return parse_sse(text + "\n")


def big_text() -> bytes:
    words = ["river", "granite", "ledger", "orbit", "violet", "harbour", "quartz", "meadow"]
    lines = [
        f"Entry {i} notes that the {words[i % 8]} {words[(i * 3) % 8]} stays near "
        f"{words[(i * 5) % 8]} number {i}."
        for i in range(30_000)
    ]
    return "\n".join(lines).encode()


def test_sigkill_mid_ingest_and_mid_answer_leaves_a_consistent_database(
    served: tuple[Server, dict[str, Any]],
) -> None:
    """Runs last in this module: it kills the shared server, then starts a new one."""
    server, tokens = served
    home = server.home
    acknowledged = []
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            for question in (QUESTION, "How long is data kept after an account is closed?"):
                body = {"message": question, "message_id": mid()}
                with c.stream(
                    "POST", "/api/chat", json=body, headers={**tokens["carol"], **SSE}
                ) as r:
                    events = read_until(r, "answer_end")
                assert events[-1][0] == "answer_end"
                acknowledged.append(body["message_id"])
            uploader = threading.Thread(
                target=lambda: _quiet_upload(server, tokens["admin"]), daemon=True
            )
            uploader.start()
            _wait_for_processing(c, tokens["admin"])
            killed = {"message": QUESTION, "message_id": mid()}
            with c.stream(
                "POST", "/api/chat", json=killed, headers={**tokens["carol"], **SSE}
            ) as r:
                read_until(r, "answer_delta")
                server.stop(signal.SIGKILL)
        uploader.join(timeout=30)
        server = start_server(home, workers=1, **PACE_ENV)
        with raw_database(home) as db:
            assert db.intact()
            for message_id in acknowledged:
                rows = db.rows(
                    "SELECT role FROM messages WHERE request_id = ? ORDER BY seq", (message_id,)
                )
                assert [r[0] for r in rows] == ["user", "assistant"]
            assert not db.rows(
                "SELECT 1 FROM messages WHERE request_id = ?", (killed["message_id"],)
            )
            ((status, error, chunks),) = db.rows(
                "SELECT status, error, (SELECT count(*) FROM chunks WHERE document_id = d.id) "
                "FROM documents d WHERE title = 'big'"
            )
        assert status == "failed" and "interrupted" in error and chunks == 0
        retry = post_json(server, tokens["carol"], killed)
        assert retry.status_code == 200 and retry.json()["type"] == "answer"
    finally:
        server.stop(signal.SIGKILL)


def _quiet_upload(server: Server, who: dict[str, str]) -> None:
    try:
        with httpx.Client(base_url=server.url, timeout=120) as c:
            c.post("/api/documents", files={"file": ("big.txt", big_text())}, headers=who)
    except httpx.HTTPError:
        pass  # the server is killed while this upload is processed


def _wait_for_processing(c: httpx.Client, who: dict[str, str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        docs = c.get("/api/documents", headers=who).json()
        if any(d["title"] == "big" and d["status"] == "processing" for d in docs):
            time.sleep(0.3)
            return
        time.sleep(0.05)
    raise AssertionError("the upload never showed as processing")
