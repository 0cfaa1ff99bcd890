"""The wire: one frame per answering event, used live, on replay and by the web UI."""

from __future__ import annotations

import re
from pathlib import Path

from footnoted import Footnoted
from footnoted.answering.citations import Answer
from footnoted.api.wire import (
    INTERRUPTED,
    UNAVAILABLE,
    answer_payload,
    frame,
    replay_frames,
    result_payload,
)
from footnoted.models import Delta, Done, Event, Failed, Notice, Refusal, Sources, Started

IDS = {"session_id": "s1", "message_id": "m1"}
CHAT_JS = Path(__file__).resolve().parents[1] / "src" / "footnoted" / "web" / "chat.js"


def streamed(service: Footnoted, question: str) -> tuple[list[Event], Answer]:
    events = list(service.ask(question))
    sources = next(e for e in events if isinstance(e, Sources))
    text = "".join(e.text for e in events if isinstance(e, Delta))
    answer = Answer(
        text, sources.citations, sources.referenced_indices, sources.spans, sources.grounding
    )
    return events, answer


def test_a_stored_answer_replays_frame_for_frame(samples_service: Footnoted) -> None:
    events, answer = streamed(samples_service, "How are annual plans refunded?")
    live = [frame(event, IDS) for event in events]
    assert [name for name, _ in live][:1] == ["answer_start"]
    assert [name for name, _ in live][-2:] == ["sources", "answer_end"]
    assert replay_frames(answer_payload(answer, **IDS)) == live


def test_a_warning_a_notice_and_a_broken_off_answer_replay_too(
    samples_service: Footnoted,
) -> None:
    events, answer = streamed(samples_service, "How long are audit logs kept on the Team plan?")
    deltas = [e for e in events if isinstance(e, Delta)]
    sources = next(e for e in events if isinstance(e, Sources))
    warned: list[Event] = [
        Started("Answering from 3 of 4 documents."),
        Notice(UNAVAILABLE, "The language model is unavailable: an extractive answer follows."),
        *deltas,
        sources,
        Done(answer.text),
    ]
    payload = answer_payload(
        answer, warning="Answering from 3 of 4 documents.",
        notice="The language model is unavailable: an extractive answer follows.", **IDS,
    )  # fmt: skip
    assert replay_frames(payload) == [frame(event, IDS) for event in warned]
    broken = {**answer_payload(Answer(deltas[0].text, (), (), ()), **IDS), "incomplete": True}
    broken.pop("citations")
    assert replay_frames(broken)[-1] == (
        "error",
        {"code": "generation_interrupted", "message": INTERRUPTED},
    )


def test_a_refusal_frame_is_the_json_refusal_without_its_type(samples_service: Footnoted) -> None:
    (refusal,) = samples_service.ask("What is the boiling point of mercury?")
    assert isinstance(refusal, Refusal)
    name, data = frame(refusal, IDS)
    result = samples_service.answer("What is the boiling point of mercury?")
    assert name == "refusal"
    assert {"type": "refusal", **data} == result_payload(result)
    assert data["evidence"]["reason"] and data["message"]


def test_the_web_ui_handles_every_event_the_api_sends() -> None:
    sent = {
        frame(event, IDS)[0]
        for event in (
            Started(),
            Notice(UNAVAILABLE, "n"),
            Delta("d"),
            Sources((), (), ()),
            Failed("internal_error", "f"),
            Done(""),
        )
    }
    handled = set(re.findall(r'name === "(\w+)"', CHAT_JS.read_text(encoding="utf-8")))
    assert sent | {"refusal"} <= handled
    assert handled - sent == {"refusal"}  # and nothing it waits for is never sent
