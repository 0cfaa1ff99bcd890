"""Ingestion: files -> parsed text -> chunks -> vectors -> one atomic write per document.

Parsing and chunking run in a worker process under a time and a memory limit
(:mod:`.parsing`), a few files ahead of embedding and storing, which run here, so the two
overlap. Ids are content hashes, so ingesting an unchanged file again is a no-op and a
changed file replaces its old chunks in one transaction. Chunks of several small files are
embedded together (sorted by length) so that small files still fill the model's batches.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import numpy as np

from .. import loaders
from ..errors import Conflict, FootnotedError, InvalidInput, NotFound
from ..inference.embedding import Embedder, Vectors
from ..lexical import chunk_sentences
from ..loaders.blocks import HEADER_CHARS, cut_row, table_headers
from ..models import (
    ATTACHMENT_MARK,
    MAIL_KINDS,
    SECTION_JOIN,
    Attachment,
    Chunk,
    Document,
    FileBytes,
    attached_to,
)
from ..stores.base import Store
from .parsing import Parser

Outcome = Literal["added", "replaced", "unchanged", "failed"]
BATCH_CHUNKS = 256
AHEAD = 4  # files parsed while earlier ones are embedded
# Chunks between progress reports while an upload is embedded; each report is where a
# deleted or reprocessed upload stops. Sized so that a step takes well under a second on
# a CPU without native int8 or bf16 (16 of the shared PDFs' chunks: about 0.4 s in fp32
# on 2 cores; 64 took 1.7 s there and kept the server busy past a delete), with the same
# vectors and about the same total time as 64 (ALCE's 314 chunks: 7.4-8.3 s against
# 7.0-9.5 s).
EMBED_STEP = 16


@dataclass(frozen=True, slots=True)
class FileResult:
    source: str
    outcome: Outcome
    document_id: str | None = None
    title: str | None = None
    chunks: int = 0
    error: str | None = None
    code: str | None = None


@dataclass(slots=True)
class IngestReport:
    results: list[FileResult] = field(default_factory=list)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def chunks(self) -> int:
        return sum(r.chunks for r in self.results)

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.outcome == "failed"]


ProgressFn = Callable[[FileResult], None]


@dataclass(frozen=True, slots=True)
class Embedded:
    vectors: Vectors  # one row per chunk
    sentences: list[Vectors]  # per chunk: one row per sentence

    def part(self, start: int, end: int) -> Embedded:
        return Embedded(self.vectors[start:end], self.sentences[start:end])


@dataclass(slots=True)
class _Pending:
    document: Document
    text: str
    chunks: list[Chunk]
    replaces: bool
    attachments: tuple[Attachment, ...] = ()

    @property
    def parts(self) -> Parts:
        return Parts(self.document.title, self.text, self.chunks)


MAX_ATTACHMENT_DEPTH = 2  # attachments of attachments are read; deeper ones are not


def document_id(collection: str, content_hash: str) -> str:
    return hashlib.sha256(f"{collection}\x00{content_hash}".encode()).hexdigest()[:32]


def new_document_id(store: Store, collection: str, content_hash: str, source: str) -> str:
    """A new document's id: from its collection and content, unless a document already
    holds that id (one whose later versions changed its content): then from its source
    too."""
    plain = document_id(collection, content_hash)
    try:
        store.get_document(plain)
    except NotFound:
        return plain
    return document_id(collection, f"{content_hash}\x00{source}")


def check_url(url: str | None) -> str | None:
    """A document's link must be an absolute http(s) URL: anything else (``javascript:``,
    ``data:``, a relative path) would turn every citation of it into a hostile link."""
    if url is None:
        return None
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise InvalidInput(
            f"The document url must be an absolute http(s) URL, not {url[:80]!r}.",
            code="invalid_url",
        )
    return url.strip()


def walk(paths: Iterable[Path]) -> Iterator[Path]:
    """Files under the given paths, directories recursively, hidden entries skipped."""
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path).parts
                if child.is_file() and not any(p.startswith(".") for p in rel):
                    yield child
        else:
            yield path


@dataclass(frozen=True, slots=True)
class Parts:
    """A document's chunks with what their context needs: its title and text."""

    title: str
    text: str
    chunks: Sequence[Chunk]


def embedding_texts(parts: Parts) -> list[str]:
    """What gets embedded for each chunk: the document title and section path give it
    its context, and a chunk that starts among a table's rows gets the table's first row
    (its header, cut to ``HEADER_CHARS``); the chunk's own text comes last."""
    headers: Sequence[str | None] = [c.header for c in parts.chunks]
    if None in headers:  # chunks stored before their headers were kept
        headers = table_headers(parts.text, [c.char_start for c in parts.chunks])
    texts = []
    for chunk, header in zip(parts.chunks, headers, strict=True):
        title, section = parts.title, chunk.section
        heading = title if not section or section == title else SECTION_JOIN.join((title, section))
        context = header and cut_row(header, HEADER_CHARS)
        texts.append("\n".join(filter(None, (heading, context, chunk.text))))
    return texts


def embed_chunks(
    embedder: Embedder,
    documents: Sequence[Parts],
    progress: Callable[[int], None] | None = None,
) -> Embedded:
    """Embed the documents' chunks, in order: each chunk's vector and, from the same
    pass, its sentences' vectors in context (``chunk_sentences`` order). With
    ``progress``, chunks go in steps of ``EMBED_STEP``, each followed by
    ``progress(chunks done)``."""
    texts, spans = [], []
    for parts in documents:
        for chunk, text in zip(parts.chunks, embedding_texts(parts), strict=True):
            shift = len(text) - len(chunk.text)
            texts.append(text)
            spans.append([(shift + s, shift + e) for s, e, _ in chunk_sentences(chunk.text)])
    if progress is None:
        return Embedded(*embedder.embed_passages(texts, spans))
    vectors: list[Vectors] = []
    sentences: list[Vectors] = []
    for start in range(0, max(len(texts), 1), EMBED_STEP):
        end = start + EMBED_STEP
        step_vectors, step_sentences = embedder.embed_passages(texts[start:end], spans[start:end])
        vectors.append(step_vectors)
        sentences.extend(step_sentences)
        progress(min(end, len(texts)))
    return Embedded(np.concatenate(vectors), sentences)


class Ingestor:
    def __init__(
        self, store: Store, embedder: Embedder, parser: Parser, max_bytes: int | None
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.parser = parser
        self.max_bytes = max_bytes

    def ingest_paths(
        self, paths: Sequence[Path], collection: str, progress: ProgressFn | None = None
    ) -> IngestReport:
        report = IngestReport()
        pending: list[_Pending] = []
        sources: dict[str, str] = {}  # document id -> source, for this ingest's files

        def done(result: FileResult) -> None:
            report.results.append(result)
            if progress is not None:
                progress(result)

        for path, item in self._prepared(walk(paths), collection):
            if isinstance(item, FileResult):
                done(item)
                continue
            twin = sources.get(item.document.id)
            if twin is not None:  # the same content twice in one ingest: keep the first
                message = f"Same content as {twin!r}, in this ingest; skipped."
                done(FileResult(str(path), "failed", error=message, code="duplicate_document"))
                continue
            sources[item.document.id] = item.document.source
            pending.append(item)
            if sum(len(p.chunks) for p in pending) >= BATCH_CHUNKS:
                self._flush(pending, done)
                pending = []
        self._flush(pending, done)
        if report.count("added") or report.count("replaced"):
            self.store.refresh_index(collection)
        return report

    def _prepared(
        self, paths: Iterable[Path], collection: str
    ) -> Iterator[tuple[Path, _Pending | FileResult]]:
        """Each file prepared (read, parsed, chunked), in order, up to ``AHEAD`` files
        ahead of the caller: parsing waits on the worker process while the caller embeds."""

        def one(path: Path) -> _Pending | FileResult:
            try:
                file = _read(path, self.max_bytes)
                return self.prepare(file, path.name, str(path.resolve()), collection)
            except FootnotedError as exc:
                return FileResult(str(path), "failed", error=exc.message, code=exc.code)

        window: deque[tuple[Path, Future[_Pending | FileResult]]] = deque()
        with ThreadPoolExecutor(1, thread_name_prefix="footnoted-parse") as pool:
            try:
                for path in paths:
                    window.append((path, pool.submit(one, path)))
                    if len(window) > AHEAD:
                        path, future = window.popleft()
                        yield path, future.result()
                while window:
                    path, future = window.popleft()
                    yield path, future.result()
            finally:  # stopped early (Ctrl-C): only the file being parsed is finished
                for _, future in window:
                    future.cancel()

    def ingest_bytes(
        self,
        data: bytes,
        filename: str,
        collection: str,
        *,
        source: str | None = None,
        title: str | None = None,
        url: str | None = None,
    ) -> FileResult:
        """One file from memory. Raises ``FootnotedError`` for bad input."""
        loaders.check_size(len(data), self.max_bytes, filename)
        file = FileBytes.of_bytes(data)
        item = self.prepare(file, filename, source or filename, collection, title=title, url=url)
        if isinstance(item, FileResult):
            return item
        results: list[FileResult] = []
        self._flush([item], results.append)
        self.store.refresh_index(collection, save=False)
        return results[0]

    def prepare(
        self,
        file: FileBytes,
        filename: str,
        source: str,
        collection: str,
        *,
        title: str | None = None,
        url: str | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> _Pending | FileResult:
        """Parse and chunk one file (in the bounded worker), or say it is unchanged.
        Raises for bad input, past the parse time or memory limit, and ``Cancelled``."""
        url = check_url(url)
        content_hash = file.sha256
        existing = self.store.find_document(collection, source)
        if (
            existing is not None
            and existing.content_hash == content_hash
            and existing.status == "ready"
            and existing.embedding_model == self.embedder.name
            and (title is None or existing.title == title)
        ):
            return FileResult(source, "unchanged", existing.id, existing.title, 0)
        self._check_duplicate(collection, content_hash, source)
        doc_id = (
            existing.id
            if existing is not None
            else new_document_id(self.store, collection, content_hash, source)
        )  # a changed file is the next version of the same document
        result = self.parser.parse(file, filename, doc_id, self.max_bytes, cancelled)
        parsed = result.document
        document = Document(
            id=doc_id,
            collection=collection,
            title=title or parsed.title or Path(filename).stem,
            source=source,
            kind=parsed.kind,
            content_hash=content_hash,
            size=file.size,
            url=url,
            page_count=parsed.page_count,
            embedding_model=self.embedder.name,
        )
        return _Pending(
            document, parsed.text, result.chunks, existing is not None, parsed.attachments
        )

    def _check_duplicate(self, collection: str, content_hash: str, source: str) -> None:
        other = self.store.find_content(collection, content_hash)
        if other is not None and other.source != source:
            raise Conflict(
                f"Same content as {other.source!r}, already in collection {collection!r}; skipped.",
                code="duplicate_document",
            )

    def _flush(self, pending: list[_Pending], done: ProgressFn) -> None:
        if not pending:
            return
        embedded = embed_chunks(self.embedder, [p.parts for p in pending])
        offset = 0
        for item in pending:
            n = len(item.chunks)
            doc = replace(item.document, chunk_count=n)
            part = embedded.part(offset, offset + n)
            self.store.save_document(doc, item.text, item.chunks, part.vectors, part.sentences)
            offset += n
            outcome: Outcome = "replaced" if item.replaces else "added"
            done(FileResult(doc.source, outcome, doc.id, doc.title, n))
            self.attach(doc, item.attachments, done)

    def attach(
        self, message: Document, attachments: Sequence[Attachment], done: ProgressFn
    ) -> None:
        """Store a message's attachments as documents of their own, linked to it by their
        source (``<its source>#attachment/<n>/<file name>``), and retire those it no
        longer has. One that fails is reported and leaves the message as it is; one
        whose content is already a document of the collection is that document."""
        if message.kind not in MAIL_KINDS:
            return  # nothing to attach or retire: no listing of the collection per file
        if message.source.count(ATTACHMENT_MARK) >= MAX_ATTACHMENT_DEPTH:
            attachments = ()  # a message attached to a message attached to a message…
        wanted: set[str] = set()
        for n, attachment in enumerate(attachments, 1):
            source = f"{message.source}{ATTACHMENT_MARK}{n}/{attachment.filename}"
            wanted.add(source)
            title = f"{attachment.filename} (attached to “{attachment.message}”)"
            file = FileBytes.of_bytes(attachment.data)
            known = self.store.find_content(message.collection, file.sha256)
            if known is not None and known.source != source:
                done(FileResult(source, "unchanged", known.id, known.title))
                continue
            try:
                item = self.prepare(
                    file, attachment.filename, source, message.collection, title=title
                )
            except FootnotedError as exc:
                done(FileResult(source, "failed", error=exc.message, code=exc.code))
                continue
            if isinstance(item, FileResult):
                done(item)
            else:
                self._flush([item], done)
        for doc in self.store.list_documents(message.collection):
            if attached_to(doc.source) == message.source and doc.source not in wanted:
                self.store.delete_document(doc.id)

    def reembed(self, document: Document) -> int:
        """Re-embed a stored document's chunks with the current model (no re-parsing)."""
        chunks = self.store.document_chunks(document.id)
        text = self.store.document_text(document.id)
        embedded = embed_chunks(self.embedder, [Parts(document.title, text, chunks)])
        updated = replace(document, embedding_model=self.embedder.name, chunk_count=len(chunks))
        self.store.save_document(updated, text, chunks, embedded.vectors, embedded.sentences)
        return len(chunks)


def _read(path: Path, max_bytes: int | None) -> FileBytes:
    from ..errors import DocumentError

    try:
        loaders.check_size(path.stat().st_size, max_bytes, path.name)  # raises TooLarge
        return FileBytes.of_path(path)
    except OSError as exc:
        raise DocumentError(f"Cannot read {path}: {exc.strerror or exc}") from exc
