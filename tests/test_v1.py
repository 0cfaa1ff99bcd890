"""The OpenAI-compatible API, driven by the official ``openai`` client over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from fakellm import Script, words
from livehelpers import Live, live

Q = "How long is data kept after an account is closed?"
REPLY = "Data is kept for 60 days after an account is closed [1]."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("v1") / "home", rate_limit=0) as a:
        a.llm.script = Script(words(REPLY))
        yield a


def client(app: Live, who: dict[str, str] | None = None) -> openai.OpenAI:
    token = (who or app.alice)["Authorization"].removeprefix("Bearer ")
    return openai.OpenAI(base_url=app.url + "/v1", api_key=token, max_retries=0)


def extra(obj: Any) -> dict[str, Any]:
    data: dict[str, Any] = obj.model_extra or {}
    return data


def test_models_lists_collections(app: Live) -> None:
    ids = [m.id for m in client(app).models.list()]
    assert "default" in ids


def test_bad_key_is_refused(app: Live) -> None:
    bad = openai.OpenAI(base_url=app.url + "/v1", api_key="nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="default", messages=[{"role": "user", "content": Q}])


def test_non_streaming_llm_answer_with_citations(app: Live) -> None:
    c = client(app).chat.completions.create(
        model="default",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": Q}],
    )
    assert c.object == "chat.completion" and c.choices[0].finish_reason == "stop"
    assert c.choices[0].message.content == REPLY
    cites = extra(c)["citations"]
    assert cites["referenced_indices"] == [1]
    assert "60 days" in cites["sources"][0]["text"]
    assert cites["sources"][0]["document_title"] == "Data Retention Policy"
    retrieval = extra(c)["retrieval"]
    assert retrieval["collection"] == "default" and retrieval["chunks_returned"] >= 1
    assert retrieval["duration_ms"] >= 0
    assert c.usage is not None and c.usage.total_tokens > 0


def test_streaming_extra_fields_ride_on_the_final_chunk_only(app: Live) -> None:
    stream = client(app).chat.completions.create(
        model="default",
        messages=[{"role": "user", "content": Q}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert all(ch.object == "chat.completion.chunk" for ch in chunks)
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    assert text == REPLY
    *middle, last = chunks
    assert last.choices[0].finish_reason == "stop"
    assert extra(last)["citations"]["referenced_indices"] == [1]
    assert extra(last)["retrieval"]["collection"] == "default"
    assert last.usage is not None and last.usage.completion_tokens > 0
    for ch in middle:
        assert "citations" not in extra(ch) and "retrieval" not in extra(ch)
        assert ch.usage is None and ch.choices[0].finish_reason is None


def test_extractive_content_ends_with_sources(app: Live) -> None:
    app.configure(generation_mode="extractive")
    try:
        c = client(app).chat.completions.create(
            model="default", messages=[{"role": "user", "content": Q}]
        )
        content = c.choices[0].message.content or ""
        assert "60 days" in content and "[1]" in content
        assert "\n\nSources:\n1. Data Retention Policy" in content, content
        assert extra(c)["citations"]["referenced_indices"][0] == 1
        stream = client(app).chat.completions.create(
            model="default", messages=[{"role": "user", "content": Q}], stream=True
        )
        last = list(stream)[-1]
        assert "citations" in extra(last) and last.usage is None
    finally:
        app.configure(generation_mode="llm")


@pytest.mark.parametrize("setting", ["enable_citations", "enable_rag"])
def test_citations_or_rag_off_means_no_citations_field(app: Live, setting: str) -> None:
    app.configure(**{setting: False})
    try:
        c = client(app).chat.completions.create(
            model="default", messages=[{"role": "user", "content": Q}]
        )
        assert "citations" not in extra(c)
        assert "[" not in (c.choices[0].message.content or "")
        last = list(
            client(app).chat.completions.create(
                model="default", messages=[{"role": "user", "content": Q}], stream=True
            )
        )[-1]
        assert "citations" not in extra(last) and "retrieval" in extra(last)
    finally:
        app.configure(**{setting: True})


def test_refusal_is_a_normal_completion(app: Live) -> None:
    c = client(app).chat.completions.create(
        model="default", messages=[{"role": "user", "content": "Who painted the Mona Lisa?"}]
    )
    assert (c.choices[0].message.content or "").startswith("I don't have enough information")
    assert "citations" not in extra(c)


def test_history_records_v1_answers(app: Live) -> None:
    client(app).chat.completions.create(model="default", messages=[{"role": "user", "content": Q}])
    sessions = app.http.get("/api/sessions", headers=app.alice).json()
    messages = app.messages(sessions[0]["id"])
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == Q and messages[1]["content"] == REPLY
    assert messages[1]["referenced_indices"] == [1]


def test_bad_messages_are_422(app: Live) -> None:
    for messages in ([], [{"role": "assistant", "content": "hi"}]):
        r = app.http.post("/v1/chat/completions", json={"model": "default", "messages": messages},
                          headers=app.alice)  # fmt: skip
        assert r.status_code == 422, messages
        assert set(r.json()["error"]) == {"code", "message"}


def test_rate_limit_applies(app: Live) -> None:
    limiter = app.app.state.footnoted.limiter
    limiter.per_minute = 2
    try:
        admin = client(app, app.admin)
        for _ in range(2):
            admin.chat.completions.create(
                model="default", messages=[{"role": "user", "content": Q}]
            )
        with pytest.raises(openai.RateLimitError) as caught:
            admin.chat.completions.create(
                model="default", messages=[{"role": "user", "content": Q}]
            )
        assert caught.value.response.headers["retry-after"]
    finally:
        limiter.per_minute = 0
