"""Rows to records, and the not-found errors, shared by every backend.

SQLite's ``sqlite3.Row`` and psycopg's dict rows both read a column by name; the
columns and their stored forms (text timestamps, JSON text) are the same on both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any, Protocol

from ..errors import NotFound
from ..models import Chunk, Document, DocumentVersion, Progress
from ..records import ChatSession, Feedback, Message, RefusalEntry, User
from .base import StoredChunk, Vector
from .encoding import dumps, loads, now, unpack_sentences


class Row(Protocol):
    def __getitem__(self, key: str, /) -> Any: ...


class Cancelled(Exception):
    """The client left before the reply was stored: write nothing."""


VERSION_FIELDS = (
    "document_id", "version", "collection", "title", "source", "kind", "content_hash",
    "page_count", "created_at", "ended_at", "ended_by",
)  # fmt: skip


def document_from(row: Row) -> Document:
    data = {f.name: row[f.name] for f in fields(Document)}
    data["enabled"] = bool(data["enabled"])
    return Document(**data)


# A processing document's progress, in either dialect (``param``: its placeholder). The
# upsert writes nothing for a document that is no longer processing (a late worker).
PROGRESS_QUERY = (
    "SELECT p.document_id, p.stage, p.done, p.total FROM document_progress p "
    "JOIN documents d ON d.id = p.document_id AND d.status = 'processing'"
)


def progress_upsert(param: str) -> str:
    values = ", ".join([param] * 4)
    return (
        "INSERT INTO document_progress (document_id, stage, done, total, updated_at) "
        f"SELECT id, {values} FROM documents WHERE id = {param} AND status = 'processing' "
        f"AND job = {param} "
        "ON CONFLICT (document_id) DO UPDATE SET stage = excluded.stage, "
        "done = excluded.done, total = excluded.total, updated_at = excluded.updated_at"
    )


def progress_params(document_id: str, progress: Progress, job: str) -> tuple[Any, ...]:
    return (progress.stage, progress.done, progress.total, now(), document_id, job)


def progress_by_document(rows: Sequence[Row]) -> dict[str, Progress]:
    return {r["document_id"]: Progress(r["stage"], r["done"], r["total"]) for r in rows}


def chunk_from(row: Row) -> Chunk:
    return Chunk(
        id=row["id"],
        document_id=row["document_id"],
        index=row["idx"],
        text=row["text"],
        char_start=row["char_start"],
        char_end=row["char_end"],
        page=row["page"],
        section=row["section"],
        token_count=row["token_count"],
        header=row["header"],
        rows=tuple((int(a), int(n)) for a, n in loads(row["rows"]) or ()),
    )


def rows_json(chunk: Chunk) -> str | None:
    """A chunk's spreadsheet rows as stored (None: not a sheet's)."""
    return dumps([list(r) for r in chunk.rows]) if chunk.rows else None


def keyword_context(chunk: Chunk) -> str:
    """What keyword search reads beside a chunk's text: its section path and its table's
    header row."""
    return " ".join(filter(None, (chunk.section, chunk.header)))


def stored_chunks(
    rows: Sequence[Row], vectors: Sequence[Vector], chunk_ids: Sequence[str]
) -> list[StoredChunk]:
    """Fetched chunk rows (with ``document_title``, ``document_url`` and
    ``sentence_embeddings``) and their decoded vectors, in the order of ``chunk_ids``."""
    dim = len(vectors[0]) if len(vectors) else 0
    sentences = unpack_sentences([r["sentence_embeddings"] for r in rows], dim)
    by_id = {
        r["id"]: StoredChunk(
            chunk=chunk_from(r),
            document_title=r["document_title"],
            document_url=r["document_url"],
            vector=vector,
            sentences=sentence_vectors,
            document_version=r["document_version"],
        )
        for r, vector, sentence_vectors in zip(rows, vectors, sentences, strict=True)
    }
    return [by_id[i] for i in chunk_ids if i in by_id]


def user_from(row: Row) -> User:
    return User(
        row["id"], row["name"], bool(row["is_admin"]), row["created_at"], bool(row["is_owner"]),
        row["email"],
    )  # fmt: skip


def session_from(row: Row) -> ChatSession:
    return ChatSession(
        row["id"], row["user_id"], row["title"], row["created_at"], row["updated_at"],
        row["origin"],
    )  # fmt: skip


def message_from(row: Row) -> Message:
    return Message(
        id=row["id"],
        session_id=row["session_id"],
        role=row["role"],
        type=row["type"],
        content=row["content"],
        citations=loads(row["citations"]),
        referenced_indices=loads(row["referenced_indices"]),
        spans=loads(row["spans"]),
        created_at=row["created_at"],
        grounding=loads(row["grounding"]),
        incomplete=bool(row["incomplete"]),
        refusal=loads(row["refusal"]),
        message_id=row["request_id"],
        read_as=row["read_as"],
    )


def feedback_from(row: Row) -> Feedback:
    return Feedback(
        id=row["id"],
        kind=row["kind"],
        user_id=row["user_id"],
        user_name=row["user_name"],
        message_id=row["message_id"],
        session_id=row["session_id"],
        collection=row["collection"],
        question=row["question"],
        answer=row["answer"],
        answer_type=row["answer_type"],
        citation=row["citation"],
        passage=loads(row["passage"]),
        note=row["note"],
        correction=loads(row["correction"]),
        created_at=row["created_at"],
        status=row["status"],
        resolved_by=row["resolved_by"],
        resolved_at=row["resolved_at"],
        resolution=row["resolution"],
    )


def refusal_from(row: Row) -> RefusalEntry:
    """A refusal-log row joined with its user's name (``user_name``)."""
    return RefusalEntry(
        question=row["question"],
        collection=row["collection"],
        max_score=row["max_score"],
        threshold=row["threshold"],
        reason=row["reason"],
        user_name=row["user_name"],
        created_at=row["created_at"],
        id=row["id"],
    )


def no_document(document_id: str) -> NotFound:
    return NotFound(f"No document with id {document_id!r}.", code="document_not_found")


def no_version(document_id: str, version: int) -> NotFound:
    return NotFound(
        f"Version {version} of document {document_id!r} is not kept.", code="version_not_found"
    )


def version_from(
    row: Row | DocumentVersion, text: str = "", layout: str | list[list[Any]] | None = None
) -> DocumentVersion:
    """A version from its row (``VERSION_COLUMNS``), or a version given its text and
    layout (a JSON string as stored, or the list)."""
    if isinstance(row, DocumentVersion):
        base = row
    else:
        base = DocumentVersion(**{f: row[f] for f in VERSION_FIELDS})
    places = loads(layout) if isinstance(layout, str) else (layout or [])
    return replace(
        base,
        text=text,
        layout=tuple((int(a), int(b), p, s) for a, b, p, s in places),
    )


def no_session(session_id: str) -> NotFound:
    return NotFound(f"No session with id {session_id!r}.", code="session_not_found")
