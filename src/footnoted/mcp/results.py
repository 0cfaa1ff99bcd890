"""What an MCP tool returns: text a host shows its user and model, and the same as data.

An answer's text is the answer with its ``[N]`` markers, then ``Sources:`` with, for each
cited source, its title, page and section, its link and the quoted passage. A refusal's
text starts with ``REFUSED:`` and its data says ``"refused": true``: a host (and the model
reading it) can tell that the documents do not hold the answer. ``search`` returns the
passages best first, each with the same citation fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ..answering.citations import location
from ..models import Citation, Span

REFUSED = "REFUSED: the documents do not hold the answer."


class Cited(BaseModel):
    """One source: where it is (title, page, section, link) and the words quoted."""

    title: str
    page: int | None = Field(description="1-based page, when the document has pages.")
    section: str | None = Field(description="Heading path, e.g. 'Refunds > Annual plans'.")
    link: str | None = Field(description="The document's link (footnoted's, else its URL).")
    quote: str = Field(description="The passage's words.")
    document_id: str
    score: float = Field(description="Retrieval relevance, 0..1.")


class Source(Cited):
    index: int = Field(description="The N of the answer's [N] markers.")


class Passage(Cited):
    rank: int
    chunk_id: str


class AskResult(BaseModel):
    type: Literal["answer", "refusal"]
    message_id: str | None = Field(
        default=None,
        description="The answer's id in the user's history (the server's /mcp): what "
        "`feedback` names.",
    )
    refused: bool = Field(description="True when the documents do not hold the answer.")
    answer: str | None = Field(description="The answer, its [N] markers naming sources.")
    sources: list[Source]
    confidence: float | None = Field(
        description="How likely the answer is right, 0..1, calibrated on real documents."
    )
    label: Literal["grounded", "partly", "weak"] | None = Field(
        description="How the answer is shown: grounded (answers like it were right at least "
        "97% of the time on the real-document development set), partly, or weak."
    )
    message: str | None = Field(description="A refusal's sentence.")
    suggestions: list[str]
    evidence: dict[str, Any] | None = Field(description="A refusal's best score and threshold.")


class FeedbackResult(BaseModel):
    id: str
    kind: str
    status: str


def noted(item: dict[str, Any]) -> CallToolResult:
    """The ``feedback`` tool's result: what was recorded."""
    data = FeedbackResult(id=item["id"], kind=item["kind"], status=item["status"])
    text = f"Recorded: {data.kind} (feedback {data.id}); the admins see it in their queue."
    return _result(text, data)


class SearchResult(BaseModel):
    collection: str
    threshold: float = Field(description="The evidence threshold answers need.")
    passages: list[Passage]


def _cited(c: Citation, quote: str) -> dict[str, Any]:
    link = c.download_url or c.url or None
    return {
        "title": c.document_title,
        "page": c.page,
        "section": c.section,
        "link": link,
        "quote": quote,
        "document_id": c.document_id,
        "score": c.score,
    }


def _quote(c: Citation, spans: Sequence[Span]) -> str:
    """The sentences the answer rests on (its spans in this source), else the excerpt."""
    parts = [
        c.text[s.doc_start - c.char_start : s.doc_end - c.char_start].strip()
        for s in spans
        if s.index == c.index and c.char_start <= s.doc_start < s.doc_end <= c.char_end
    ]
    return " … ".join(dict.fromkeys(p for p in parts if p)) or c.excerpt


def _lines(n: int, c: Citation, cited: Cited) -> list[str]:
    """``[N] Title — Page 3, Section …``, the link and the quote, for the text."""
    where = location(c)
    lines = [f"[{n}] {cited.title}" + (f" — {where}" if where else "")]
    if cited.link:
        lines.append(f"    {cited.link}")
    lines.append(f'    "{" ".join(cited.quote.split())}"')
    return lines


def _result(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=data.model_dump(mode="json"),
    )


def answered(payload: dict[str, Any]) -> CallToolResult:
    """``/api/chat``'s JSON answer as the ``ask`` tool's result."""
    citations = [Citation.from_dict(c) for c in payload.get("citations") or []]
    spans = [Span(**s) for s in payload.get("spans") or []]
    by_index = {c.index: c for c in citations}
    used = [by_index[n] for n in payload.get("referenced_indices") or [] if n in by_index]
    sources = [Source(index=c.index, **_cited(c, _quote(c, spans))) for c in used]
    grounding = payload.get("grounding") or {}
    data = AskResult(
        type="answer",
        message_id=payload.get("message_id"),
        refused=False,
        answer=str(payload["answer"]),
        sources=sources,
        confidence=grounding.get("confidence"),
        label=grounding.get("label"),
        message=None,
        suggestions=[],
        evidence=None,
    )
    lines = [str(payload["answer"])]
    if sources:
        lines += ["", "Sources:"]
        for c, s in zip(used, sources, strict=True):
            lines += _lines(s.index, c, s)
    return _result("\n".join(lines), data)


def refused(payload: dict[str, Any]) -> CallToolResult:
    """``/api/chat``'s JSON refusal as the ``ask`` tool's result: marked, never an answer."""
    evidence = dict(payload.get("evidence") or {})
    data = AskResult(
        type="refusal",
        message_id=payload.get("message_id"),
        refused=True,
        answer=None,
        sources=[],
        confidence=None,
        label=None,
        message=str(payload["message"]),
        suggestions=list(payload.get("suggestions") or []),
        evidence=evidence,
    )
    lines = [REFUSED, str(payload["message"])]
    elsewhere = [str(c) for c in payload.get("elsewhere") or []]
    if elsewhere:
        lines.append(
            f"Passages that answer it are in another collection: {', '.join(elsewhere)} "
            "(ask again with that collection)."
        )
    if evidence.get("max_score") is not None:
        lines.append(
            f"(best match {evidence['max_score']:.2f}, threshold {evidence['threshold']:.2f})"
        )
    return _result("\n".join(lines), data)


def reply(payload: dict[str, Any]) -> CallToolResult:
    return refused(payload) if payload.get("type") == "refusal" else answered(payload)


def found(collection: str, threshold: float, citations: Sequence[Citation]) -> CallToolResult:
    """The ``search`` tool's result: the passages, best first."""
    passages = [
        Passage(rank=i, chunk_id=c.chunk_id, **_cited(c, c.text))
        for i, c in enumerate(citations, 1)
    ]
    data = SearchResult(collection=collection, threshold=threshold, passages=passages)
    if not passages:
        return _result(f"No passages: the collection {collection!r} is empty.", data)
    lines = [f"{len(passages)} passages from {collection!r}, best first:"]
    for c, p in zip(citations, passages, strict=True):
        lines += ["", *_lines(p.rank, c, p), f"    (relevance {p.score:.2f})"]
    return _result("\n".join(lines), data)
