"""Request and response bodies of the HTTP API (they make the OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..records import FeedbackKind, FeedbackStatus, Origin
from ..service.facade import MAX_QUESTION_CHARS
from ..settings import MAX_EXAMPLES, ExampleQuestion, GenerationMode, LinkMode

Finite = Annotated[float, Field(allow_inf_nan=False)]


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable, machine-readable error code.")
    message: str = Field(description="A sentence for people.")


class ErrorBody(BaseModel):
    error: ErrorDetail


class ChatRequest(BaseModel):
    message: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    message_id: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9._:\-]+$",
        description="Client-generated id (a UUID): the idempotency key.",
    )
    session_id: str | None = Field(default=None, min_length=1, max_length=128)
    collection: str | None = Field(default=None, min_length=1, max_length=200)
    embedding: list[Finite] | None = Field(
        default=None, max_length=4096, description="Precomputed query embedding (model dim)."
    )
    include_citations: bool = Field(default=True, description="false leaves out citation fields.")


class CitationOut(BaseModel):
    """LLM answers may add ``added: true`` (cited by the support check, not the model)."""

    model_config = ConfigDict(extra="allow")

    index: int
    chunk_id: str
    document_id: str
    document_title: str
    chunk_index: int
    page: int | None
    section: str | None
    url: str | None
    excerpt: str
    text: str
    char_start: int
    char_end: int
    score: float
    download_url: str | None = None


class SpanOut(BaseModel):
    """LLM answers add ``supported`` (the support check's verdict for this span)."""

    model_config = ConfigDict(extra="allow")

    answer_start: int
    answer_end: int
    index: int
    doc_start: int
    doc_end: int
    page: int | None = Field(
        default=None, description="The page the quoted text starts on (PDFs; else absent)."
    )


class CitationMapEntry(BaseModel):
    text: str
    source: str | None
    title: str
    score: float
    metadata: dict[str, Any]


class GroundingOut(BaseModel):
    """How far the answer can be trusted, the same verdict in every client."""

    label: Literal["grounded", "partly", "weak"] = Field(
        description="grounded: answers shown like this were right at least 97% of the time on "
        "the real-document development set; partly: the sources hold related text, check the "
        "quote; weak: the sources may not answer the question. An LLM answer with a sentence "
        "its sources do not support is never grounded."
    )
    confidence: float = Field(description="How likely the answer is right, 0..1.")
    answer_score: float = Field(description="The reader's best evidence score.")
    cited_sentences: int | None = Field(default=None, description="LLM answers: support check.")
    supported: int | None = None
    unsupported: int | None = None
    added: int | None = None


class AnswerOut(BaseModel):
    type: Literal["answer"]
    session_id: str | None
    message_id: str | None
    answer: str
    answer_markdown: str
    citations: list[CitationOut] | None = None
    referenced_indices: list[int] | None = None
    spans: list[SpanOut] | None = None
    citation_map: dict[str, CitationMapEntry] | None = None
    grounding: GroundingOut | None = None
    warning: str | None = None
    notice: str | None = Field(
        default=None, description="e.g. generation was unavailable: an extractive answer follows."
    )


class EvidenceOut(BaseModel):
    max_score: float | None
    threshold: float
    reason: str | None = None


class RefusalOut(BaseModel):
    type: Literal["refusal"]
    message: str
    suggestions: list[str]
    evidence: EvidenceOut
    elsewhere: list[str] | None = Field(
        default=None,
        description="Other collections whose documents answer the question (sent only when "
        "there are some, and only for want of evidence in this one).",
    )
    session_id: str | None = None
    message_id: str | None = None


class SessionOut(BaseModel):
    id: str
    title: str
    created_at: str
    updated_at: str
    origin: Origin = Field(
        description="Where the conversation began: `web` (the web UI), `api` (`/api/chat` "
        "with a token), `v1` (the OpenAI-compatible API) or `mcp`."
    )


class MessageOut(BaseModel):
    """LLM answers add ``grounding``; a partial answer adds ``incomplete: true``; a
    refusal adds the ``suggestions`` and ``evidence`` it was first shown with; an answer
    read otherwise than it was asked (a follow-up read with the conversation) adds
    ``read_as``, the ``answer_start`` event's ``standalone_question``."""

    model_config = ConfigDict(extra="allow")

    id: str
    role: Literal["user", "assistant"]
    type: Literal["question", "answer", "refusal"]
    content: str
    citations: list[CitationOut] | None
    referenced_indices: list[int] | None
    spans: list[SpanOut] | None
    created_at: str
    message_id: str | None = Field(
        default=None, description="The chat request's `message_id` (the same for a question "
        "and its reply)."
    )  # fmt: skip


class ProgressOut(BaseModel):
    stage: Literal["queued", "parsing", "embedding", "saving"] = Field(
        description="`queued`: waiting for a worker; `embedding`: `done` of `total` chunks."
    )
    done: int
    total: int


class DocumentOut(BaseModel):
    id: str
    collection: str
    title: str
    source: str = Field(
        description="Where it came from: an upload's file name, or an ingested file's path "
        "(the path only to admins; other users see its file name)."
    )
    kind: str
    size: int
    status: Literal["processing", "ready", "failed"]
    enabled: bool
    error: str | None
    url: str | None
    page_count: int | None
    chunk_count: int
    embedding_model: str | None
    created_at: str
    updated_at: str
    version: int = Field(
        description="1 at first; each changed file from the same source is the next version "
        "(earlier ones kept: `GET /api/documents/{id}/versions`)."
    )
    progress: ProgressOut | None = Field(
        default=None, description="Where the work stands while `status` is `processing`."
    )


class DocumentPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(description="false hides the document from retrieval at once.")


class HeadingOut(BaseModel):
    start: int = Field(description="Offset of the heading in `text`, as citations count.")
    end: int
    level: int = Field(description="1 for the outermost heading, 2 below it, and so on.")


class PlaceOut(BaseModel):
    start: int = Field(description="Offset in the current version's `text`.")
    end: int
    page: int | None


class DocumentTextOut(BaseModel):
    id: str
    title: str
    kind: str = Field(
        description="The document's format (`pdf`, `docx`, `pptx`, `html`, …). Only a "
        "PDF's pages can be shown (`/pages/{page}/image`); a slide deck's `page` is its slide."
    )
    text: str
    headings: list[HeadingOut] = Field(
        description="The document's own headings in `text` (Markdown, Word, HTML, and PDF "
        "outline or inferred headings), in order."
    )
    version: int = Field(description="The version this text is (a citation's `version`).")
    current_version: int | None = Field(
        description="The document's current version; null once it was deleted. When it is "
        "not `version`, the document has changed since."
    )
    ended_by: Literal["replaced", "deleted"] | None = Field(
        description="How this version ended: `replaced` by a changed file, or `deleted`; "
        "null for the current version."
    )
    now_at: PlaceOut | None = Field(
        default=None,
        description="Where the passage asked about (`start`/`end`) stands in the current "
        "version, when the document has changed and the passage is still there.",
    )


class VersionOut(BaseModel):
    version: int
    title: str
    content_hash: str
    page_count: int | None
    created_at: str = Field(description="When this version was stored.")
    ended_at: str | None = Field(description="When it was replaced or deleted; null: current.")
    ended_by: Literal["replaced", "deleted"] | None
    current: bool


class ChunkOut(BaseModel):
    id: str
    index: int
    text: str
    char_start: int
    char_end: int
    page: int | None
    section: str | None
    token_count: int


class LinkOut(BaseModel):
    url: str
    expires_at: int


class CollectionSettingsOut(BaseModel):
    enable_rag: bool
    enable_citations: bool
    citation_link_mode: LinkMode
    generation_mode: GenerationMode
    evidence_threshold: float
    top_k: int
    example_questions: list[str]


class CollectionSettingsIn(BaseModel):
    """A partial update: only the fields given change."""

    model_config = ConfigDict(extra="forbid")

    enable_rag: bool | None = None
    enable_citations: bool | None = None
    citation_link_mode: LinkMode | None = None
    generation_mode: GenerationMode | None = None
    evidence_threshold: Finite | None = Field(default=None, ge=0.0, le=1.0)
    top_k: int | None = Field(default=None, ge=1, le=50)
    example_questions: list[ExampleQuestion] | None = Field(
        default=None,
        max_length=MAX_EXAMPLES,
        description="Offered on an empty chat; `[]` offers none.",
    )


class RefusalLogOut(BaseModel):
    id: int
    question: str
    collection: str
    max_score: float | None
    threshold: float
    reason: str
    user_name: str | None
    created_at: str


class CorrectionIn(BaseModel):
    """What the user says is right: the answer's words and where they are written, or
    that the documents do not answer the question."""

    model_config = ConfigDict(extra="forbid")

    answer: str | None = Field(
        default=None, max_length=500, description="A phrase the right answer contains."
    )
    document_id: str | None = Field(
        default=None, max_length=100, description="The document that says it."
    )
    page: int | None = Field(default=None, ge=1, le=100_000, description="Its page.")
    section: str | None = Field(default=None, max_length=300, description="Or its section.")
    unanswerable: bool = Field(
        default=False, description="The documents do not answer this: it should be refused."
    )


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: FeedbackKind = Field(
        description="`helpful` or `unhelpful` (the answer), `does_not_say` or `wrong_page` "
        "(the source named by `citation`)."
    )
    citation: int | None = Field(
        default=None, ge=1, le=1000, description="The flagged source's [N] (source flags only)."
    )
    note: str = Field(default="", max_length=2000, description="Anything the admins should know.")
    correction: CorrectionIn | None = None


class V1FeedbackIn(FeedbackIn):
    id: str = Field(
        min_length=1, max_length=200, description="The completion's or response's `id`."
    )


class FeedbackOut(BaseModel):
    id: str
    kind: FeedbackKind
    user_id: str
    user_name: str
    message_id: str
    session_id: str
    collection: str | None
    question: str
    answer: str
    answer_type: str
    citation: int | None
    passage: dict[str, Any] | None = Field(description="The flagged source as it was shown.")
    note: str
    correction: dict[str, Any] | None
    created_at: str
    status: FeedbackStatus
    resolved_by: str | None
    resolved_at: str | None
    resolution: str | None


class ResolveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(default="", max_length=2000, description="What was done about it.")


class UserOut(BaseModel):
    id: str
    name: str
    is_admin: bool
    created_at: str
    is_owner: bool = Field(
        description="The instance's owner (the first admin): only they, or the command line "
        "on the server, may demote or delete that account."
    )
    email: str | None = Field(
        default=None, description="From the identity provider, for users who sign in there."
    )


class TokenOut(BaseModel):
    id: str = Field(description="Names the token to revoke or rotate; not the token itself.")
    kind: Literal["api", "session"] = Field(description="An API token, or a web sign-in.")
    created_at: str
    last_used_at: str | None = Field(description="Marked at most once a minute; null: never.")


class UserDetailOut(UserOut):
    tokens: list[TokenOut]


class UserIn(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    is_admin: bool = False


class UserPatch(BaseModel):
    is_admin: bool


class IssuedTokenOut(BaseModel):
    id: str
    token: str = Field(description="The new token: shown this once, only its hash is kept.")
    created_at: str


class NewUserOut(BaseModel):
    user: UserDetailOut
    token: IssuedTokenOut


class AuditOut(BaseModel):
    id: int
    at: str
    via: Literal["cli", "api"]
    actor: str | None = Field(description="The admin who made the change; null: the CLI.")
    action: str
    user_id: str | None = Field(description="The user changed; null for other changes.")
    user_name: str | None
    detail: dict[str, Any]
    target: str | None = Field(
        description="What was changed, when not a user: `collection:NAME`, `document:ID`, "
        "`llm_connection`."
    )


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    model: Literal["warming", "ready", "failed"] = Field(
        description="The embedding model: loading in the background, loaded, or failed to "
        "load. Chat requests made while it warms up wait for it."
    )


class BoxOut(BaseModel):
    """A rectangle on the displayed page, in fractions of its width and height."""

    left: float
    top: float
    width: float
    height: float


class HighlightOut(BaseModel):
    start: int = Field(description="The range of the document's extracted text asked for.")
    end: int
    boxes: list[BoxOut] = Field(description="Where its part on this page is printed.")


class PageHighlightsOut(BaseModel):
    page: int
    page_count: int
    highlights: list[HighlightOut]


class LLMConnectionOut(BaseModel):
    base_url: str
    model: str
    api_key_set: bool = Field(description="Whether a key is sent; the key itself is never shown.")
    saved: bool = Field(
        description="true: an admin's saved connection; false: the environment's "
        "(FOOTNOTED_LLM_BASE_URL, FOOTNOTED_LLM_MODEL, FOOTNOTED_LLM_API_KEY)."
    )


class LLMTestOut(BaseModel):
    ok: bool = Field(description="The model answered.")
    message: str
    latency_ms: int
    reply: str | None = Field(description="What the model wrote (at most 200 characters).")
    detail: str | None = Field(description="The server's own error message, when it gave one.")


class FolderSyncIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    folder: str = Field(
        min_length=1, max_length=1000,
        description="The folder's full path on the server, inside one of FOOTNOTED_SYNC_ROOTS.",
    )  # fmt: skip
    collection: str | None = Field(
        default=None, min_length=1, max_length=200, description="Default: the default one."
    )


class SyncFailureOut(BaseModel):
    source: str
    error: str | None
    code: str | None


class FolderSyncOut(BaseModel):
    folder: str
    collection: str
    status: Literal["done", "running"] = Field(
        description="`running`: still going after 20 s; it finishes on the server, and its "
        "report is in the audit log (`folder_synced`)."
    )
    summary: str | None = None
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    retired: list[str] = Field(default_factory=list, description="Titles of retired documents.")
    failed: list[SyncFailureOut] = Field(default_factory=list)
    seconds: float = 0.0


class SyncRootsOut(BaseModel):
    roots: list[str] = Field(description="Folders admins may sync (empty: folder sync is off).")


class SheetRowOut(BaseModel):
    number: int = Field(description="The row's number in its sheet, as the spreadsheet shows it.")
    cells: list[str]
    start: int = Field(description="Offsets of the row in the document's `text`.")
    end: int


class SheetOut(BaseModel):
    sheet: str | None = Field(description="The sheet's name (null: a CSV file).")
    header: SheetRowOut = Field(description="The sheet's first row: its column names.")
    rows: list[SheetRowOut] = Field(description="The cited row and up to 10 either side.")
    cited: int = Field(description="The cited row's number.")
