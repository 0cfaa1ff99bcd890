"""Chat sessions, messages and the idempotency claims of chat requests (PostgreSQL).

Every query names the user, and every transaction here sets ``footnoted.user_id``:
row-level security hides other users' sessions, messages and claims even from a query
that forgot its ``user_id`` condition.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from psycopg.rows import DictRow

from ..records import ChatSession, Claim, Message, NewMessage, Origin, RefusalEntry
from .base import StaleFn
from .postgres_base import Connection, PostgresBase, dumps, loads, now
from .postgres_service import insert_refusal
from .rows import Cancelled, message_from, no_session, session_from


class ChatMixin(PostgresBase):
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
        with self.transaction(user_id) as db:
            self.lock(db, "chat", user_id, message_id)
            row = db.execute(
                "SELECT * FROM chat_requests WHERE user_id = %s AND message_id = %s",
                (user_id, message_id),
            ).fetchone()
            if row is not None:
                return self._reclaim(db, row, message, (title, origin), owner, stale)
            if session_id is None:
                session_id = self._new_session(db, user_id, title, origin)
            elif not self._owns(db, user_id, session_id):
                raise no_session(session_id)
            db.execute(
                "INSERT INTO chat_requests (user_id, message_id, session_id, message, status, "
                "owner, claimed_at) VALUES (%s, %s, %s, %s, 'in_progress', %s, %s)",
                (user_id, message_id, session_id, message, owner, time.time()),
            )
        return Claim("new", session_id)

    def _reclaim(
        self,
        db: Connection,
        row: DictRow,
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
        db.execute(
            "UPDATE chat_requests SET status = 'in_progress', owner = %s, claimed_at = %s "
            "WHERE user_id = %s AND message_id = %s",
            (owner, time.time(), row["user_id"], row["message_id"]),
        )
        if not self._owns(db, row["user_id"], session_id):  # deleted meanwhile: start anew
            self._insert_session(db, session_id, row["user_id"], *new)
        return Claim("new", session_id)

    def _new_session(self, db: Connection, user_id: str, title: str, origin: Origin) -> str:
        session_id = uuid.uuid4().hex
        self._insert_session(db, session_id, user_id, title, origin)
        return session_id

    def _insert_session(
        self, db: Connection, session_id: str, user_id: str, title: str, origin: Origin
    ) -> None:
        stamp = now()
        db.execute(
            "INSERT INTO sessions (id, user_id, title, created_at, updated_at, origin) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (session_id, user_id, title, stamp, stamp, origin),
        )

    def _owns(self, db: Connection, user_id: str, session_id: str) -> bool:
        row = db.execute(
            "SELECT 1 FROM sessions WHERE id = %s AND user_id = %s", (session_id, user_id)
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
    ) -> bool:
        """Store the question and its reply, and mark the request done, in one transaction.

        Returns False (and writes nothing) when ``cancelled()`` says the client left.
        """
        try:
            with self.transaction(user_id) as db:
                self.lock(db, "chat", user_id, message_id)
                if cancelled():
                    raise Cancelled
                self._store_reply(db, user_id, message_id, session_id, messages, payload)
                if refusal is not None:
                    insert_refusal(db, refusal, user_id)
        except Cancelled:
            return False
        return True

    def _store_reply(
        self,
        db: Connection,
        user_id: str,
        message_id: str,
        session_id: str,
        messages: tuple[NewMessage, NewMessage],
        payload: dict[str, Any],
    ) -> None:
        stamp = now()
        for m in messages:
            db.execute(
                "INSERT INTO messages (id, session_id, user_id, request_id, role, type, "
                "content, citations, referenced_indices, spans, created_at, grounding, "
                "incomplete, refusal) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    uuid.uuid4().hex, session_id, user_id, message_id, m.role, m.type,
                    m.content, dumps(m.citations), dumps(m.referenced_indices),
                    dumps(m.spans), stamp, dumps(m.grounding), m.incomplete,
                    dumps(m.refusal),
                ),
            )  # fmt: skip
        db.execute(
            "UPDATE sessions SET message_count = message_count + 2, updated_at = %s WHERE id = %s",
            (stamp, session_id),
        )
        db.execute(
            "UPDATE chat_requests SET status = 'done', payload = %s "
            "WHERE user_id = %s AND message_id = %s",
            (dumps(payload), user_id, message_id),
        )

    def release_chat(self, user_id: str, message_id: str, owner: str) -> None:
        """Give up an unfinished claim so that a retry generates the answer again."""
        with self.transaction(user_id) as db:
            db.execute(
                "UPDATE chat_requests SET status = 'abandoned' WHERE user_id = %s "
                "AND message_id = %s AND owner = %s AND status = 'in_progress'",
                (user_id, message_id, owner),
            )

    # -- history ---------------------------------------------------------------------------
    def list_sessions(
        self, user_id: str, limit: int = 1000, offset: int = 0, origin: Origin | None = None
    ) -> list[ChatSession]:
        """The user's sessions that hold messages (of ``origin``, or all), newest activity first."""
        with self.transaction(user_id) as db:
            rows = db.execute(
                "SELECT * FROM sessions WHERE user_id = %s AND message_count > 0 "
                "AND (%s::text IS NULL OR origin = %s) "
                'ORDER BY updated_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT %s OFFSET %s',
                (user_id, origin, origin, limit, offset),
            ).fetchall()
        return [session_from(r) for r in rows]

    def get_session(self, user_id: str, session_id: str) -> ChatSession:
        with self.transaction(user_id) as db:
            return self._get_session(db, user_id, session_id)

    def _get_session(self, db: Connection, user_id: str, session_id: str) -> ChatSession:
        row = db.execute(
            "SELECT * FROM sessions WHERE id = %s AND user_id = %s", (session_id, user_id)
        ).fetchone()
        if row is None:
            raise no_session(session_id)
        return session_from(row)

    def session_messages(self, user_id: str, session_id: str) -> list[Message]:
        with self.transaction(user_id) as db:
            self._get_session(db, user_id, session_id)
            rows = db.execute(
                "SELECT * FROM messages WHERE session_id = %s AND user_id = %s ORDER BY seq",
                (session_id, user_id),
            ).fetchall()
        return [message_from(r) for r in rows]

    def delete_session(self, user_id: str, session_id: str) -> None:
        with self.transaction(user_id) as db:
            if not self._owns(db, user_id, session_id):
                raise no_session(session_id)
            db.execute("DELETE FROM messages WHERE session_id = %s", (session_id,))
            db.execute(
                "DELETE FROM chat_requests WHERE session_id = %s AND user_id = %s",
                (session_id, user_id),
            )
            db.execute("DELETE FROM sessions WHERE id = %s", (session_id,))
