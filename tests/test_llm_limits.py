"""An LLM stream that will not end: footnoted's own caps on tokens, bytes and time.

The real app over real HTTP, the scripted OpenAI-compatible server streaming without end
(it ignores ``max_tokens``). Each cap ends the answer with a ``generation_limit`` error,
keeps the text so far as an incomplete answer, and stops reading from the server.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from apihelpers import answer_text, mid
from fakellm import Script, words
from livehelpers import Live, live

Q = "How long is data kept after an account is closed?"
ANSWER = words("Data is kept for 60 days after an account is closed [1]. ")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("limits") / "home", rate_limit=0) as a:
        yield a


@pytest.fixture
def caps(app: Live) -> Iterator[Any]:
    """The app's settings, put back after the test."""
    settings = app.service.settings
    saved = settings.model_dump()
    yield settings
    for name in ("llm_max_tokens", "llm_max_bytes", "llm_max_seconds"):
        setattr(settings, name, saved[name])


def stored_reply(app: Live, session_id: str) -> dict[str, Any]:
    return app.messages(session_id)[1]


def test_endless_stream_stops_at_max_tokens_as_an_incomplete_answer(app: Live, caps: Any) -> None:
    caps.llm_max_tokens = 40
    app.llm.script = Script(ANSWER, endless=True)
    began = time.monotonic()
    events = app.stream(Q)
    took = time.monotonic() - began
    names = [e for e, _ in events]
    assert names[0] == "answer_start" and names[-1] == "error" and "sources" not in names
    error = events[-1][1]
    assert error["code"] == "generation_limit"
    assert "40 tokens" in error["message"] and "FOOTNOTED_LLM_MAX_TOKENS" in error["message"]
    text = answer_text(events)
    assert text.startswith("Data is kept for 60 days")
    assert len(text.split()) <= 40  # at most the 40 tokens read, markers cleaned
    assert took < 10
    stored = stored_reply(app, events[0][1]["session_id"])
    assert stored["incomplete"] is True and stored["content"] == text
    # footnoted hung up: the server could not write much past what was read
    assert app.llm.sent < 1024 * 1024


def test_endless_stream_as_json_is_a_502_and_history_keeps_it(app: Live, caps: Any) -> None:
    caps.llm_max_tokens = 25
    app.llm.script = Script(ANSWER, endless=True)
    body = {"message": Q, "message_id": mid()}
    r = app.http.post("/api/chat", json=body, headers=app.alice)
    assert r.status_code == 502 and r.json()["error"]["code"] == "generation_limit"
    session = app.http.get("/api/sessions", headers=app.alice).json()[0]["id"]
    stored = stored_reply(app, session)
    assert stored["incomplete"] is True and stored["content"].startswith("Data is kept")
    again = app.http.post("/api/chat", json=body, headers=app.alice)  # the stored answer
    assert again.status_code == 200 and again.json()["incomplete"] is True


def test_huge_deltas_stop_at_the_byte_cap(app: Live, caps: Any) -> None:
    caps.llm_max_bytes = 64 * 1024
    app.llm.script = Script(["Data is kept for 60 days [1]. ", "x" * 8000 + " "], endless=True)
    events = app.stream(Q)
    assert events[-1][0] == "error" and events[-1][1]["code"] == "generation_limit"
    assert "65536 bytes" in events[-1][1]["message"]
    assert len(answer_text(events).encode()) <= 64 * 1024


def test_slow_endless_stream_stops_at_the_time_cap(app: Live, caps: Any) -> None:
    caps.llm_max_seconds = 1.0
    app.llm.script = Script(ANSWER, endless=True, delay_s=0.02)
    began = time.monotonic()
    events = app.stream(Q)
    took = time.monotonic() - began
    assert events[-1][0] == "error" and events[-1][1]["code"] == "generation_limit"
    assert "FOOTNOTED_LLM_MAX_SECONDS" in events[-1][1]["message"]
    assert 1.0 <= took < 5.0
    assert answer_text(events).startswith("Data is kept")


def test_endless_stream_of_empty_deltas_falls_back_to_extractive(app: Live, caps: Any) -> None:
    """No token before a cap: the model counts as unavailable and the documents are quoted."""
    caps.llm_max_bytes = 32 * 1024
    app.llm.script = Script([""], endless=True)
    body = app.chat(Q)
    assert body["type"] == "answer" and "60 days" in body["answer"]
    assert "32768 bytes" in body["notice"]


def test_a_well_behaved_stream_is_untouched(app: Live, caps: Any) -> None:
    caps.llm_max_tokens = 13  # exactly the answer's tokens
    app.llm.script = Script(words("Data is kept for 60 days after an account is closed [1]."))
    assert len(app.llm.script.tokens) == 13
    events = app.stream(Q)
    assert [e for e, _ in events][-2:] == ["sources", "answer_end"]
    assert app.llm.requests[-1]["max_tokens"] == 13
