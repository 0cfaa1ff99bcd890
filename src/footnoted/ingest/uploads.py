"""Uploaded documents: accept the bytes, keep them, then parse, chunk and embed them.

An upload is never held whole in the server's memory: it arrives spooled to disk, is
hashed, sniffed and stored a part at a time (``FileBytes``), and reaches the parse worker
the same way. :meth:`Uploads.begin` checks size and type (by content) and records the
file with a ``processing`` document in one transaction; :meth:`Uploads.process` (run in a
worker thread) claims the document's work, parses in the bounded parse worker
(:mod:`.parsing`: a time and a memory limit), embeds and stores the chunks, or marks the
document ``failed`` with a readable error. Each stage (parsing, embedding with the chunks
done, saving) is recorded as the document's progress, which ``GET /api/documents`` shows
while it is ``processing``; every step checks that the work is still wanted, so deleting
the document or processing it anew stops it within a second (:class:`Cancelled`). A
server that stops mid-way leaves ``processing`` rows behind; :meth:`Uploads.recover`
marks them failed at the next start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .. import loaders
from ..errors import Cancelled, DocumentError, FootnotedError, NotFound
from ..loaders.sniff import detect_file_kind
from ..models import Document, FileBytes, Progress
from ..records import CLI_ACTOR, Actor
from ..settings import Settings
from ..stores.base import Store, StoredFile
from .ingest import FileResult, Ingestor, check_url, embed_chunks, new_document_id

DELETED = "The document was deleted while it was being processed."
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
        file: FileBytes,
        filename: str,
        collection: str | None = None,
        *,
        title: str | None = None,
        url: str | None = None,
        actor: Actor = CLI_ACTOR,
    ) -> Document:
        """Check and record an upload; returns the document (``processing`` unless known).
        ``file`` is read a part at a time; an upload is audited as ``actor``'s."""
        url = check_url(url)
        max_bytes = int(self.settings.max_file_mb * 1024 * 1024)
        loaders.check_size(file.size, max_bytes, filename)
        if all(not part.strip() for part in file.parts()):
            raise DocumentError(f"{filename} is empty.", code="empty_document")
        kind = detect_file_kind(file, filename)  # UnsupportedType (415) for anything else
        coll = collection or self.settings.collection
        content_hash = file.sha256
        existing = self.store.find_content(coll, content_hash)
        if existing is not None and existing.status != "failed":
            return existing  # the same content is already here (or on its way)
        source = f"upload/{content_hash[:16]}/{filename}"
        doc_id = (
            existing.id
            if existing is not None
            else new_document_id(self.store, coll, content_hash, source)
        )
        document = Document(
            id=doc_id,
            collection=coll,
            title=title or Path(filename).stem or filename,
            source=source,
            kind=kind,
            content_hash=content_hash,
            size=file.size,
            status="processing",
            url=url,
        )
        self.store.begin_upload(
            document, StoredFile(filename, loaders.media_type(kind), file, title)
        )
        self.store.audit(
            actor,
            "document_uploaded",
            f"document:{doc_id}",
            {"title": document.title, "collection": coll},
        )
        return self.store.get_document(doc_id)

    def original(self, document: Document) -> StoredFile:
        """The uploaded bytes, or for an ingested file the file itself if it is unchanged."""
        stored = self.store.get_file(document.id)
        if stored is not None:
            return stored
        path = Path(document.source)
        try:
            file = FileBytes.of_path(path) if path.is_file() else None
        except OSError:
            file = None
        if file is None or file.sha256 != document.content_hash:
            raise NotFound(
                f"The original file of {document.title!r} is no longer available.",
                code="file_not_found",
            )
        return StoredFile(path.name, loaders.media_type(document.kind), file)

    def reprocess(self, document_id: str, actor: Actor = CLI_ACTOR) -> Document:
        """Mark a document ``processing`` again (its file must still be available); work
        still going on it stops at its next step. Audited."""
        document = self.store.get_document(document_id)
        self.original(document)
        processing = self.store.set_status(document_id, "processing")
        self.store.audit(
            actor, "document_reprocessed", f"document:{document_id}", {"title": document.title}
        )
        return processing

    def process(self, document_id: str) -> Document:
        """Parse and chunk (bounded), embed and store; never raises for a bad file. Work
        that is no longer wanted (deleted, or claimed by a later job) stops early."""
        job = self.store.claim_job(document_id)  # NotFound once deleted
        document = self.store.get_document(document_id)
        try:
            return self._process(document, job)
        except Cancelled:
            return self._gone(document)
        except FootnotedError as exc:
            return self._fail(document, job, exc.message)
        except Exception as exc:  # a parser bug must not take the server down
            return self._fail(document, job, f"Could not process {document.title}: {exc}")

    def _process(self, document: Document, job: str) -> Document:
        file = self.original(document)

        def unwanted() -> bool:
            return not self.store.job_current(document.id, job)

        def step(progress: Progress) -> None:
            if not self.store.set_progress(document.id, progress, job):
                raise Cancelled(f"Processing {document.title} was stopped.")

        step(Progress("parsing"))
        item = self.ingestor().prepare(
            file.content,
            file.filename,
            document.source,
            document.collection,
            title=file.title,
            url=document.url,
            cancelled=unwanted,
        )
        if isinstance(item, FileResult):
            return self.store.get_document(item.document_id or document.id)
        total = len(item.chunks)
        step(Progress("embedding", 0, total))
        embedded = embed_chunks(
            self.ingestor().embedder,
            [item.parts],
            lambda done: step(Progress("embedding", done, total)),
        )
        step(Progress("saving", total, total))
        ready = replace(item.document, chunk_count=total)
        self.store.save_document(
            ready, item.text, item.chunks, embedded.vectors, embedded.sentences, job=job
        )
        self.ingestor().attach(ready, item.attachments, lambda result: None)
        return self.store.get_document(ready.id)

    def _gone(self, document: Document) -> Document:
        """The document as another job left it, or as it was before it was deleted."""
        try:
            return self.store.get_document(document.id)
        except NotFound:
            return replace(document, status="failed", error=DELETED)

    def _fail(self, document: Document, job: str, message: str) -> Document:
        if not self.store.job_current(document.id, job):
            return self._gone(document)  # deleted, or processed anew, meanwhile
        try:
            return self.store.set_status(document.id, "failed", message)
        except NotFound:  # deleted while it was being processed
            return replace(document, status="failed", error=message)

    def recover(self) -> int:
        """Mark documents a stopped server left ``processing`` as failed."""
        return self.store.fail_interrupted(INTERRUPTED)
