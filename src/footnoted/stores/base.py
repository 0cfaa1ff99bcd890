"""The ``Store`` protocol: everything the service needs from a database.

SQLite (default) and PostgreSQL implement it side by side; one contract test suite
runs against each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..models import (
    Chunk,
    Document,
    DocumentVersion,
    FileBytes,
    Progress,
    Retention,
    SitePage,
)
from ..records import (
    Actor,
    AuditEntry,
    ChatExchange,
    ChatSession,
    Claim,
    Feedback,
    FeedbackKind,
    FeedbackStatus,
    Message,
    NewMessage,
    Origin,
    PendingSignIn,
    RefusalEntry,
    TokenInfo,
    TokenKind,
    User,
)

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as retrieval sees it: with its document's title and url, and its vectors."""

    chunk: Chunk
    document_title: str
    document_url: str | None
    vector: Vector
    sentences: Vector | None = None  # one row per sentence (``chunk_sentences`` order)
    document_version: int = 1


@dataclass(frozen=True, slots=True)
class StoredFile:
    """An uploaded file's original, kept for download and reprocessing."""

    filename: str
    media_type: str
    content: FileBytes  # read a part at a time
    title: str | None = None  # the title given at upload, if any


class DocumentLibrary(Protocol):
    """Documents, their original files, text and chunks (``library_sql.py`` holds the
    SQL, written once for both dialects)."""

    def close(self) -> None: ...

    # -- documents -------------------------------------------------------------------
    def get_document(self, document_id: str) -> Document:
        """The document, or ``NotFound``."""
        ...

    def find_document(self, collection: str, source: str) -> Document | None: ...

    def list_documents(self, collection: str | None = None) -> list[Document]: ...

    def save_document(
        self,
        document: Document,
        text: str,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector] = (),
        job: str | None = None,
    ) -> None:
        """Insert a ready document with its chunks and vectors in one transaction.

        ``sentences`` holds each chunk's sentence vectors (kept as float16), or is empty
        where they were not made. Any document with the same (collection, source) is
        replaced atomically. With ``job``, only while that job holds the document's work
        (``claim_job``); else ``Cancelled`` and nothing is written.
        """
        ...

    def set_enabled(self, document_id: str, enabled: bool) -> Document: ...

    def delete_document(self, document_id: str, purge: bool = False) -> None:
        """Delete the document; its last version is kept for the answers that quoted it
        (as ``retention`` allows), unless ``purge``, which drops every version too."""
        ...

    # -- versions ----------------------------------------------------------------------
    retention: Retention

    def document_versions(self, document_id: str) -> list[DocumentVersion]:
        """Every version still kept, newest first, without text; ``NotFound`` if none."""
        ...

    def document_version(self, document_id: str, version: int) -> DocumentVersion:
        """One version with its text and layout; ``NotFound`` (``version_not_found``)."""
        ...

    def find_content(self, collection: str, content_hash: str) -> Document | None:
        """The collection's document whose current content has this hash, if any."""
        ...

    # -- pages followed from a sitemap -------------------------------------------------
    def site_pages(self, collection: str, sitemap: str) -> dict[str, SitePage]:
        """The pages ``sitemap`` listed into ``collection`` at its last sync, by URL."""
        ...

    def keep_site_page(self, page: SitePage) -> None: ...

    def forget_site_page(self, collection: str, url: str) -> None: ...

    def document_text(self, document_id: str, start: int = 0, end: int | None = None) -> str:
        """The document's extracted text, or the piece ``[start, end)`` of it."""
        ...

    def document_chunks(self, document_id: str) -> list[Chunk]: ...

    def collections(self) -> list[str]: ...

    def without_sentence_vectors(self, collection: str | None = None) -> set[str]:
        """Ids of documents with chunks stored without sentence vectors (before they were
        kept); ``footnoted reindex`` re-embeds them."""
        ...

    # -- uploads -------------------------------------------------------------------------
    def begin_upload(self, document: Document, file: StoredFile) -> None:
        """Store the file and a ``processing`` document in one transaction."""
        ...

    def set_status(self, document_id: str, status: str, error: str | None = None) -> Document:
        """Mark a document ``processing`` or ``failed``; either way its progress starts
        over and the job that held its work no longer does."""
        ...

    def claim_job(self, document_id: str) -> str:
        """Take a ``processing`` document's work; a job claimed later, or the document's
        deletion, ends this one's hold (``job_current``)."""
        ...

    def job_current(self, document_id: str, job: str) -> bool: ...

    def set_progress(self, document_id: str, progress: Progress, job: str) -> bool:
        """Record where a ``processing`` document's work stands; False when ``job`` no
        longer holds it."""
        ...

    def progress(self) -> dict[str, Progress]:
        """The progress of every ``processing`` document that has one, by document id."""
        ...

    def fail_interrupted(self, error: str) -> int:
        """Mark documents left ``processing`` by a stopped server as failed; how many."""
        ...

    def get_file(self, document_id: str) -> StoredFile | None: ...


class SearchIndex(Protocol):
    """Search over the chunks of enabled, ready documents: the seam a backend fills with
    its own vectors and keyword index (SQLite: ``vectors.py``, FTS5 and ``keywords.py``;
    PostgreSQL: pgvector and full-text search in ``postgres_search.py``), and what a
    vector-only backend would implement. What retrieval needs, and only that."""

    def count_chunks(self, collection: str) -> int:
        """Chunks of enabled, ready documents in the collection."""
        ...

    def embedding_models(self, collection: str) -> set[str]:
        """Models that made the vectors of the collection's ready documents."""
        ...

    def dense_search(self, collection: str, vector: Vector, k: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity), best first, over enabled, ready documents."""
        ...

    def refresh_index(self, collection: str, save: bool = True) -> None:
        """Bring the collection's vector index up to date with what was stored (after an
        ingest), so no question waits for it; ``save`` also writes it to disk."""
        ...

    def keyword_search(self, collection: str, terms: Sequence[str], k: int) -> list[str]:
        """Chunk ids ranked by BM25 over chunk text, title and section (any term matches)."""
        ...

    def fetch_chunks(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        """The chunks with these ids that belong to enabled, ready documents, in given order."""
        ...


class AccountStore(Protocol):
    """Users and tokens. Every change but a web session's is written to the audit log
    with its ``actor``, in the same transaction (``accounts_sql``)."""

    def create_user(self, name: str, is_admin: bool = False, actor: Actor = ...) -> User:
        """A new user, or ``Conflict`` when the name is taken."""
        ...

    def get_user(self, user_id: str) -> User:
        """The user, or ``NotFound`` (``user_not_found``)."""
        ...

    def find_user(self, name: str) -> User | None: ...

    def list_users(self) -> list[User]: ...

    def set_admin(self, user_id: str, is_admin: bool, actor: Actor = ...) -> User:
        """Promote or demote; demoting the only admin is a ``Conflict`` (``last_admin``)."""
        ...

    def delete_user(self, user_id: str, actor: Actor = ...) -> dict[str, int]:
        """Delete the user and everything of theirs (tokens, chats, refusals); the only
        admin cannot be deleted (``last_admin``). Returns the rows deleted per table."""
        ...

    def add_token(
        self,
        user_id: str,
        token_hash: str,
        kind: TokenKind = "api",
        actor: Actor = ...,
        parent_id: str | None = None,
    ) -> TokenInfo:
        """Keep a token's hash; a web session names the API token it was opened with."""
        ...

    def list_tokens(self, user_id: str | None = None) -> list[TokenInfo]: ...

    def revoke_token(self, user_id: str, token_id: str, actor: Actor = ...) -> None:
        """Forget the token, and the web sessions opened with it, at once; ``NotFound``
        (``token_not_found``) if not the user's."""
        ...

    def rotate_token(
        self, user_id: str, token_id: str, new_hash: str, actor: Actor = ...
    ) -> TokenInfo:
        """Replace an API token by ``new_hash``'s, atomically."""
        ...

    def authenticate(self, token_hash: str) -> User | None:
        """The token's user (marking the token used), ``token_id`` the API token behind
        it; or None."""
        ...

    def token_alive(self, token_id: str) -> bool: ...

    def remove_token(self, token_hash: str) -> bool:
        """Revoke a token (a signed-out web session); False when it was not there."""
        ...

    def audit(self, actor: Actor, action: str, target: str, detail: dict[str, Any]) -> None:
        """Log an admin's change to something other than an account."""
        ...

    def list_audit(self, limit: int = 100, user_id: str | None = None) -> list[AuditEntry]:
        """Admins' changes, newest first."""
        ...

    def take_rate_slot(
        self, user_id: str, bucket: str, limit: int, window_s: float, at: float
    ) -> float | None:
        """Count a request in the user's ``bucket`` atomically (across processes); None or
        seconds to wait."""
        ...


StaleFn = Callable[[str, float], bool]  # (owner, claimed_at) -> the claim was abandoned


class ChatStore(Protocol):
    """Sessions and messages. Every method takes the user: others' data is ``NotFound``."""

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
        """A new session is marked with where it began (``origin``)."""
        ...

    def complete_chat(
        self,
        user_id: str,
        message_id: str,
        session_id: str,
        messages: tuple[NewMessage, NewMessage],
        payload: dict[str, Any],
        refusal: RefusalEntry | None,
        cancelled: Callable[[], bool] = ...,
        collection: str | None = None,
    ) -> bool:
        """Store question and reply and mark the request done, atomically; False if cancelled."""
        ...

    def cites_document(self, user_id: str, document_id: str) -> bool:
        """Whether one of the user's answers cites the document."""
        ...

    def chat_exchange(self, user_id: str, message_id: str) -> ChatExchange:
        """The question and reply of the user's chat request, or ``NotFound``."""
        ...

    def release_chat(self, user_id: str, message_id: str, owner: str) -> None: ...

    def list_sessions(
        self, user_id: str, limit: int = 1000, offset: int = 0, origin: Origin | None = None
    ) -> list[ChatSession]: ...

    def get_session(self, user_id: str, session_id: str) -> ChatSession: ...

    def session_messages(self, user_id: str, session_id: str) -> list[Message]: ...

    def delete_session(self, user_id: str, session_id: str) -> None: ...


class SettingsStore(Protocol):
    """Collection settings, the refusal log and generated secrets (``settings_sql``)."""

    def get_collection_settings(self, collection: str) -> dict[str, Any]: ...

    def put_collection_settings(self, collection: str, values: dict[str, Any]) -> None: ...

    def log_refusal(self, entry: RefusalEntry, user_id: str | None = None) -> None: ...

    def list_refusals(
        self, limit: int = 100, collection: str | None = None
    ) -> list[RefusalEntry]: ...

    def secret(self, name: str, make: Callable[[], str]) -> str: ...

    def set_secret(self, name: str, value: str) -> None: ...


class FeedbackStore(Protocol):
    """Users' feedback on answers and sources, for the admins' queue (``feedback_sql.py``)."""

    def save_feedback(self, item: Feedback, actor: Actor) -> Feedback:
        """New, or replacing the user's earlier word on the same answer or source; audited."""
        ...

    def list_feedback(
        self,
        limit: int = 100,
        collection: str | None = None,
        kind: FeedbackKind | None = None,
        status: FeedbackStatus | None = None,
    ) -> list[Feedback]:
        """Newest first."""
        ...

    def get_feedback(self, feedback_id: str) -> Feedback: ...

    def resolve_feedback(self, feedback_id: str, actor: Actor, note: str) -> Feedback:
        """Resolved by ``actor`` with ``note``; audited."""
        ...


class SignInStore(Protocol):
    """Sign-in through an OpenID Connect provider (``signin_sql.py``)."""

    def begin_sign_in(self, state: str, pending: PendingSignIn, at: float) -> None: ...

    def finish_sign_in(self, state: str, at: float) -> PendingSignIn | None:
        """Taken once; None when unknown, taken already or too old."""
        ...

    def provider_user(
        self, subject: str, name: str, email: str | None, admin: bool | None, actor: Actor
    ) -> User:
        """Matched by subject, created on first sign-in; admin rights set unless None."""
        ...

    def vouch_session(self, token_hash: str, refresh_token: str | None, at: float) -> None: ...

    def session_vouched(self, token_hash: str) -> tuple[str | None, float] | None: ...

    def claim_vouch(self, token_hash: str, seen_at: float, at: float) -> bool:
        """True for exactly one of the requests that saw the same ``seen_at``."""
        ...


class Records(AccountStore, ChatStore, FeedbackStore, SignInStore, SettingsStore, Protocol):
    """Users, chats, limits, feedback, settings, refusals and secrets: one SQL
    implementation for both backends (``sql.py``)."""


class Store(DocumentLibrary, SearchIndex, Records, Protocol):
    """Everything the service needs from a database."""
