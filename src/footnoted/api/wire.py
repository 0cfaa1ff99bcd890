"""The wire: what clients receive for an answer, in one place.

``frame`` is the one table from an answering event (``footnoted.models.Event``) to its
server-sent event: a name and a JSON object. The live ``/api/chat`` stream sends its
frames, a stored answer is replayed by turning it back into events and framing those
(``replay_frames``), and ``/v1`` reads the same frames (``compat/stream.py``). The JSON
answer and refusal objects of the ``/api/chat`` contract (docs/api.md) are built here
too; the CLI's ``--json`` and the local MCP tool print the same objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..answering.citations import Answer, answer_markdown, escape_markdown_html
from ..answering.llm.client import GenerationInterrupted
from ..answering.pipeline import AskResult, plain_text, split_deltas
from ..answering.question import Question
from ..models import (
    Citation,
    Delta,
    Done,
    Event,
    Failed,
    Notice,
    Refusal,
    Sources,
    Span,
    Started,
)

if TYPE_CHECKING:
    from ..service.facade import Footnoted

Frame = tuple[str, dict[str, Any]]  # an SSE event's name and its JSON data

UNAVAILABLE = "generation_unavailable"  # the code of a stored answer's notice
INTERRUPTED = "The answer stopped part-way; this is what was written before it did."


def frame(event: Event, ids: Mapping[str, str | None]) -> Frame:
    """The SSE frame of ``event`` in the reply that ``ids`` (session and message) name."""
    match event:
        case Started(warning=warning, retrieval=retrieval):
            start: dict[str, Any] = dict(ids)
            if warning:
                start["warning"] = warning
            if retrieval and "standalone_question" in retrieval:  # a follow-up, read anew
                start["standalone_question"] = retrieval["standalone_question"]
            return "answer_start", start
        case Notice(code=code, message=message):
            return "notice", {"code": code, "message": message}
        case Delta(text=text):
            return "answer_delta", {"text": text}
        case Sources():
            return "sources", sources_data(event)
        case Refusal():
            shown = refusal_payload(event)
            del shown["type"]
            return "refusal", shown
        case Failed(code=code, message=message):
            return "error", {"code": code, "message": message}
        case Done():
            return "answer_end", dict(ids)


def sources_data(sources: Sources) -> dict[str, Any]:
    data: dict[str, Any] = {
        "citations": [c.to_dict() for c in sources.citations],
        "referenced_indices": list(sources.referenced_indices),
        "spans": [s.to_dict() for s in sources.spans],
    }
    if sources.grounding is not None:
        data["grounding"] = dict(sources.grounding)
    return data


def stored_events(payload: dict[str, Any]) -> list[Event]:
    """A stored answer object as the events that first sent it."""
    events: list[Event] = [Started(payload.get("warning"))]
    if payload.get("notice"):
        events.append(Notice(UNAVAILABLE, payload["notice"]))
    answer = str(payload["answer"])
    events += [Delta(text) for text in split_deltas(answer)]
    if "citations" in payload:
        events.append(
            Sources(
                tuple(Citation.from_dict(c) for c in payload["citations"]),
                tuple(payload["referenced_indices"]),
                tuple(Span(**s) for s in payload.get("spans", ())),
                payload.get("grounding"),
            )
        )
    if payload.get("incomplete"):
        events.append(Failed(GenerationInterrupted.code, INTERRUPTED))
    else:
        events.append(Done(answer))
    return events


def replay_frames(payload: dict[str, Any]) -> list[Frame]:
    """The SSE frames of a stored answer, as they were first sent."""
    ids = {"session_id": payload.get("session_id"), "message_id": payload.get("message_id")}
    return [frame(event, ids) for event in stored_events(payload)]


def refusal_payload(refusal: Refusal) -> dict[str, Any]:
    """The JSON refusal object of the ``/api/chat`` contract."""
    payload: dict[str, Any] = {
        "type": "refusal",
        "message": refusal.message,
        "suggestions": list(refusal.suggestions),
        "evidence": refusal.evidence.to_dict(),
    }
    if refusal.elsewhere:
        payload["elsewhere"] = list(refusal.elsewhere)
    return payload


def answer_payload(
    answer: Answer,
    *,
    session_id: str | None = None,
    message_id: str | None = None,
    include_citations: bool = True,
    warning: str | None = None,
    notice: str | None = None,
) -> dict[str, Any]:
    """The JSON answer object of the ``/api/chat`` contract."""
    payload: dict[str, Any] = {
        "type": "answer",
        "session_id": session_id,
        "message_id": message_id,
        "answer": answer.text,
    }
    if include_citations:
        payload["answer_markdown"] = answer_markdown(answer)
        payload["citations"] = [c.to_dict() for c in answer.citations]
        payload["referenced_indices"] = list(answer.referenced)
        payload["spans"] = [s.to_dict() for s in answer.spans]
        payload["citation_map"] = {
            str(c.index): {
                "text": c.text[:500],
                "source": c.url or c.document_title,
                "title": c.document_title,
                "score": c.score,
                "metadata": {"page": c.page, "section": c.section},
            }
            for c in answer.citations
        }
        if answer.grounding is not None:
            payload["grounding"] = dict(answer.grounding)
    else:
        plain = plain_text(answer)
        payload["answer"] = plain
        payload["answer_markdown"] = escape_markdown_html(plain)
    if warning:
        payload["warning"] = warning
    if notice:
        payload["notice"] = notice
    return payload


def result_payload(result: AskResult) -> dict[str, Any]:
    """The answer or refusal object of a whole answer (``Footnoted.answer``)."""
    if result.refusal is not None:
        return refusal_payload(result.refusal)
    assert result.answer is not None
    return answer_payload(
        result.answer, include_citations=result.cite, warning=result.warning,
        notice=result.notice,
    )  # fmt: skip


def answer_here(service: Footnoted, question: str, collection: str | None) -> dict[str, Any]:
    """``/api/chat``'s JSON answer or refusal, answered in this process (a refusal is
    logged): what ``footnoted ask --json`` and the local MCP tool return."""
    result = service.answer(Question(question, collection))
    if result.refusal is not None:
        service.log_refusal(question, collection, result.refusal)
    return result_payload(result)
