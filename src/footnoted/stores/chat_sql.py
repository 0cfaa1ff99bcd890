"""Chat sessions, messages and the idempotency claims of chat requests: one SQL
implementation for both backends (``sql.py``).

Every query names the user, and every transaction is opened for that user: on
PostgreSQL row-level security then hides other users' sessions, messages and claims
even from a query that forgot its ``user_id`` condition. A claim is taken under a lock
on ``(user, message_id)`` (the primary key keeps it unique either way).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from ..errors import NotFound
from ..records import (
    ChatExchange,
    ChatSession,
    Claim,
    Message,
    NewMessage,
    Origin,
    RefusalEntry,
)
from .base import StaleFn
from .encoding import dumps, loads, now
from .rows import Cancelled, message_from, no_session, session_from
from .sql import SQL, Conn


class ChatSQL(SQL):
    # -- idempotent chat requests --------------------------------------------------------
    def claim_chat(
        self,
        user_id: str,
        message_id: str,
        message: str,
        session_id: str | None,
        title: str,
        owner: str,
        stale: StaleFn,
        origin: Origin = "api",
    ) -> Claim:
        """Claim ``(user, message_id)`` under its advisory lock (the primary key keeps it unique).

        A new request without a session gets a new (still empty) session of ``origin``; a
        session that is not the user's raises ``NotFound``.
        """
        with self._writing(user_id) as db:
            self._lock(db, "chat", user_id, message_id)
            row = self._run(
                db,
                "SELECT * FROM chat_requests WHERE user_id = ? AND message_id = ?",
                (user_id, message_id),
            ).fetchone()
            if row is not None:
                return self._reclaim(db, row, message, (title, origin), owner, stale)
            if session_id is None:
                session_id = self._new_session(db, user_id, title, origin)
            elif not self._owns(db, user_id, session_id):
                raise no_session(session_id)
            self._run(
                db,
                "INSERT INTO chat_requests (user_id, message_id, session_id, message, status, "
                "owner, claimed_at) VALUES (?, ?, ?, ?, 'in_progress', ?, ?)",
                (user_id, message_id, session_id, message, owner, time.time()),
            )
        return Claim("new", session_id)

    def _reclaim(
        self,
        db: Conn,
        row: Any,
        message: str,
        new: tuple[str, Origin],
        owner: str,
        stale: StaleFn,
    ) -> Claim:
        session_id = str(row["session_id"])
        if row["message"] != message:
            return Claim("mismatch", session_id)
        if row["status"] == "done":
            return Claim("replay", session_id, loads(row["payload"]))
        if row["status"] == "in_progress" and not stale(row["owner"], row["claimed_at"]):
            return Claim("busy", session_id)
        self._run(
            db,
            "UPDATE chat_requests SET status = 'in_progress', owner = ?, claimed_at = ? "
            "WHERE user_id = ? AND message_id = ?",
            (owner, time.time(), row["user_id"], row["message_id"]),
        )
        if not self._owns(db, row["user_id"], session_id):  # deleted meanwhile: start anew
            self._insert_session(db, session_id, row["user_id"], *new)
        return Claim("new", session_id)

    def _new_session(self, db: Conn, user_id: str, title: str, origin: Origin) -> str:
        session_id = uuid.uuid4().hex
        self._insert_session(db, session_id, user_id, title, origin)
        return session_id

    def _insert_session(
        self, db: Conn, session_id: str, user_id: str, title: str, origin: Origin
    ) -> None:
        stamp = now()
        self._run(
            db,
            "INSERT INTO sessions (id, user_id, title, created_at, updated_at, origin) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, user_id, title, stamp, stamp, origin),
        )

    def _owns(self, db: Conn, user_id: str, session_id: str) -> bool:
        row = self._run(
            db, "SELECT 1 FROM sessions WHERE id = ? AND user_id = ?", (session_id, user_id)
        ).fetchone()
        return row is not None

    def complete_chat(
        self,
        user_id: str,
        message_id: str,
        session_id: str,
        messages: tuple[NewMessage, NewMessage],
        payload: dict[str, Any],
        refusal: RefusalEntry | None,
        cancelled: Callable[[], bool] = lambda: False,
        collection: str | None = None,
    ) -> bool:
        """Store the question and its reply (and the collection it asked), and mark the
        request done, in one transaction.

        Returns False (and writes nothing) when ``cancelled()`` says the client left.
        """
        try:
            with self._writing(user_id) as db:
                self._lock(db, "chat", user_id, message_id)
                if cancelled():
                    raise Cancelled
                self._store_reply(db, user_id, message_id, session_id, messages, payload)
                self._run(
                    db,
                    "UPDATE chat_requests SET collection = ? WHERE user_id = ? AND message_id = ?",
                    (collection, user_id, message_id),
                )
                if refusal is not None:
                    self._insert_refusal(db, refusal, user_id)
        except Cancelled:
            return False
        return True

    def _store_reply(
        self,
        db: Conn,
        user_id: str,
        message_id: str,
        session_id: str,
        messages: tuple[NewMessage, NewMessage],
        payload: dict[str, Any],
    ) -> None:
        stamp = now()
        for m in messages:
            self._run(
                db,
                "INSERT INTO messages (id, session_id, user_id, request_id, role, type, "
                "content, citations, referenced_indices, spans, created_at, grounding, "
                "incomplete, refusal, read_as) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    uuid.uuid4().hex, session_id, user_id, message_id, m.role, m.type,
                    m.content, dumps(m.citations), dumps(m.referenced_indices),
                    dumps(m.spans), stamp, dumps(m.grounding), m.incomplete,
                    dumps(m.refusal), m.read_as,
                ),
            )  # fmt: skip
        self._run(
            db,
            "UPDATE sessions SET message_count = message_count + 2, updated_at = ? WHERE id = ?",
            (stamp, session_id),
        )
        self._run(
            db,
            "UPDATE chat_requests SET status = 'done', payload = ? "
            "WHERE user_id = ? AND message_id = ?",
            (dumps(payload), user_id, message_id),
        )

    def release_chat(self, user_id: str, message_id: str, owner: str) -> None:
        """Give up an unfinished claim so that a retry generates the answer again."""
        with self._writing(user_id) as db:
            self._run(
                db,
                "UPDATE chat_requests SET status = 'abandoned' WHERE user_id = ? "
                "AND message_id = ? AND owner = ? AND status = 'in_progress'",
                (user_id, message_id, owner),
            )

    # -- history ---------------------------------------------------------------------------
    def list_sessions(
        self, user_id: str, limit: int = 1000, offset: int = 0, origin: Origin | None = None
    ) -> list[ChatSession]:
        """The user's sessions that hold messages (of ``origin``, or all), newest activity first."""
        order = f"updated_at{self.BYTEWISE} DESC, id{self.BYTEWISE} DESC"
        with self._reading(user_id) as db:
            rows = self._run(
                db,
                "SELECT * FROM sessions WHERE user_id = ? AND message_count > 0 "
                f"AND (CAST(? AS TEXT) IS NULL OR origin = ?) ORDER BY {order} LIMIT ? OFFSET ?",
                (user_id, origin, origin, limit, offset),
            ).fetchall()
        return [session_from(r) for r in rows]

    def get_session(self, user_id: str, session_id: str) -> ChatSession:
        with self._reading(user_id) as db:
            return self._get_session(db, user_id, session_id)

    def _get_session(self, db: Conn, user_id: str, session_id: str) -> ChatSession:
        row = self._run(
            db, "SELECT * FROM sessions WHERE id = ? AND user_id = ?", (session_id, user_id)
        ).fetchone()
        if row is None:
            raise no_session(session_id)
        return session_from(row)

    def session_messages(self, user_id: str, session_id: str) -> list[Message]:
        with self._reading(user_id) as db:
            self._get_session(db, user_id, session_id)
            rows = self._run(
                db,
                "SELECT * FROM messages WHERE session_id = ? AND user_id = ? ORDER BY seq",
                (session_id, user_id),
            ).fetchall()
        return [message_from(r) for r in rows]

    def chat_exchange(self, user_id: str, message_id: str) -> ChatExchange:
        """The question and the reply of the user's chat request ``message_id`` (with the
        collection it asked), or ``NotFound``: another user's is not there."""
        with self._reading(user_id) as db:
            rows = self._run(
                db,
                "SELECT * FROM messages WHERE user_id = ? AND request_id = ? ORDER BY seq",
                (user_id, message_id),
            ).fetchall()
            request = self._run(
                db,
                "SELECT collection FROM chat_requests WHERE user_id = ? AND message_id = ?",
                (user_id, message_id),
            ).fetchone()
        messages = {m.role: m for m in map(message_from, rows)}
        if "user" not in messages or "assistant" not in messages:
            raise NotFound(f"No answer with message_id {message_id!r}.", code="message_not_found")
        collection = None if request is None else request["collection"]
        return ChatExchange(messages["user"], messages["assistant"], collection)

    def cites_document(self, user_id: str, document_id: str) -> bool:
        """Whether one of the user's answers cites the document (its id in a citation)."""
        if not document_id.isalnum():  # ids are hex: nothing LIKE would read as a pattern
            return False
        with self._reading(user_id) as db:
            row = self._run(
                db,
                "SELECT 1 FROM messages WHERE user_id = ? AND role = 'assistant' "
                "AND citations LIKE ? LIMIT 1",
                (user_id, f'%"document_id": "{document_id}"%'),
            ).fetchone()
        return row is not None

    def delete_session(self, user_id: str, session_id: str) -> None:
        with self._writing(user_id) as db:
            if not self._owns(db, user_id, session_id):
                raise no_session(session_id)
            self._run(db, "DELETE FROM messages WHERE session_id = ?", (session_id,))
            self._run(
                db,
                "DELETE FROM chat_requests WHERE session_id = ? AND user_id = ?",
                (session_id, user_id),
            )
            self._run(db, "DELETE FROM sessions WHERE id = ?", (session_id,))
