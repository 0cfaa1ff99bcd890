"""Users' feedback on answers and cited sources, for the admins' queue: one SQL
implementation for both backends (``sql.py``).

A user has one word per answer and target (the answer itself, or one cited source): a
later word replaces the earlier one, keeps its id and opens it again. Giving and
resolving feedback are written to the audit log in the same transaction.
"""

from __future__ import annotations

from typing import Any

from ..errors import NotFound
from ..records import Actor, Feedback, FeedbackKind, FeedbackStatus
from .encoding import dumps, now
from .rows import feedback_from
from .sql import SQL, Conn


def _target(citation: int | None) -> str:
    return "answer" if citation is None else f"source:{citation}"


class FeedbackSQL(SQL):
    def save_feedback(self, item: Feedback, actor: Actor) -> Feedback:
        """Store ``item`` (its ``id`` is kept only when it is new) and return it as stored."""
        target = _target(item.citation)
        with self._writing() as db:
            self._lock(db, "feedback", item.user_id, item.message_id, target)
            row = self._run(
                db,
                "SELECT id FROM feedback WHERE user_id = ? AND message_id = ? AND target = ?",
                (item.user_id, item.message_id, target),
            ).fetchone()
            stamp = now()
            if row is None:
                feedback_id = item.id
                self._run(
                    db,
                    "INSERT INTO feedback (id, kind, user_id, user_name, message_id, target, "
                    "session_id, collection, question, answer, answer_type, citation, passage, "
                    "note, correction, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        feedback_id, item.kind, item.user_id, item.user_name, item.message_id,
                        target, item.session_id, item.collection, item.question, item.answer,
                        item.answer_type, item.citation, dumps(item.passage), item.note,
                        dumps(item.correction), stamp,
                    ),
                )  # fmt: skip
            else:
                feedback_id = str(row["id"])
                self._run(
                    db,
                    "UPDATE feedback SET kind = ?, note = ?, correction = ?, passage = ?, "
                    "created_at = ?, status = 'open', resolved_by = NULL, resolved_at = NULL, "
                    "resolution = NULL WHERE id = ?",
                    (
                        item.kind, item.note, dumps(item.correction), dumps(item.passage), stamp,
                        feedback_id,
                    ),
                )  # fmt: skip
            detail = {"kind": item.kind, "message_id": item.message_id, "citation": item.citation}
            self._audit(db, actor, "feedback_given", None, detail, f"feedback:{feedback_id}")
            return self._feedback(db, feedback_id)

    def list_feedback(
        self,
        limit: int = 100,
        collection: str | None = None,
        kind: FeedbackKind | None = None,
        status: FeedbackStatus | None = None,
    ) -> list[Feedback]:
        """Newest first; each filter applies when given."""
        conditions, params = [], []
        for column, value in (("collection", collection), ("kind", kind), ("status", status)):
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        with self._reading() as db:
            rows = self._run(
                db,
                f"SELECT * FROM feedback {where} ORDER BY created_at DESC, id LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [feedback_from(r) for r in rows]

    def get_feedback(self, feedback_id: str) -> Feedback:
        with self._reading() as db:
            return self._feedback(db, feedback_id)

    def resolve_feedback(self, feedback_id: str, actor: Actor, note: str) -> Feedback:
        """Mark the item resolved by ``actor`` with ``note`` (again: the newer note)."""
        with self._writing() as db:
            self._feedback(db, feedback_id)
            self._run(
                db,
                "UPDATE feedback SET status = 'resolved', resolved_by = ?, resolved_at = ?, "
                "resolution = ? WHERE id = ?",
                (actor.name or actor.via, now(), note, feedback_id),
            )
            detail: dict[str, Any] = {"note": note}
            self._audit(db, actor, "feedback_resolved", None, detail, f"feedback:{feedback_id}")
            return self._feedback(db, feedback_id)

    def _feedback(self, db: Conn, feedback_id: str) -> Feedback:
        row = self._run(db, "SELECT * FROM feedback WHERE id = ?", (feedback_id,)).fetchone()
        if row is None:
            raise NotFound(f"No feedback {feedback_id!r}.", code="feedback_not_found")
        return feedback_from(row)
