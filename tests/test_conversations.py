"""Follow-up questions: read in the light of the conversation, in both modes and on every
wire (the service, ``/api/chat`` sessions, ``/v1`` message lists), with the real model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from apihelpers import SSE, Api, api, mid, parse_sse
from fakellm import Script, words
from footnoted.answering.conversation import (
    CONDENSE_SYSTEM,
    Conversation,
    Exchange,
    contextual,
    standalone,
)
from footnoted.answering.question import Question
from footnoted.api.chat import session_turns
from footnoted.records import Message
from footnoted.service.facade import Footnoted
from livehelpers import Live, live

# follow-ups are decided by evidence scores that move with the reader's runtime
# (docs/conversations.md), so CI asks them at both precisions
pytestmark = pytest.mark.precision

FIRST = "How long do deleted files stay in the trash?"
FOLLOW = "And for a closed account?"
KEPT = "its data is kept for 60 days"
STANDALONE = "How long is the data of a closed account kept?"
RETENTION = "What encryption is used for files in transit?"


def test_contextual_follows_the_question_with_the_last_turn() -> None:
    history = [Exchange("first?", "old"), Exchange("second?", "An answer [1]. " + "w " * 40)]
    assert contextual("And now?", history) == "And now? second? An answer . " + " ".join(["w"] * 22)
    assert contextual("And now?", []) == "And now?"
    table = "| | 2021 | 2020 |\n| --- | --- | --- |\n| Revenue | $ 3,208 | $ 2,364 |\n\n[1]"
    read = contextual("And in 2020?", [Exchange("What was revenue in 2021?", table)])
    assert read == "And in 2020? What was revenue in 2021? Revenue $ 3,208 $ 2,364"  # no header


def test_standalone_takes_the_models_first_line() -> None:
    assert standalone('\n  "How are monthly plans refunded?"\nBecause…') == (
        "How are monthly plans refunded?"
    )
    assert standalone("Question: Who approves refunds?") == "Who approves refunds?"
    assert standalone("   \n") is None
    assert standalone("x" * 5000) is None


def message(role: str, kind: str, content: str) -> Message:
    return Message("m", "s", role, kind, content, None, None, None, "2026-01-01")  # type: ignore[arg-type]


def test_stored_messages_become_exchanges() -> None:
    stored = [
        message("user", "question", "Q1"),
        message("assistant", "answer", "A1 [1]"),
        message("user", "question", "Q2"),
        message("assistant", "refusal", "I don't have enough information"),
        message("user", "question", "Q3"),
    ]
    assert session_turns(stored) == (Exchange("Q1", "A1 [1]"), Exchange("Q2", ""), Exchange("Q3"))


def test_follow_up_is_answered_from_the_conversation(samples_service: Footnoted) -> None:
    first = samples_service.answer(FIRST)
    assert first.answer is not None
    alone = samples_service.answer(FOLLOW)
    follow = samples_service.answer(
        Question(FOLLOW, conversation=Conversation((Exchange(FIRST, first.answer.text),)))
    )
    assert alone.refused  # nothing in the question alone says what it is about
    assert follow.answer is not None and KEPT in follow.answer.text
    assert str(follow.info["standalone_question"]).startswith(f"{FOLLOW} {FIRST} Deleted files")


def test_a_follow_up_is_not_answered_by_repeating_the_previous_answer(
    samples_service: Footnoted,
) -> None:
    """The trash passage is about what the previous question asked, so it stays close in
    the second attempt; the answer it would lead with is the one just given. Another
    passage the reader believes (the closed-account rule) leads instead, and the one just
    quoted is not repeated."""
    said = "Deleted files stay in the trash for 30 days. [1]"
    follow = samples_service.answer(
        Question(FOLLOW, conversation=Conversation((Exchange(FIRST, said),)))
    )
    assert follow.answer is not None and KEPT in follow.answer.text
    assert "Deleted files stay in the trash" not in follow.answer.text


def test_a_follow_up_that_only_the_previous_answer_answers_repeats_it(
    samples_service: Footnoted,
) -> None:
    """Where no other passage is believed, the sentence already quoted answers again: it
    holds the follow-up's answer too."""
    asked = "Do Team customers get phone support?"
    first = samples_service.answer(asked)
    assert first.answer is not None and "8:00 to 18:00" in first.answer.text
    follow = samples_service.answer(
        Question(
            "During which hours?", conversation=Conversation((Exchange(asked, first.answer.text),))
        )
    )
    assert follow.answer is not None and "8:00 to 18:00" in follow.answer.text


def test_question_that_stands_alone_is_untouched(samples_service: Footnoted) -> None:
    plain = samples_service.answer(RETENTION)
    after = samples_service.answer(
        Question(RETENTION, conversation=Conversation((Exchange(FIRST, "Deleted files… [1]"),)))
    )
    assert plain.answer is not None and after.answer is not None
    assert after.answer.text == plain.answer.text
    assert "standalone_question" not in after.info


def test_unanswerable_follow_up_is_refused(samples_service: Footnoted) -> None:
    first = samples_service.answer("What did version 4.2 add?")
    assert first.answer is not None
    earlier = Conversation((Exchange("What did version 4.2 add?", first.answer.text),))
    follow = samples_service.answer(Question("When was it released?", conversation=earlier))
    assert follow.refused


# -- over the wire -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("conversations") / "home", rate_limit=0) as a:
        yield a


def test_api_chat_session_carries_the_conversation(app: Api) -> None:
    first = app.chat(FIRST, who={**app.alice, "Accept": "application/json"}).json()
    session = first["session_id"]
    r, events = app.stream(FOLLOW, session_id=session)
    assert r.status_code == 200
    start = events[0][1]
    assert start["standalone_question"].startswith(f"{FOLLOW} {FIRST}")
    text = "".join(d["text"] for e, d in events if e == "answer_delta")
    assert KEPT in text
    stored = app.client.get(f"/api/sessions/{session}/messages", headers=app.alice).json()
    assert "read_as" not in stored[1]  # the first answer was read as asked
    assert stored[3]["read_as"] == start["standalone_question"]  # kept with the answer
    # a new session knows nothing of the first: the same words are refused there
    fresh = app.chat(FOLLOW, who={**app.alice, "Accept": "application/json"}).json()
    assert fresh["type"] == "refusal"


def test_v1_reads_the_whole_message_list(app: Api) -> None:
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": FIRST},
        {"role": "assistant", "content": "Deleted files stay in the trash for 30 days [1]."},
        {"role": "user", "content": FOLLOW},
    ]
    r = app.client.post(
        "/v1/chat/completions",
        json={"model": "default", "messages": messages, "stream": False},
        headers=app.alice,
    )
    assert r.status_code == 200, r.text
    content = r.json()["choices"][0]["message"]["content"]
    assert KEPT in content
    alone = app.client.post(
        "/v1/chat/completions",
        json={"model": "default", "messages": messages[-1:]},
        headers=app.alice,
    )
    assert alone.json()["choices"][0]["message"]["refusal"]


# -- LLM mode: the condense step -----------------------------------------------------------


@pytest.fixture(scope="module")
def llm_app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("conversations-llm") / "home", rate_limit=0) as a:
        yield a


def condenser(rewrite: str, reply: str) -> Any:
    def respond(body: dict[str, Any]) -> Script:
        if body["messages"][0]["content"] == CONDENSE_SYSTEM:
            return Script(words(rewrite))
        return Script(words(reply))

    return respond


def test_llm_mode_condenses_the_follow_up_and_answers_with_the_history(llm_app: Live) -> None:
    llm_app.llm.respond = condenser(STANDALONE, "It is kept for 60 days [1].")
    try:
        first = llm_app.chat(FIRST)
        before = len(llm_app.llm.requests)
        payload = {"message": FOLLOW, "message_id": mid(), "session_id": first["session_id"]}
        r = llm_app.http.post("/api/chat", json=payload, headers={**llm_app.alice, **SSE})
        events = parse_sse(r.text)
    finally:
        llm_app.llm.respond = None
    condense, answer = llm_app.llm.requests[before:]
    asked = condense["messages"][1]["content"]
    assert f"User: {FIRST}" in asked and f"Last question: {FOLLOW}" in asked
    assert "Assistant: " in asked and "[1]" not in asked.split("Last question")[0]
    roles = [m["role"] for m in answer["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert answer["messages"][1]["content"] == FIRST
    assert f"Question: {STANDALONE}" in answer["messages"][-1]["content"]
    assert events[0][1]["standalone_question"] == STANDALONE
    sources = next(d for e, d in events if e == "sources")
    assert KEPT in sources["citations"][0]["text"]


def test_llm_down_at_the_condense_step_falls_back(llm_app: Live) -> None:
    llm_app.llm.script = Script(words("Deleted files stay in the trash for 30 days [1]."))
    first = llm_app.chat(FIRST)
    llm_app.llm.script = Script(status=503)
    try:
        payload = {"message": FOLLOW, "message_id": mid(), "session_id": first["session_id"]}
        r = llm_app.http.post("/api/chat", json=payload, headers={**llm_app.alice, **SSE})
        events = parse_sse(r.text)
    finally:
        llm_app.llm.script = Script(words("Deleted files stay in the trash for 30 days [1]."))
    names = [e for e, _ in events]
    assert "notice" in names  # the answer step reports the model is down and quotes instead
    text = "".join(d["text"] for e, d in events if e == "answer_delta")
    assert KEPT in text


def test_v1_system_message_reaches_the_model_below_the_rules(llm_app: Live) -> None:
    llm_app.llm.script = Script(words("Deleted files stay in the trash for 30 days [1]."))
    messages = [
        {"role": "system", "content": "Answer in one short sentence."},
        {"role": "user", "content": FIRST},
    ]
    r = llm_app.http.post(
        "/v1/chat/completions",
        json={"model": "default", "messages": messages},
        headers=llm_app.alice,
    )
    assert r.status_code == 200, r.text
    sent = llm_app.llm.last_prompt()
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert "You answer questions using only the numbered sources" in sent[0]["content"]
    assert sent[1]["content"].endswith("Answer in one short sentence.")
    assert "cannot change" in sent[1]["content"]
