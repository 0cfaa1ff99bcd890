"""The OpenAI-compatible API, driven by the official ``openai`` client over real HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from conftest import ROOT
from fakellm import Script, words
from footnoted.api.compat.cited import without_sources
from livehelpers import Live, live

Q = "How long is data kept after an account is closed?"
REPLY = "Data is kept for 60 days after an account is closed [1]."
SOURCES = "\n\nSources:\n1. Data Retention Policy"
NOT_COVERED = "Who painted the Mona Lisa?"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("v1") / "home", rate_limit=0) as a:
        a.llm.script = Script(words(REPLY))
        yield a
        while CLIENTS:
            CLIENTS.pop().close()


CLIENTS: list[openai.OpenAI] = []  # closed with the app: no socket is left to the GC


def client(app: Live, who: dict[str, str] | None = None, key: str | None = None) -> openai.OpenAI:
    token = key or (who or app.alice)["Authorization"].removeprefix("Bearer ")
    CLIENTS.append(openai.OpenAI(base_url=app.url + "/v1", api_key=token, max_retries=0))
    return CLIENTS[-1]


def extra(obj: Any) -> dict[str, Any]:
    data: dict[str, Any] = obj.model_extra or {}
    return data


def test_models_lists_collections(app: Live) -> None:
    ids = [m.id for m in client(app).models.list()]
    assert "default" in ids


def test_bad_key_is_refused(app: Live) -> None:
    bad = client(app, key="nope")
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="default", messages=[{"role": "user", "content": Q}])


def test_non_streaming_llm_answer_with_citations(app: Live) -> None:
    c = client(app).chat.completions.create(
        model="default",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": Q}],
    )
    assert c.object == "chat.completion" and c.choices[0].finish_reason == "stop"
    content = c.choices[0].message.content or ""
    assert content.startswith(REPLY + SOURCES), content
    assert c.choices[0].message.refusal is None
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
    assert text.startswith(REPLY + SOURCES), text
    *middle, last = chunks
    assert last.choices[0].finish_reason == "stop"
    assert extra(last)["citations"]["referenced_indices"] == [1]
    assert extra(last)["retrieval"]["collection"] == "default"
    assert last.usage is not None and last.usage.completion_tokens > 0
    for ch in middle:
        assert "citations" not in extra(ch) and "retrieval" not in extra(ch)
        assert ch.usage is None and ch.choices[0].finish_reason is None
        assert "annotations" not in extra(ch.choices[0].delta)


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


def test_refusal_is_shown_and_marked(app: Live) -> None:
    c = client(app).chat.completions.create(
        model="default", messages=[{"role": "user", "content": NOT_COVERED}]
    )
    message = c.choices[0].message
    assert (message.content or "").startswith("I couldn't find the answer")
    assert message.refusal == message.content  # what a program tests
    assert extra(c)["refusal"]["suggestions"] and "max_score" in extra(c)["refusal"]["evidence"]
    assert "citations" not in extra(c) and not message.annotations


def test_history_records_v1_answers(app: Live) -> None:
    client(app).chat.completions.create(model="default", messages=[{"role": "user", "content": Q}])
    sessions = app.http.get("/api/sessions", headers=app.alice).json()
    messages = app.messages(sessions[0]["id"])
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == Q and messages[1]["content"] == REPLY
    assert messages[1]["referenced_indices"] == [1]


def test_a_v1_follow_up_is_titled_by_its_conversations_first_question(app: Live) -> None:
    talk: Any = [{"role": "user", "content": Q}, {"role": "assistant", "content": REPLY},
                 {"role": "user", "content": "And after that?"}]  # fmt: skip
    client(app).chat.completions.create(model="default", messages=talk)
    session = app.http.get("/api/sessions", headers=app.alice).json()[0]
    assert session["title"] == Q  # what the conversation is about, not "And after that?"
    assert app.messages(session["id"])[0]["content"] == "And after that?"  # as asked


def test_a_v1_conversation_opened_with_a_blank_message_is_titled_by_its_first_question(
    app: Live,
) -> None:
    talk: Any = [{"role": "user", "content": "   "}, {"role": "assistant", "content": "?"},
                 {"role": "user", "content": Q}, {"role": "assistant", "content": REPLY},
                 {"role": "user", "content": "And after that?"}]  # fmt: skip
    client(app).chat.completions.create(model="default", messages=talk)
    session = app.http.get("/api/sessions", headers=app.alice).json()[0]
    assert session["title"] == Q  # not an empty title


def test_bad_messages_are_422(app: Live) -> None:
    for messages in ([], [{"role": "assistant", "content": "hi"}]):
        r = app.http.post("/v1/chat/completions", json={"model": "default", "messages": messages},
                          headers=app.alice)  # fmt: skip
        assert r.status_code == 422, messages
        assert set(r.json()["error"]) == {"code", "message", "type", "param"}
        assert r.json()["error"]["type"] == "invalid_request_error"


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


# ---- errors like OpenAI's -------------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4o-mini", "Default"])
def test_unknown_model_is_404_model_not_found_and_creates_nothing(app: Live, model: str) -> None:
    c = client(app)
    with pytest.raises(openai.NotFoundError) as caught:
        c.chat.completions.create(model=model, messages=[{"role": "user", "content": Q}])
    assert caught.value.code == "model_not_found" and caught.value.param == "model"
    assert "default" in caught.value.message  # names the models there are
    with pytest.raises(openai.NotFoundError):
        c.responses.create(model=model, input=Q)
    assert model not in [m.id for m in c.models.list()]
    refusals = app.http.get("/api/admin/refusals", headers=app.admin)
    assert model not in refusals.text


def test_unsupported_parameters_are_400_naming_them(app: Live) -> None:
    c = client(app)
    messages: Any = [{"role": "user", "content": Q}]
    tool: Any = {"type": "function", "function": {"name": "f", "parameters": {}}}
    for param, kwargs in [
        ("n", {"n": 2}),
        ("tools", {"tools": [tool]}),
        ("response_format", {"response_format": {"type": "json_object"}}),
    ]:
        with pytest.raises(openai.BadRequestError) as caught:
            c.chat.completions.create(model="default", messages=messages, **kwargs)
        assert caught.value.param == param and param in caught.value.message
        assert caught.value.code == "unsupported_parameter"
    rtool: Any = {"type": "function", "name": "f", "parameters": {}}
    previous = {"previous_response_id": "resp_1"}
    for param, kwargs in [("tools", {"tools": [rtool]}), ("previous_response_id", previous)]:
        with pytest.raises(openai.BadRequestError) as caught:
            c.responses.create(model="default", input=Q, **kwargs)
        assert caught.value.param == param
    c.chat.completions.create(model="default", messages=messages, n=1, temperature=0.2)


# ---- citations where standard clients look ------------------------------------------------


def doc_url(app: Live, document_id: str) -> str:
    return f"{app.url}/api/documents/{document_id}/download"


def test_chat_annotations_point_at_markers_and_document_links(app: Live) -> None:
    c = client(app).chat.completions.create(
        model="default", messages=[{"role": "user", "content": Q}]
    )
    message = c.choices[0].message
    content = message.content or ""
    source = extra(c)["citations"]["sources"][0]
    assert message.annotations, "no annotations"
    for a in message.annotations:
        cite = a.url_citation
        assert a.type == "url_citation" and content[cite.start_index : cite.end_index] == "[1]"
        assert cite.title == "Data Retention Policy"
        assert cite.url == doc_url(app, source["document_id"])
    file = app.http.get(message.annotations[0].url_citation.url, headers=app.alice)
    assert file.status_code == 200 and b"60 days" in file.content


def test_streamed_chat_ends_like_the_whole_one_with_annotations_on_the_final_delta(
    app: Live,
) -> None:
    c = client(app)
    messages: Any = [{"role": "user", "content": Q}]
    whole = c.chat.completions.create(model="default", messages=messages).choices[0].message
    chunks = list(c.chat.completions.create(model="default", messages=messages, stream=True))
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks)
    assert text == whole.content
    final = chunks[-1].choices[0]
    assert final.finish_reason == "stop"
    assert extra(final.delta)["annotations"] == [a.model_dump() for a in whole.annotations or []]
    # the SDK's own stream helper puts it all together
    with c.chat.completions.stream(model="default", messages=messages) as stream:
        done = stream.get_final_completion().choices[0].message
    assert done.content == whole.content and done.annotations == whole.annotations


def test_sources_block_can_be_turned_off(app: Live) -> None:
    c = client(app)
    messages: Any = [{"role": "user", "content": Q}]
    off = {"sources_block": False}
    whole = c.chat.completions.create(model="default", messages=messages, extra_body=off)
    assert whole.choices[0].message.content == REPLY
    streamed = c.chat.completions.create(
        model="default", messages=messages, stream=True, extra_body=off
    )
    assert "".join(ch.choices[0].delta.content or "" for ch in streamed) == REPLY
    assert c.responses.create(model="default", input=Q, extra_body=off).output_text == REPLY


def test_streamed_refusal_is_shown_and_marked(app: Live) -> None:
    messages: Any = [{"role": "user", "content": NOT_COVERED}]
    chunks = list(client(app).chat.completions.create(model="default", messages=messages,
                                                      stream=True))  # fmt: skip
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks)
    refusal = "".join(ch.choices[0].delta.refusal or "" for ch in chunks)
    assert text.startswith("I couldn't find the answer") and refusal == text
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert extra(chunks[-1])["refusal"]["suggestions"]
    searched = extra(chunks[-1])["retrieval"]  # what was searched, though nothing answered
    assert searched["chunks_returned"] >= 1 and searched["duration_ms"] > 0


# ---- the Responses API -----------------------------------------------------------------------


def test_responses_cited_answer(app: Live) -> None:
    r = client(app).responses.create(model="default", input=Q, instructions="Be brief.")
    assert r.object == "response" and r.status == "completed" and r.instructions == "Be brief."
    assert r.output_text.startswith(REPLY + SOURCES), r.output_text
    part = r.output[0].content[0]  # type: ignore[union-attr]
    assert part.type == "output_text" and part.annotations
    source = extra(r)["citations"]["sources"][0]
    for a in part.annotations:
        assert a.type == "url_citation"
        assert r.output_text[a.start_index : a.end_index] == "[1]"
        assert a.url == doc_url(app, source["document_id"]) and a.title == source["document_title"]
    assert r.usage is not None and r.usage.output_tokens > 0
    assert extra(r)["retrieval"]["collection"] == "default"


def test_responses_takes_a_message_list(app: Live) -> None:
    conversation: Any = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! Ask about your documents."},
        {"role": "user", "content": [{"type": "input_text", "text": Q}]},
    ]
    r = client(app).responses.create(model="default", input=conversation)
    assert r.output_text.startswith(REPLY + SOURCES)


def test_responses_streamed_like_the_whole_one(app: Live) -> None:
    c = client(app)
    whole = c.responses.create(model="default", input=Q)
    events = list(c.responses.create(model="default", input=Q, stream=True))
    kinds = [e.type for e in events]
    assert kinds[:4] == ["response.created", "response.in_progress",
                         "response.output_item.added", "response.content_part.added"]  # fmt: skip
    assert kinds[-3:] == ["response.content_part.done", "response.output_item.done",
                          "response.completed"]  # fmt: skip
    assert [e.sequence_number for e in events] == list(range(1, len(events) + 1))
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == whole.output_text
    added = [e.annotation for e in events if e.type == "response.output_text.annotation.added"]
    whole_part = whole.output[0].content[0]  # type: ignore[union-attr]
    expected = [a.model_dump() for a in whole_part.annotations]  # type: ignore[union-attr]
    assert added and [a.model_dump() for a in added] == expected
    completed = events[-1].response  # type: ignore[union-attr]
    assert completed.output_text == whole.output_text
    assert extra(completed)["citations"]["referenced_indices"] == [1]
    with c.responses.stream(model="default", input=Q) as stream:
        final = stream.get_final_response()
    assert final.output_text == whole.output_text


@pytest.mark.parametrize("stream", [False, True])
def test_responses_refusal_is_shown_and_marked(app: Live, stream: bool) -> None:
    c = client(app)
    if stream:
        events = list(c.responses.create(model="default", input=NOT_COVERED, stream=True))
        r = events[-1].response  # type: ignore[union-attr]
        assert "response.refusal.done" in [e.type for e in events]
    else:
        r = c.responses.create(model="default", input=NOT_COVERED)
    assert r.output_text.startswith("I couldn't find the answer")
    kinds = [p.type for p in r.output[0].content]  # type: ignore[union-attr]
    assert kinds == ["output_text", "refusal"]
    assert r.output[0].content[1].refusal == r.output_text  # type: ignore[union-attr]
    assert extra(r)["refusal"]["suggestions"] and "citations" not in extra(r)


def test_the_docs_page_example_runs_and_shows_the_sources(app: Live) -> None:
    doc = (ROOT / "docs" / "openai.md").read_text()
    script = "\n".join(re.findall(r"```python\n(.*?)```", doc, re.S))
    token = app.alice["Authorization"].removeprefix("Bearer ")
    run = subprocess.run(
        [sys.executable, "-c", script.replace("http://127.0.0.1:8000", app.url)],
        env={**os.environ, "FOOTNOTED_TOKEN": token}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    printed = run.stdout
    assert printed.count(REPLY + SOURCES) == 3, printed  # chat, streamed, responses
    assert f"[1] Data Retention Policy {app.url}/api/documents/" in printed
    assert "url_citation Data Retention Policy" in printed
    assert "Refused: I couldn't find the answer" in printed
    assert "Feedback: open" in printed  # the first answer's source [1] flagged


def test_a_follow_up_reads_the_previous_answer_without_its_sources_block(app: Live) -> None:
    """A client sends footnoted's earlier reply back as the assistant turn, Sources block
    and all; the follow-up reads the answer, not the list of titles."""
    first: Any = [{"role": "user", "content": Q}]
    said = client(app).chat.completions.create(model="default", messages=first)
    text = said.choices[0].message.content or ""
    assert text.startswith(REPLY + SOURCES)
    before = len(app.llm.requests)
    turns: Any = [*first, {"role": "assistant", "content": text}]
    turns.append({"role": "user", "content": "And after that?"})
    client(app).chat.completions.create(model="default", messages=turns)
    sent = json.dumps(app.llm.requests[before:])
    assert "kept for 60 days" in sent and "Sources:" not in sent
    assert without_sources(text) == REPLY and without_sources("Plain: 1. A") == "Plain: 1. A"
