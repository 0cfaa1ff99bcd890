"""The document library in SQL for both backends: documents, their text, chunks and
upload progress. What differs is how chunks are stored and searched: each backend's
store (``sqlite.py``, ``postgres.py``) writes a document's chunks with their vectors and
keyword index (``_insert_chunks``, ``_delete_chunks``) and searches them: the
vector-index seam a new backend fills in.
"""

from __future__ import annotations

import io
import secrets
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from ..errors import Cancelled
from ..models import (
    Chunk,
    Document,
    DocumentVersion,
    FileBytes,
    Progress,
    Retention,
    SitePage,
)
from .base import StoredFile, Vector
from .encoding import dumps, now
from .rows import (
    PROGRESS_QUERY,
    chunk_from,
    document_from,
    no_document,
    no_version,
    progress_by_document,
    progress_params,
    progress_upsert,
    version_from,
)
from .sql import SQL, Conn

DOC_COLUMNS = (
    "id, collection, title, source, kind, content_hash, size, status, enabled, error, url, "
    "page_count, chunk_count, embedding_model, created_at, updated_at, version"
)
VERSION_COLUMNS = (
    "document_id, version, collection, title, source, kind, content_hash, page_count, "
    "created_at, ended_at, ended_by"
)
SITE_PAGE_FIELDS = ("collection", "url", "sitemap", "etag", "last_modified", "checked_at")
LIVE = "d.status = 'ready' AND d.enabled = TRUE"  # what search may return


class _Parts(io.RawIOBase):
    """A stored file's parts as one stream, each part fetched when the reading reaches it."""

    def __init__(self, part: Callable[[int], bytes | None]) -> None:
        self._part = part
        self._n = 0
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def readinto(self, target: Any) -> int:
        while not self._buffer:
            part = self._part(self._n)
            if part is None:
                return 0
            self._n += 1
            self._buffer = part
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        return size


class LibrarySQL(SQL):
    retention: Retention = Retention()  # how many earlier versions are kept, how long

    # -- the backend's part: chunks with their vectors and keyword index --------------------
    def _insert_chunks(
        self,
        db: Conn,
        document: Document,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector],
    ) -> None:
        raise NotImplementedError

    def _delete_chunks(self, db: Conn, document_id: str) -> None:
        self._run(db, "DELETE FROM chunks WHERE document_id = ?", (document_id,))

    # -- documents -------------------------------------------------------------------------
    def get_document(self, document_id: str) -> Document:
        with self._reading() as db:
            return self._get(db, document_id)

    def _get(self, db: Conn, document_id: str) -> Document:
        row = self._run(
            db, f"SELECT {DOC_COLUMNS} FROM documents WHERE id = ?", (document_id,)
        ).fetchone()
        if row is None:
            raise no_document(document_id)
        return document_from(row)

    def _find(self, db: Conn, collection: str, source: str) -> Document | None:
        row = self._run(
            db,
            f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND source = ?",
            (collection, source),
        ).fetchone()
        return None if row is None else document_from(row)

    def _same_source(self, db: Conn, document: Document) -> Document | None:
        """The stored document from ``document``'s source, locked until the transaction
        ends so that two writes of one source replace it one after the other."""
        self._lock(db, "document", document.collection, document.source)
        return self._find(db, document.collection, document.source)

    def find_document(self, collection: str, source: str) -> Document | None:
        with self._reading() as db:
            return self._find(db, collection, source)

    def list_documents(self, collection: str | None = None) -> list[Document]:
        query = f"SELECT {DOC_COLUMNS} FROM documents"
        params: tuple[Any, ...] = ()
        if collection is not None:
            query += " WHERE collection = ?"
            params = (collection,)
        order = f" ORDER BY created_at{self.BYTEWISE}, title{self.BYTEWISE}"
        with self._reading() as db:
            rows = self._run(db, query + order, params).fetchall()
        return [document_from(r) for r in rows]

    def collections(self) -> list[str]:
        with self._reading() as db:
            rows = self._run(
                db, f"SELECT DISTINCT collection{self.BYTEWISE} AS name FROM documents ORDER BY 1"
            ).fetchall()
        return [r["name"] for r in rows]

    def save_document(
        self,
        document: Document,
        text: str,
        chunks: Sequence[Chunk],
        vectors: Vector,
        sentences: Sequence[Vector] = (),
        job: str | None = None,
    ) -> None:
        """Store a document with its text and chunks in one transaction, replacing the one
        from the same source (its original file kept when it is the same document). With
        ``job``, only while that job holds the document's work (else ``Cancelled``)."""
        stamp = now()
        with self._writing() as db:
            if (
                job is not None
                and not self._run(
                    db,
                    "SELECT 1 FROM documents WHERE id = ? AND job = ? AND status = 'processing'",
                    (document.id, job),
                ).fetchone()
            ):
                raise Cancelled(f"Processing {document.title} was stopped.")
            old = self._same_source(db, document)
            if old is not None and old.id == document.id:
                version = old.version  # the same content again (re-embedded), or a failed try
                if old.content_hash != document.content_hash and old.status == "ready":
                    self._keep_version(db, old, "replaced", stamp)
                    version = old.version + 1
            else:
                version = self._next_version(db, document)
            if old is not None:
                self._delete(db, old.id, keep_file=old.id == document.id)
            self._run(
                db,
                f"INSERT INTO documents ({DOC_COLUMNS}, text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document.id,
                    document.collection,
                    document.title,
                    document.source,
                    document.kind,
                    document.content_hash,
                    document.size,
                    document.status,
                    document.enabled,
                    document.error,
                    document.url,
                    document.page_count,
                    len(chunks),
                    document.embedding_model,
                    old.created_at if old else stamp,
                    stamp,
                    version,
                    text,
                ),
            )
            self._insert_chunks(db, document, chunks, vectors, sentences)
            self._prune_versions(db, document.id)

    # -- versions --------------------------------------------------------------------------
    def _next_version(self, db: Conn, document: Document) -> int:
        """The version ``document`` starts as when no current one is replaced: one past
        its newest kept version (1 when none is), so a document deleted and added again
        goes on from where it was; or that version itself when it was deleted with this
        very content (a file moved back, a document restored), which is current again."""
        row = self._run(
            db,
            "SELECT version, content_hash, ended_by FROM document_versions "
            "WHERE document_id = ? ORDER BY version DESC LIMIT 1",
            (document.id,),
        ).fetchone()
        if row is None:
            return 1
        if row["ended_by"] == "deleted" and row["content_hash"] == document.content_hash:
            self._run(
                db,
                "DELETE FROM document_versions WHERE document_id = ? AND version = ?",
                (document.id, row["version"]),
            )
            return int(row["version"])
        return int(row["version"]) + 1

    def _keep_version(self, db: Conn, doc: Document, ended_by: str, stamp: str) -> None:
        """Keep ``doc``'s current version (its text and its chunks' places) as it ends."""
        rows = self._run(
            db,
            "SELECT char_start, char_end, page, section FROM chunks WHERE document_id = ? "
            "ORDER BY idx",
            (doc.id,),
        ).fetchall()
        layout = [[r["char_start"], r["char_end"], r["page"], r["section"]] for r in rows]
        self._run(
            db,
            f"INSERT INTO document_versions ({VERSION_COLUMNS}, text, layout) "
            "SELECT id, version, collection, title, source, kind, content_hash, page_count, "
            "updated_at, ?, ?, text, ? FROM documents WHERE id = ? "
            "ON CONFLICT (document_id, version) DO NOTHING",
            (stamp, ended_by, dumps(layout), doc.id),
        )

    def _prune_versions(self, db: Conn, document_id: str) -> None:
        """Drop what the retention no longer keeps: ``document_id``'s versions past the
        newest ``kept``, and every kept version that ended more than ``days`` ago."""
        kept, days = self.retention.kept, self.retention.days
        self._run(
            db,
            "DELETE FROM document_versions WHERE document_id = ? AND version NOT IN "
            "(SELECT version FROM document_versions WHERE document_id = ? "
            "ORDER BY version DESC LIMIT ?)",
            (document_id, document_id, kept),
        )
        if days is not None:
            self._run(
                db,
                "DELETE FROM document_versions WHERE ended_at < ?",
                (self.retention.cutoff(),),
            )

    def document_versions(self, document_id: str) -> list[DocumentVersion]:
        """Every version of the document still kept, newest first (the current one first,
        unless the document was deleted), without their text. ``NotFound`` when none is."""
        with self._reading() as db:
            rows = self._run(
                db,
                f"SELECT {VERSION_COLUMNS} FROM document_versions WHERE document_id = ? "
                "ORDER BY version DESC",
                (document_id,),
            ).fetchall()
            versions = [version_from(r) for r in rows]
            current = self._current_version(db, document_id)
        if current is not None:
            versions.insert(0, current)
        if not versions:
            raise no_document(document_id)
        return versions

    def _current_version(self, db: Conn, document_id: str) -> DocumentVersion | None:
        row = self._run(
            db,
            "SELECT id AS document_id, version, collection, title, source, kind, content_hash, "
            "page_count, updated_at AS created_at, NULL AS ended_at, NULL AS ended_by "
            "FROM documents WHERE id = ? AND status = 'ready'",
            (document_id,),
        ).fetchone()
        return None if row is None else version_from(row)

    def document_version(self, document_id: str, version: int) -> DocumentVersion:
        """Version ``version`` of the document with its text and its chunks' places: the
        current one or a kept earlier one (``NotFound``: ``version_not_found``)."""
        with self._reading() as db:
            current = self._current_version(db, document_id)
            if current is not None and current.version == version:
                text = self._run(
                    db, "SELECT text FROM documents WHERE id = ?", (document_id,)
                ).fetchone()["text"]
                rows = self._run(
                    db,
                    "SELECT char_start, char_end, page, section FROM chunks "
                    "WHERE document_id = ? ORDER BY idx",
                    (document_id,),
                ).fetchall()
                layout = [[r["char_start"], r["char_end"], r["page"], r["section"]] for r in rows]
                return version_from(current, text=text, layout=layout)
            row = self._run(
                db,
                f"SELECT {VERSION_COLUMNS}, text, layout FROM document_versions "
                "WHERE document_id = ? AND version = ?",
                (document_id, version),
            ).fetchone()
        if row is None:
            raise no_version(document_id, version)
        return version_from(row, text=row["text"], layout=row["layout"])

    # -- pages followed from a sitemap -------------------------------------------------------
    def site_pages(self, collection: str, sitemap: str) -> dict[str, SitePage]:
        """The pages ``sitemap`` listed into ``collection`` when last synced, by URL."""
        with self._reading() as db:
            rows = self._run(
                db,
                "SELECT collection, url, sitemap, etag, last_modified, checked_at "
                "FROM site_pages WHERE collection = ? AND sitemap = ?",
                (collection, sitemap),
            ).fetchall()
        return {r["url"]: SitePage(**{k: r[k] for k in SITE_PAGE_FIELDS}) for r in rows}

    def keep_site_page(self, page: SitePage) -> None:
        """Record a page (its sitemap and validators), replacing what was known of it."""
        with self._writing() as db:
            self._run(
                db,
                "INSERT INTO site_pages (collection, url, sitemap, etag, last_modified, "
                "checked_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (collection, url) DO UPDATE "
                "SET sitemap = excluded.sitemap, etag = excluded.etag, "
                "last_modified = excluded.last_modified, checked_at = excluded.checked_at",
                (page.collection, page.url, page.sitemap, page.etag, page.last_modified,
                 page.checked_at or now()),
            )  # fmt: skip

    def forget_site_page(self, collection: str, url: str) -> None:
        with self._writing() as db:
            self._run(
                db, "DELETE FROM site_pages WHERE collection = ? AND url = ?", (collection, url)
            )

    def find_content(self, collection: str, content_hash: str) -> Document | None:
        """The collection's document whose current version has this content, if any."""
        with self._reading() as db:
            row = self._run(
                db,
                f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND content_hash = ? "
                "ORDER BY created_at LIMIT 1",
                (collection, content_hash),
            ).fetchone()
        return None if row is None else document_from(row)

    def _delete(self, db: Conn, document_id: str, keep_file: bool = False) -> None:
        self._delete_chunks(db, document_id)
        self._run(db, "DELETE FROM documents WHERE id = ?", (document_id,))
        self._run(db, "DELETE FROM document_progress WHERE document_id = ?", (document_id,))
        if not keep_file:
            self._run(db, "DELETE FROM document_files WHERE document_id = ?", (document_id,))
            self._run(db, "DELETE FROM document_file_parts WHERE document_id = ?", (document_id,))

    def begin_upload(self, document: Document, file: StoredFile) -> None:
        """Record an uploaded file and its document (status ``processing``) in one transaction.

        A failed or unfinished earlier upload of the same content is replaced.
        """
        stamp = now()
        with self._writing() as db:
            old = self._same_source(db, document)
            for stale in {old.id if old else None, document.id} - {None}:
                self._delete(db, str(stale))
            self._run(
                db,
                f"INSERT INTO documents ({DOC_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, "
                "'processing', TRUE, NULL, ?, NULL, 0, NULL, ?, ?, ?)",
                (
                    document.id,
                    document.collection,
                    document.title,
                    document.source,
                    document.kind,
                    document.content_hash,
                    document.size,
                    document.url,
                    stamp,
                    stamp,
                    self._next_version(db, document),
                ),
            )
            self._run(
                db,
                "INSERT INTO document_files (document_id, filename, title, media_type, "
                "created_at) VALUES (?, ?, ?, ?, ?)",
                (document.id, file.filename, file.title, file.media_type, stamp),
            )
            for n, part in enumerate(file.content.parts()):  # a part at a time, never whole
                self._run(
                    db,
                    "INSERT INTO document_file_parts (document_id, n, data) VALUES (?, ?, ?)",
                    (document.id, n, part),
                )

    def _updated(
        self, db: Conn, document_id: str, assignments: str, params: tuple[Any, ...]
    ) -> Document:
        rows = self._run(  # all rows fetched: SQLite commits no statement still running
            db,
            f"UPDATE documents SET {assignments}, updated_at = ? WHERE id = ? "
            f"RETURNING {DOC_COLUMNS}",
            (*params, now(), document_id),
        ).fetchall()
        if not rows:
            raise no_document(document_id)
        return document_from(rows[0])

    def set_status(self, document_id: str, status: str, error: str | None = None) -> Document:
        """Mark a document ``processing`` or ``failed`` (with a readable error); either way
        its progress starts over, and the job working on it (if any) is no longer its."""
        with self._writing() as db:
            self._run(db, "DELETE FROM document_progress WHERE document_id = ?", (document_id,))
            return self._updated(
                db, document_id, "status = ?, error = ?, job = NULL", (status, error)
            )

    def claim_job(self, document_id: str) -> str:
        """Take a ``processing`` document's work: a job id that every later step checks
        (``job_current``), so that a job claimed after it, or the document's deletion,
        stops it. ``NotFound`` once deleted."""
        job = secrets.token_hex(8)
        with self._writing() as db:
            self._get(db, document_id)
            self._run(db, "UPDATE documents SET job = ? WHERE id = ?", (job, document_id))
        return job

    def job_current(self, document_id: str, job: str) -> bool:
        """Whether ``job`` still holds the document's work (it is there, processing, and
        no other job has claimed it since)."""
        with self._reading() as db:
            row = self._run(
                db,
                "SELECT 1 FROM documents WHERE id = ? AND job = ? AND status = 'processing'",
                (document_id, job),
            ).fetchone()
        return row is not None

    def set_progress(self, document_id: str, progress: Progress, job: str) -> bool:
        """Record where a ``processing`` document's work stands; False (nothing recorded)
        when ``job`` no longer holds it."""
        with self._writing() as db:
            cur = db.execute(
                progress_upsert(self.PARAM), progress_params(document_id, progress, job)
            )
            return bool(cur.rowcount > 0)

    def progress(self) -> dict[str, Progress]:
        """The progress of every ``processing`` document that has one, by document id."""
        with self._reading() as db:
            rows = db.execute(PROGRESS_QUERY).fetchall()
        return progress_by_document(rows)

    def fail_interrupted(self, error: str) -> int:
        """Mark documents left ``processing`` by a stopped server as failed."""
        with self._writing() as db:
            cur = self._run(
                db,
                "UPDATE documents SET status = 'failed', error = ?, updated_at = ? "
                "WHERE status = 'processing'",
                (error, now()),
            )
            self._run(db, "DELETE FROM document_progress")
            return int(cur.rowcount)

    def set_enabled(self, document_id: str, enabled: bool) -> Document:
        with self._writing() as db:
            return self._updated(db, document_id, "enabled = ?", (enabled,))

    def delete_document(self, document_id: str, purge: bool = False) -> None:
        """Delete the document with its chunks, vectors and file. Its last version is kept
        (as the retention allows) for the answers that quoted it; with ``purge``, that and
        every earlier version go too."""
        with self._writing() as db:
            doc = self._get(db, document_id)
            if purge:
                self._run(db, "DELETE FROM document_versions WHERE document_id = ?", (document_id,))
            elif doc.status == "ready":
                self._keep_version(db, doc, "deleted", now())
            self._delete(db, document_id)
            self._prune_versions(db, document_id)

    def document_text(self, document_id: str, start: int = 0, end: int | None = None) -> str:
        """The document's extracted text, or the piece ``[start, end)`` of it (offsets
        in characters, as citations give them)."""
        with self._reading() as db:
            if start == 0 and end is None:
                row = self._run(
                    db, "SELECT text FROM documents WHERE id = ?", (document_id,)
                ).fetchone()
            else:
                length = -1 if end is None else max(end - start, 0)
                row = self._run(
                    db, "SELECT substr(text, ?, ?) AS text FROM documents WHERE id = ?",
                    (start + 1, length if length >= 0 else 2**31 - 1, document_id),
                ).fetchone()  # fmt: skip
        if row is None:
            raise no_document(document_id)
        return str(row["text"])

    # -- original files ------------------------------------------------------------------
    def get_file(self, document_id: str) -> StoredFile | None:
        """The original file, read a part at a time when its content is read."""
        with self._reading() as db:
            row = self._run(
                db,
                "SELECT f.filename, f.media_type, f.title, d.content_hash, "
                "(SELECT sum(length(p.data)) FROM document_file_parts p "
                "WHERE p.document_id = f.document_id) AS size "
                "FROM document_files f JOIN documents d ON d.id = f.document_id "
                "WHERE f.document_id = ?",
                (document_id,),
            ).fetchone()
        if row is None:
            return None

        def opener() -> BinaryIO:
            return io.BufferedReader(_Parts(lambda n: self._file_part(document_id, n)))

        content = FileBytes(int(row["size"] or 0), row["content_hash"], opener)
        return StoredFile(row["filename"], row["media_type"], content, row["title"])

    def _file_part(self, document_id: str, n: int) -> bytes | None:
        with self._reading() as db:
            row = self._run(
                db,
                "SELECT data FROM document_file_parts WHERE document_id = ? AND n = ?",
                (document_id, n),
            ).fetchone()
        return None if row is None else bytes(row["data"])

    def document_chunks(self, document_id: str) -> list[Chunk]:
        with self._reading() as db:
            self._get(db, document_id)
            rows = self._run(
                db, "SELECT * FROM chunks WHERE document_id = ? ORDER BY idx", (document_id,)
            ).fetchall()
        return [chunk_from(r) for r in rows]

    # -- what retrieval asks of the library ------------------------------------------------
    def _count_live(self, db: Conn, collection: str) -> int:
        row = self._run(
            db,
            "SELECT coalesce(sum(chunk_count), 0) AS n FROM documents d "
            f"WHERE collection = ? AND {LIVE}",
            (collection,),
        ).fetchone()
        return int(row["n"]) if row else 0

    def count_chunks(self, collection: str) -> int:
        def count() -> int:
            with self._reading() as db:
                return self._count_live(db, collection)

        return self.memo(("count_chunks", collection), count)

    def without_sentence_vectors(self, collection: str | None = None) -> set[str]:
        query = "SELECT DISTINCT document_id FROM chunks WHERE sentence_embeddings IS NULL"
        params: tuple[str, ...] = ()
        if collection is not None:
            query += " AND collection = ?"
            params = (collection,)
        with self._reading() as db:
            return {r["document_id"] for r in self._run(db, query, params).fetchall()}

    def embedding_models(self, collection: str) -> set[str]:
        def models() -> frozenset[str]:
            with self._reading() as db:
                rows = self._run(
                    db,
                    "SELECT DISTINCT embedding_model FROM documents WHERE collection = ? "
                    "AND status = 'ready'",
                    (collection,),
                ).fetchall()
            return frozenset(r["embedding_model"] for r in rows if r["embedding_model"])

        return set(self.memo(("embedding_models", collection), models))
