"""Feedback: users say whether an answer helped and flag cited sources; admins work
through the queue; the queue exports as questions of ``footnoted eval docs``.

A word is given on a stored answer (the user's own chat request, by its ``message_id``):
``helpful`` or ``unhelpful`` on the answer, ``does_not_say`` or ``wrong_page`` on one of
its cited sources. It may carry a note and a correction: what the right answer contains
(``answer``), where it is written (``document_id``, ``page``, ``section``), or that the
documents do not answer the question at all (``unanswerable``). The question, the answer
and the flagged passage are kept as they were shown.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, NotFound
from ..records import ANSWER_VERDICTS, SOURCE_FLAGS, Actor, Feedback, FeedbackKind, User
from ..stores.base import Store

PASSAGE_FIELDS = (
    "index", "document_id", "document_title", "chunk_id", "page", "section", "text",
    "excerpt", "char_start", "char_end",
)  # fmt: skip
_WHY_HOW = re.compile(r"^(why|how)\b(?! (much|many|long|old|often|far|big|large|soon)\b)", re.I)
_DEFINITION = re.compile(
    r"^(what (is|are|was|were) (a|an|the)?\b|what does .+ (mean|stand for)|define\b)", re.I
)
_DIGIT = re.compile(r"\d")


def give(
    store: Store,
    user: User,
    message_id: str,
    kind: FeedbackKind,
    citation: int | None = None,
    note: str = "",
    correction: dict[str, Any] | None = None,
) -> Feedback:
    """Record ``user``'s word on their answer ``message_id``; ``NotFound`` when it is not
    theirs, ``InvalidInput`` when the word does not fit the answer."""
    exchange = store.chat_exchange(user.id, message_id)
    reply = exchange.reply
    if kind in SOURCE_FLAGS and citation is None:
        raise InvalidInput(f"{kind!r} flags a source: name its citation.", code="citation_required")
    if kind in ANSWER_VERDICTS and citation is not None:
        raise InvalidInput(
            f"{kind!r} is said of the answer, not of one source: leave out citation.",
            code="citation_not_allowed",
        )
    passage = None
    if citation is not None:
        cited = {int(c["index"]): c for c in reply.citations or []}
        if citation not in cited:
            raise InvalidInput(
                f"The answer has no source [{citation}]"
                + (f" (its sources: {', '.join(map(str, sorted(cited)))})." if cited else "."),
                code="citation_not_found",
            )
        passage = _passage(cited[citation], reply.spans or [])
    item = Feedback(
        id=uuid.uuid4().hex,
        kind=kind,
        user_id=user.id,
        user_name=user.name,
        message_id=message_id,
        session_id=reply.session_id,
        collection=exchange.collection,
        question=exchange.question.content,
        answer=reply.content,
        answer_type=reply.type,
        citation=citation,
        passage=passage,
        note=note.strip(),
        correction=_correction(store, correction),
        created_at="",
    )
    return store.save_feedback(item, Actor("api", user.name))


def _passage(citation: dict[str, Any], spans: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The cited source as it was shown: its fields, the answer's spans in it and the
    words they quote (``quote``; the excerpt when the answer quoted none of it)."""
    mine = [s for s in spans if s.get("index") == citation.get("index")]
    text, start = str(citation.get("text") or ""), int(citation.get("char_start") or 0)
    quoted = [text[int(s["doc_start"]) - start : int(s["doc_end"]) - start].strip() for s in mine]
    return {
        **{k: citation.get(k) for k in PASSAGE_FIELDS},
        "spans": mine,
        "quote": " … ".join(dict.fromkeys(q for q in quoted if q)) or citation.get("excerpt"),
    }


def _correction(store: Store, correction: dict[str, Any] | None) -> dict[str, Any] | None:
    """The correction with empty fields dropped and its document named (title and file)."""
    if not correction:
        return None
    kept = {k: v for k, v in correction.items() if v not in (None, "", False)}
    if kept.get("unanswerable") and ({"answer", "document_id", "page", "section"} & kept.keys()):
        raise InvalidInput(
            "A question the documents do not answer has no answer or place.",
            code="correction_conflict",
        )
    document_id = kept.get("document_id")
    if document_id is not None:
        try:
            document = store.get_document(str(document_id))
        except NotFound as exc:
            raise InvalidInput(
                f"No document with id {document_id!r}.", code="document_not_found"
            ) from exc
        kept["document_title"] = document.title
        kept["source"] = document.source
    return kept or None


# -- export as questions of ``footnoted eval docs`` ---------------------------------------


@dataclass(frozen=True, slots=True)
class Export:
    """The exported questions, and how many items could not be (no correction to grade)."""

    questions: list[dict[str, Any]]
    left_out: int


def export_questions(store: Store, items: Iterable[Feedback], root: Path | None = None) -> Export:
    """Each item with a correction as a question of ``footnoted eval docs``: ``answer``
    the phrase the user says the right answer contains (null: the documents do not answer
    it), ``doc`` the document's file (relative to ``root`` when under it), ``pages`` or
    ``section`` where it is written, ``kind`` guessed from the question, and ``split`` a
    stable half by the question's hash. The newest word on a question wins."""
    out: dict[str, dict[str, Any]] = {}
    left_out = 0
    for f in items:
        row = _question(store, f, root)
        if row is None:
            left_out += 1
        elif row["question"] not in out:
            out[row["question"]] = row
    return Export(list(out.values()), left_out)


def _question(store: Store, f: Feedback, root: Path | None) -> dict[str, Any] | None:
    c = f.correction or {}
    unanswerable = bool(c.get("unanswerable"))
    if not unanswerable and not c.get("answer"):
        return None
    source = c.get("source") or _cited_source(store, f)
    row: dict[str, Any] = {
        "id": f"feedback-{f.id}",
        "question": f.question,
        "answer": None if unanswerable else str(c["answer"]),
        "doc": _relative(source, root) if source else "",
        "kind": "unanswerable" if unanswerable else guess_kind(f.question, str(c["answer"])),
        "split": split_of(f.question),
    }
    if c.get("page") is not None:
        row["pages"] = [int(c["page"])]
    if c.get("section"):
        row["section"] = str(c["section"])
    return row


def _cited_source(store: Store, f: Feedback) -> str | None:
    """The file of the flagged passage's document (a word on a source), if still there."""
    document_id = (f.passage or {}).get("document_id")
    if not document_id:
        return None
    try:
        return store.get_document(str(document_id)).source
    except NotFound:
        return None


def _relative(source: str, root: Path | None) -> str:
    path = Path(source)
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def guess_kind(question: str, answer: str) -> str:
    """The eval's kind of an answerable question: why-how, definition, number or fact."""
    q = question.strip()
    if _WHY_HOW.match(q):
        return "why-how"
    if _DEFINITION.match(q):
        return "definition"
    return "number" if _DIGIT.search(answer) else "fact"


def split_of(question: str) -> str:
    """A stable half: the same question always lands in the same split."""
    digest = hashlib.sha256(" ".join(question.lower().split()).encode()).digest()
    return "report" if digest[0] % 2 else "tune"


def as_jsonl(questions: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
