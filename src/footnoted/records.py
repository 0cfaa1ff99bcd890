"""Records of the HTTP service: users, chat sessions, messages, refusals, chat claims.

Plain, immutable data, like :mod:`footnoted.models`; the stores read and write them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant"]
MessageType = Literal["question", "answer", "refusal"]
ClaimOutcome = Literal["new", "replay", "busy", "mismatch"]
Origin = Literal["web", "api", "v1", "mcp"]
"""Where a conversation began: the web UI, ``/api/chat`` with a token, ``/v1`` or MCP."""
ORIGINS: tuple[Origin, ...] = ("web", "api", "v1", "mcp")


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str
    is_admin: bool
    created_at: str = ""
    is_owner: bool = False  # the instance's owner: the first admin (docs/users.md)
    email: str | None = None  # from the identity provider, for users who sign in there
    token_id: str | None = field(default=None, compare=False)
    """The API token a request was made with (a web session's: the one it was opened
    with); set by authentication, never stored. What the request mints (a web session, a
    signed link) lives no longer than that token."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["token_id"]
        return data


@dataclass(frozen=True, slots=True)
class ChatSession:
    id: str
    user_id: str
    title: str
    created_at: str
    updated_at: str
    origin: Origin = "web"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "origin": self.origin,
        }


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message to store. ``citations`` is None when none were sent (user messages)."""

    role: Role
    type: MessageType
    content: str
    citations: list[dict[str, Any]] | None = None
    referenced_indices: list[int] | None = None
    spans: list[dict[str, Any]] | None = None
    grounding: dict[str, Any] | None = None
    incomplete: bool = False
    refusal: dict[str, Any] | None = None  # refusals: {"suggestions", "evidence", "elsewhere"?}
    read_as: str | None = None  # answers: the question as searched, where not as asked


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    session_id: str
    role: Role
    type: MessageType
    content: str
    citations: list[dict[str, Any]] | None
    referenced_indices: list[int] | None
    spans: list[dict[str, Any]] | None
    created_at: str
    grounding: dict[str, Any] | None = None  # LLM answers only
    incomplete: bool = False  # generation broke off part-way
    refusal: dict[str, Any] | None = None  # refusals: {"suggestions", "evidence", "elsewhere"?}
    message_id: str | None = None  # the chat request's id (the client's message_id)
    read_as: str | None = None  # answers: the question as searched, where not as asked

    def to_dict(self) -> dict[str, Any]:
        """A refusal's ``suggestions`` and ``evidence`` sit beside its content."""
        data = asdict(self)
        del data["session_id"]
        if self.grounding is None:
            del data["grounding"]
        if not self.incomplete:
            del data["incomplete"]
        if self.read_as is None:
            del data["read_as"]
        data.update(data.pop("refusal") or {})
        return data


@dataclass(frozen=True, slots=True)
class ChatExchange:
    """One chat request as stored: its question, its reply and the collection it asked
    (None for requests stored before collections were recorded)."""

    question: Message
    reply: Message
    collection: str | None


@dataclass(frozen=True, slots=True)
class Claim:
    """The outcome of claiming ``(user, message_id)`` for one chat request.

    ``new``: this request generates the answer; ``replay``: ``payload`` holds the stored
    answer; ``busy``: another request is generating it; ``mismatch``: the id was used for
    another message.
    """

    outcome: ClaimOutcome
    session_id: str
    payload: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RefusalEntry:
    """One logged refusal: what the knowledge base lacked."""

    question: str
    collection: str
    max_score: float | None
    threshold: float
    reason: str
    user_name: str | None = None
    created_at: str = ""
    id: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


FeedbackKind = Literal["helpful", "unhelpful", "does_not_say", "wrong_page"]
"""What a user says: of an answer, ``helpful`` or ``unhelpful``; of one cited source,
``does_not_say`` (the passage does not say what the answer quotes it for) or
``wrong_page`` (the right text, cited to the wrong page or section)."""
ANSWER_VERDICTS: tuple[FeedbackKind, ...] = ("helpful", "unhelpful")
SOURCE_FLAGS: tuple[FeedbackKind, ...] = ("does_not_say", "wrong_page")
FeedbackStatus = Literal["open", "resolved"]


@dataclass(frozen=True, slots=True)
class Feedback:
    """One user's word on one answer (or one of its cited sources), with the question,
    the answer and the flagged passage kept as they were shown: the queue reads the same
    after the conversation is deleted or the document changes. A user's later word on the
    same answer or source replaces the earlier one (and opens it again)."""

    id: str
    kind: FeedbackKind
    user_id: str
    user_name: str
    message_id: str  # the chat request's id (the client's message_id)
    session_id: str
    collection: str | None
    question: str
    answer: str
    answer_type: MessageType  # "answer" or "refusal"
    citation: int | None  # the flagged source's index; None for a word on the answer
    passage: dict[str, Any] | None  # that citation as it was shown
    note: str
    correction: dict[str, Any] | None  # what the user says is right (see service/feedback.py)
    created_at: str
    status: FeedbackStatus = "open"
    resolved_by: str | None = None
    resolved_at: str | None = None
    resolution: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PendingSignIn:
    """A sign-in through the identity provider, between leaving for it and coming back."""

    nonce: str
    verifier: str  # PKCE's code verifier
    next: str  # where the browser goes once signed in


Via = Literal["cli", "api"]
TokenKind = Literal["api", "session"]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who makes a change, for the audit log: the command line, or an admin (by name)
    through the API."""

    via: Via
    name: str | None = None

    @classmethod
    def admin(cls, user: User) -> Actor:
        return cls("api", user.name)


CLI_ACTOR = Actor("cli")


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as admins see it: never the token itself, nor its hash."""

    id: str
    user_id: str
    kind: TokenKind  # "api" (issued by an admin) or "session" (a web sign-in)
    created_at: str
    last_used_at: str | None = None  # to the minute: marked at most once a minute

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One change an admin made: who made it (and how), what, to whom or to what."""

    id: int
    at: str
    via: Via
    actor: str | None  # the admin's name; None from the command line
    action: str  # user_created, admin_granted, token_revoked, … (docs/users.md)
    user_id: str | None  # the user changed, for account changes
    user_name: str | None
    detail: dict[str, Any]
    target: str | None = None  # what else was changed: "collection:handbooks", "document:…"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
