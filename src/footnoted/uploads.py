"""Uploaded documents: accept the bytes, keep them, then parse, chunk and embed them.

:meth:`Uploads.begin` checks size and type (by content) and records the file with a
``processing`` document in one transaction; :meth:`Uploads.process` (run in a worker
thread) parses in the bounded parse worker (:mod:`.parsing`: a time and a memory limit),
embeds and stores the chunks, or marks the document ``failed`` with a readable error.
Each stage (parsing, embedding with the chunks done, saving) is recorded as the
document's progress, which ``GET /api/documents`` shows while it is ``processing``.
A server that stops mid-way leaves ``processing`` rows behind; :meth:`Uploads.recover`
marks them failed at the next start.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from . import loaders
from .errors import DocumentError, FootnotedError, NotFound
from .ingest import FileResult, Ingestor, check_url, document_id, embed_chunks
from .models import Document, Progress
from .settings import Settings
from .stores.base import Store, StoredFile

INTERRUPTED = "Processing was interrupted because the server stopped; reprocess the document."


class Uploads:
    def __init__(self, settings: Settings, store: Store, ingestor: Callable[[], Ingestor]) -> None:
        """``ingestor`` gives the ingestor when a file is processed: its parse worker
        starts on first use."""
        self.settings = settings
        self.store = store
        self.ingestor = ingestor

    def begin(
        self,
        data: bytes,
        filename: str,
        collection: str | None = None,
        *,
        title: str | None = None,
        url: str | None = None,
    ) -> Document:
        """Check and record an upload; returns the document (``processing`` unless known)."""
        url = check_url(url)
        max_bytes = int(self.settings.max_file_mb * 1024 * 1024)
        loaders.check_size(len(data), max_bytes, filename)
        if not data.strip():
            raise DocumentError(f"{filename} is empty.", code="empty_document")
        kind = loaders.detect_kind(data, filename)  # UnsupportedType (415) for anything else
        coll = collection or self.settings.collection
        content_hash = hashlib.sha256(data).hexdigest()
        doc_id = document_id(coll, content_hash)
        try:
            existing = self.store.get_document(doc_id)
        except NotFound:
            existing = None
        if existing is not None and existing.status != "failed":
            return existing  # the same content is already here (or on its way)
        document = Document(
            id=doc_id,
            collection=coll,
            title=title or Path(filename).stem or filename,
            source=f"upload/{content_hash[:16]}/{filename}",
            kind=kind,
            content_hash=content_hash,
            size=len(data),
            status="processing",
            url=url,
        )
        self.store.begin_upload(
            document, StoredFile(filename, loaders.media_type(kind), data, title)
        )
        return self.store.get_document(doc_id)

    def original(self, document: Document) -> StoredFile:
        """The uploaded bytes, or for an ingested file the file itself if it is unchanged."""
        stored = self.store.get_file(document.id)
        if stored is not None:
            return stored
        path = Path(document.source)
        try:
            data = path.read_bytes() if path.is_file() else None
        except OSError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != document.content_hash:
            raise NotFound(
                f"The original file of {document.title!r} is no longer available.",
                code="file_not_found",
            )
        return StoredFile(path.name, loaders.media_type(document.kind), data)

    def reprocess(self, document_id: str) -> Document:
        """Mark a document ``processing`` again (its file must still be available)."""
        document = self.store.get_document(document_id)
        self.original(document)
        return self.store.set_status(document_id, "processing")

    def process(self, document_id: str) -> Document:
        """Parse and chunk (bounded), embed and store; never raises for a bad file."""
        document = self.store.get_document(document_id)
        try:
            return self._process(document)
        except FootnotedError as exc:
            return self._fail(document, exc.message)
        except Exception as exc:  # a parser bug must not take the server down
            return self._fail(document, f"Could not process {document.title}: {exc}")

    def _process(self, document: Document) -> Document:
        file = self.original(document)
        self.store.set_progress(document.id, Progress("parsing"))
        item = self.ingestor().prepare(
            file.data,
            file.filename,
            document.source,
            document.collection,
            title=file.title,
            url=document.url,
        )
        if isinstance(item, FileResult):
            return self.store.get_document(item.document_id or document.id)
        total = len(item.chunks)

        def embedding(done: int) -> None:
            self.store.set_progress(document.id, Progress("embedding", done, total))

        embedding(0)
        embedded = embed_chunks(self.ingestor().embedder, [item.parts], embedding)
        self.store.set_progress(document.id, Progress("saving", total, total))
        ready = replace(item.document, chunk_count=total)
        self.store.get_document(document.id)  # NotFound if it was deleted meanwhile
        self.store.save_document(
            ready, item.text, item.chunks, embedded.vectors, embedded.sentences
        )
        return self.store.get_document(ready.id)

    def _fail(self, document: Document, message: str) -> Document:
        try:
            return self.store.set_status(document.id, "failed", message)
        except NotFound:  # deleted while it was being processed
            return replace(document, status="failed", error=message)

    def recover(self) -> int:
        """Mark documents a stopped server left ``processing`` as failed."""
        return self.store.fail_interrupted(INTERRUPTED)
