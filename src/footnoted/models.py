"""Core data types: what travels from loaders to the screen.

Everything here is plain, immutable data. Citations are data, not formatting: a
:class:`Citation` is built once from a retrieved chunk and is stored, streamed and
rendered unchanged.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO, Literal

DocumentStatus = Literal["processing", "ready", "failed"]
Stage = Literal["parsing", "embedding", "saving"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of a document's text that shares one page and one section path.

    Offsets are code-point offsets into :attr:`ParsedDocument.text`, end exclusive.
    Loaders emit one segment per paragraph-like block; chunking never merges text
    across segments that belong to different sections.
    """

    start: int
    end: int
    page: int | None = None
    section: tuple[str, ...] = ()
    row: int | None = None  # a spreadsheet row's number in its sheet (1: the sheet's first)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to a message, read as a document of its own linked to it."""

    filename: str
    data: bytes
    message: str  # the subject of the message it came with


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """A loader's output: canonical extracted text plus where each part came from (and
    an email's attachments that are documents of their own)."""

    text: str
    kind: str
    title: str | None = None
    segments: tuple[Segment, ...] = ()
    page_count: int | None = None
    attachments: tuple[Attachment, ...] = ()


ATTACHMENT_MARK = "#attachment/"  # a source "<message's source>#attachment/<n>/<file name>"
MAIL_KINDS = frozenset({"eml", "mbox"})  # the kinds whose documents bring attachments


def attached_to(source: str) -> str | None:
    """The source of the message a document was attached to, or None."""
    parent, mark, _ = source.rpartition(ATTACHMENT_MARK)
    return parent if mark else None


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    collection: str
    title: str
    source: str
    kind: str
    content_hash: str
    size: int
    status: DocumentStatus = "ready"
    enabled: bool = True
    error: str | None = None
    url: str | None = None
    page_count: int | None = None
    chunk_count: int = 0
    embedding_model: str | None = None
    created_at: str = ""
    updated_at: str = ""
    version: int = 1  # moves on each time the same source brings changed content

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class DocumentVersion:
    """One version of a document: the current one, or an earlier one kept after its file
    changed (``replaced``) or the document was deleted (``deleted``), with the text its
    citations' offsets point into and its chunks' places (start, end, page, section)."""

    document_id: str
    version: int
    collection: str
    title: str
    source: str
    kind: str
    content_hash: str
    page_count: int | None
    created_at: str
    ended_at: str | None = None  # when it was replaced or deleted; None: current
    ended_by: str | None = None  # "replaced" | "deleted"; None: current
    text: str = ""
    layout: tuple[tuple[int, int, int | None, str | None], ...] = ()

    def info(self) -> dict[str, Any]:
        """What a list of versions shows (no text)."""
        return {
            "version": self.version,
            "title": self.title,
            "content_hash": self.content_hash,
            "page_count": self.page_count,
            "created_at": self.created_at,
            "ended_at": self.ended_at,
            "ended_by": self.ended_by,
            "current": self.ended_at is None,
        }


@dataclass(frozen=True, slots=True)
class SitePage:
    """A web page a collection follows from a sitemap, with the validators its server
    sent last (for a conditional request: ``If-None-Match``, ``If-Modified-Since``)."""

    collection: str
    url: str
    sitemap: str
    etag: str | None = None
    last_modified: str | None = None
    checked_at: str = ""


@dataclass(frozen=True, slots=True)
class Retention:
    """How many earlier versions of each document are kept (``kept``), and for how many
    days after they ended (``days``; None: no limit)."""

    kept: int = 20
    days: float | None = None

    def cutoff(self) -> str:
        """The end time before which kept versions are dropped (ISO 8601, UTC)."""
        ago = timedelta(days=self.days or 0)
        return (datetime.now(UTC) - ago).isoformat(timespec="microseconds")


Grounding = dict[str, float | str]
"""How an answer is grounded: the reader's ``confidence`` and ``answer_score``, its
``label`` (``grounded`` | ``partly`` | ``weak``), and in LLM mode the support check's
counts (``cited_sentences``, ``supported``, ``unsupported``, ``added``)."""

PART_BYTES = 1 << 20  # a file is read, sent to the parser and stored in parts this size


@dataclass(frozen=True, slots=True)
class FileBytes:
    """A file's bytes as a stream opened on demand, read in parts of ``PART_BYTES``: an
    upload, a stored original or a file on disk is never held whole in the server's
    memory (only the parse worker, under its own cap, holds it whole)."""

    size: int
    sha256: str
    opener: Callable[[], AbstractContextManager[BinaryIO]]

    def parts(self) -> Iterator[bytes]:
        with self.opener() as stream:
            while part := stream.read(PART_BYTES):
                yield part

    def read(self) -> bytes:
        """All of it: only for what needs the whole file at once (a PDF page's picture)."""
        return b"".join(self.parts())

    @classmethod
    def of_bytes(cls, data: bytes) -> FileBytes:
        return cls(len(data), hashlib.sha256(data).hexdigest(), lambda: io.BytesIO(data))

    @classmethod
    def of_path(cls, path: Path) -> FileBytes:
        """The file as it is now: hashed by reading it through once."""
        return cls.of_stream(path.open("rb"), lambda: path.open("rb"))

    @classmethod
    def of_seekable(cls, stream: BinaryIO) -> FileBytes:
        """A seekable stream (an upload's spooled file) that stays open and is read from its
        start each time."""

        @contextmanager
        def rewound() -> Iterator[BinaryIO]:
            stream.seek(0)
            yield stream

        return cls.of_stream(rewound(), rewound)

    @classmethod
    def of_stream(
        cls,
        opened: AbstractContextManager[BinaryIO],
        opener: Callable[[], AbstractContextManager[BinaryIO]],
    ) -> FileBytes:
        digest, size = hashlib.sha256(), 0
        with opened as stream:
            while part := stream.read(PART_BYTES):
                digest.update(part)
                size += len(part)
        return cls(size, digest.hexdigest(), opener)


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a ``processing`` document's work stands: its stage, and while embedding how
    many of its ``total`` chunks are ``done``. A processing document without one waits
    for a worker."""

    stage: Stage
    done: int = 0
    total: int = 0


SECTION_JOIN = " > "  # how a chunk's section path is written: "Handbook > Refunds"


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    document_id: str
    index: int
    text: str
    char_start: int
    char_end: int
    page: int | None = None
    section: str | None = None
    token_count: int = 0
    # the header row of the table the chunk starts among (``blocks.table_headers``): ""
    # when it starts among none; None for chunks stored before headers were kept
    header: str | None = None
    # a spreadsheet's rows in the chunk: (document offset where each starts, its number
    # in the sheet); empty for other kinds
    rows: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class RetrievedChunk:
    """A chunk with the document facts a citation needs and its relevance scores."""

    chunk: Chunk
    document_title: str
    document_url: str | None
    score: float  # cosine similarity of query and chunk, clamped to 0..1
    keyword_rank: int | None = None
    dense_rank: int | None = None
    fused: float = 0.0
    # cosine of the query to each sentence's in-context vector (``chunk_sentences``
    # order); empty where the chunk was stored without sentence vectors
    sentence_scores: tuple[float, ...] = ()
    document_version: int = 1

    def sentence_score(self, position: int) -> float:
        """Sentence ``position``'s cosine; the chunk's where sentence vectors are missing."""
        if position < len(self.sentence_scores):
            return self.sentence_scores[position]
        return self.score

    @property
    def closest(self) -> float:
        """How close the chunk comes to the query: its own cosine or its closest
        sentence's, whichever is higher (clamped to 0..1). A sentence that says what was
        asked can sit in a chunk about more than that ("The target first response time
        is 4 hours for Team customers and 24 hours for Starter customers." in a chunk on
        support hours: sentence 0.51, chunk 0.33). A chunk stored without sentence
        vectors has only its own."""
        return min(1.0, max((self.score, *self.sentence_scores)))


@dataclass(frozen=True, slots=True)
class Citation:
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
    added: bool | None = None  # LLM mode: cited by the support check, not by the model
    version: int | None = None  # the document's version quoted (None: cited before versions)
    row: int | None = None  # a spreadsheet's row quoted (its number in the sheet)
    cell: str | None = None  # and the cell holding the exact answer, as the sheet names it
    rows: tuple[tuple[int, int], ...] = ()  # the passage's rows (``Chunk.rows``); not sent

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["rows"]
        if self.added is None:
            del data["added"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Citation:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Span:
    """Ties answer text ``[answer_start, answer_end)`` to source text of citation ``index``.

    ``doc_start``/``doc_end`` are offsets into the cited document's extracted text;
    ``page`` is the page that text starts on (None where the document has no pages).
    """

    answer_start: int
    answer_end: int
    index: int
    doc_start: int
    doc_end: int
    supported: bool | None = None  # LLM mode: the support check's verdict
    # the exact answer the reader found inside this quote: offsets in the answer text
    # and in the document (extractive answers' leading sentence only)
    exact_start: int | None = None
    exact_end: int | None = None
    exact_doc_start: int | None = None
    exact_doc_end: int | None = None
    page: int | None = None
    row: int | None = None  # a spreadsheet's row the quote is, by its number in the sheet
    cell: str | None = None  # the exact answer's cell there ("C3")

    def to_dict(self) -> dict[str, Any]:
        """The contract's fields (``page`` null where the document has no pages) and
        whichever optional ones are set."""
        return {k: v for k, v in asdict(self).items() if v is not None or k == "page"}


@dataclass(frozen=True, slots=True)
class Evidence:
    """Why the evidence check passed or refused."""

    max_score: float | None  # the closest a chunk or its sentence comes (RetrievedChunk.closest)
    threshold: float
    reason: str = "ok"  # ok | empty | below_threshold | no_answer | unnamed
    answer_score: float | None = None  # the best evidence score (reader.Calibration), when read
    confidence: float | None = None  # that score as a calibrated probability
    missing: tuple[str, ...] = ()  # unnamed: the years and names the evidence lacks

    @property
    def weak(self) -> bool:
        """An answer the reader believes less than even odds."""
        return self.confidence is not None and self.confidence < 0.5

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"max_score": self.max_score, "threshold": self.threshold}
        if self.reason != "ok":
            data["reason"] = self.reason
        if self.answer_score is not None:
            data["answer_score"] = self.answer_score
            data["confidence"] = self.confidence
        if self.missing:
            data["missing"] = list(self.missing)
        return data


# ---- events yielded by Footnoted.ask() -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    warning: str | None = None
    retrieval: dict[str, Any] | None = None  # {collection, duration_ms, chunks_returned, reader_ms}


@dataclass(frozen=True, slots=True)
class Delta:
    text: str


@dataclass(frozen=True, slots=True)
class Sources:
    citations: tuple[Citation, ...]
    referenced_indices: tuple[int, ...]
    spans: tuple[Span, ...]
    grounding: Grounding | None = None  # see citations.Answer


@dataclass(frozen=True, slots=True)
class Refusal:
    message: str
    suggestions: tuple[str, ...]
    evidence: Evidence
    elsewhere: tuple[str, ...] = ()  # other collections whose documents answer it
    retrieval: dict[str, Any] | None = None  # as ``Started``'s: what was searched and found


@dataclass(frozen=True, slots=True)
class Notice:
    """Said before the deltas, e.g. the LLM was unavailable so an extractive answer follows."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Done:
    answer: str


@dataclass(frozen=True, slots=True)
class Failed:
    code: str
    message: str


Event = Started | Notice | Delta | Sources | Refusal | Done | Failed
