"""Rows to records, and the not-found errors, shared by every backend.

SQLite's ``sqlite3.Row`` and psycopg's dict rows both read a column by name; the
columns and their stored forms (text timestamps, JSON text) are the same on both.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Protocol

from ..errors import NotFound
from ..models import Chunk, Document
from ..records import ChatSession, Message, RefusalEntry, User
from .encoding import loads


class Row(Protocol):
    def __getitem__(self, key: str, /) -> Any: ...


class Cancelled(Exception):
    """The client left before the reply was stored: write nothing."""


def document_from(row: Row) -> Document:
    data = {f.name: row[f.name] for f in fields(Document)}
    data["enabled"] = bool(data["enabled"])
    return Document(**data)


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
    )


def user_from(row: Row) -> User:
    return User(row["id"], row["name"], bool(row["is_admin"]), row["created_at"])


def session_from(row: Row) -> ChatSession:
    return ChatSession(
        row["id"], row["user_id"], row["title"], row["created_at"], row["updated_at"]
    )


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


def no_session(session_id: str) -> NotFound:
    return NotFound(f"No session with id {session_id!r}.", code="session_not_found")
